#!/bin/sh
# Guest helper (run inside the VM): put vivid into HDMI loopback mode so that
# frames written to the output node come back on the capture node unchanged.
#
#   vivid-setup.sh [FORMAT]      FORMAT: YUYV (default), UYVY, GREY, RGB3, BGR3
#                                (RGB24/BGR24 are accepted for RGB3/BGR3)
#
# Both nodes get DV timings index 0 (640x480p59.94) and FORMAT at 640x480;
# the capture node gets loop_video=1 and osd_text_mode=2 (no OSD text), and
# the error-injection controls are reset (no dropped buffers, no wrapping,
# signal mode "current DV timings"). A running vivid-feed.sh feeder is
# stopped first (the output node cannot change format while streaming).
# The formats of both sides are read back and compared: a mismatch would give
# noise on the capture side rather than an error, so it fails here instead.
#
# Environment: LUMASCAN_VIVID_CAPTURE (default /dev/video0),
#              LUMASCAN_VIVID_OUTPUT  (default /dev/video1).
# Prints one line "vivid-setup: ..." and exits 0 on success; non-zero with a
# message on stderr otherwise.
set -eu
CAP=${LUMASCAN_VIVID_CAPTURE:-/dev/video0}
OUTDEV=${LUMASCAN_VIVID_OUTPUT:-/dev/video1}
HERE=$(cd "$(dirname "$0")" && pwd)
W=640 H=480

fail() { echo "vivid-setup: $*" >&2; exit 1; }

case ${1:-YUYV} in
    YUYV|UYVY|GREY|RGB3|BGR3) FMT=${1:-YUYV} ;;
    RGB24) FMT=RGB3 ;;
    BGR24) FMT=BGR3 ;;
    *) fail "unsupported format '${1}' (YUYV, UYVY, GREY, RGB3/RGB24, BGR3/BGR24)" ;;
esac
command -v v4l2-ctl >/dev/null || fail "v4l2-ctl not found (apt-get install v4l-utils on the host)"
for d in "$CAP" "$OUTDEV"; do [ -c "$d" ] || fail "$d is not a video device (is vivid loaded?)"; done

"$HERE/vivid-feed.sh" stop >/dev/null 2>&1 || true

# One v4l2-ctl call per node (each costs ~0.1 s under TCG). v4l2-ctl applies
# controls first, then DV timings, then the format, then reads back.
ERRS="percentage_of_dropped_buffers=0,wrap_sequence_number=0,wrap_timestamp=0"
capinfo=$(v4l2-ctl -d "$CAP" -c "dv_timings_signal_mode=0,loop_video=1,osd_text_mode=2,$ERRS" \
    --set-dv-bt-timings index=0 --set-fmt-video="width=$W,height=$H,pixelformat=$FMT" \
    --get-fmt-video -C loop_video) \
    || fail "cannot set up $CAP (DV timings 0, $FMT ${W}x$H, loop_video=1; busy?)"
outinfo=$(v4l2-ctl -d "$OUTDEV" -c "$ERRS" \
    --set-dv-bt-timings index=0 --set-fmt-video-out="width=$W,height=$H,pixelformat=$FMT" \
    --get-fmt-video-out) \
    || fail "cannot set up $OUTDEV (DV timings 0, $FMT ${W}x$H; a feeder still streaming?)"

# "WxH FOURCC bytesperline sizeimage" from the read-back.
summary() {
    printf '%s\n' "$1" | sed -n \
        -e "s/^[[:space:]]*Width\/Height[[:space:]]*: *\([0-9]*\)\/\([0-9]*\).*/\1x\2/p" \
        -e "s/^[[:space:]]*Pixel Format[[:space:]]*: *'\([^']*\)'.*/\1/p" \
        -e "s/^[[:space:]]*Bytes per Line[[:space:]]*: *\([0-9]*\).*/\1/p" \
        -e "s/^[[:space:]]*Size Image[[:space:]]*: *\([0-9]*\).*/\1/p" | tr '\n' ' '
}
c=$(summary "$capinfo")
o=$(summary "$outinfo")
[ "$c" = "$o" ] || fail "capture ($c) and output ($o) formats differ"
case $c in
    "${W}x$H $FMT "*) ;;
    *) fail "$CAP has '$c', wanted $FMT ${W}x$H" ;;
esac
case $capinfo in
    *"loop_video: 1"*) ;;
    *) fail "loop_video did not stick on $CAP" ;;
esac
set -- $c
echo "vivid-setup: $OUTDEV -> $CAP looped, $FMT ${W}x$H, bytesperline=$3 sizeimage=$4"
