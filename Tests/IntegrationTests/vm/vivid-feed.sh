#!/bin/sh
# Guest helper (run inside the VM): the background feeder that writes raw
# frames from a file into vivid's output node, in a loop, so that they come
# back on the capture node (after vivid-setup.sh FORMAT).
#
#   vivid-feed.sh FILE FORMAT        start (a running feeder is stopped first)
#   vivid-feed.sh start FILE FORMAT  the same
#   vivid-feed.sh stop               stop it (no error if none runs)
#   vivid-feed.sh restart            start again with the last FILE FORMAT,
#                                    e.g. after inject_fatal_streaming_error or
#                                    disconnect, which end the feeder
#   vivid-feed.sh status             exit 0 if it runs, 1 if not
#
# FILE holds whole frames of FORMAT at the current size, back to back (each
# one sizeimage bytes, see vivid-setup.sh's output); they are sent in order
# and looped forever (v4l2-ctl --stream-out-mmap --stream-from --stream-loop,
# from a copy of FILE in the guest's memory). FORMAT must match what the
# capture node is set to: a mismatch is refused, since vivid would just
# deliver noise.
#
# Environment: LUMASCAN_VIVID_CAPTURE (default /dev/video0),
#   LUMASCAN_VIVID_OUTPUT (default /dev/video1),
#   LUMASCAN_VIVID_FEED_DIR: state (pid, args, feeder log), default
#   /tmp/lumascan-vivid-feed.
#   LUMASCAN_VIVID_FEED_VERIFY=0: do not probe the capture node for the fed
#   frames before returning (see verify below); LUMASCAN_VIVID_FEED_SETTLE:
#   seconds to wait instead (default 1.5).
set -eu
CAP=${LUMASCAN_VIVID_CAPTURE:-/dev/video0}
OUTDEV=${LUMASCAN_VIVID_OUTPUT:-/dev/video1}
STATE=${LUMASCAN_VIVID_FEED_DIR:-/tmp/lumascan-vivid-feed}

fail() { echo "vivid-feed: $*" >&2; exit 1; }

# Shell built-ins only (each extra process costs ~30 ms under TCG). A zombie
# has no /proc/PID/exe target, so it counts as stopped.
running() {
    pid=
    [ -r "$STATE/pid" ] && read -r pid <"$STATE/pid"
    [ -n "$pid" ] && [ -e "/proc/$pid/exe" ]
}

stop() {
    if running; then
        p=$pid
        grep -q v4l2-ctl "/proc/$p/cmdline" 2>/dev/null || { rm -f "$STATE/pid"; return 0; }
        kill "$p" 2>/dev/null || true
        i=0
        while running && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
        if running; then
            kill -9 "$p" 2>/dev/null || true
            while running && [ $i -lt 200 ]; do sleep 0.02; i=$((i + 1)); done
        fi
        running && fail "feeder pid $p does not stop"
        # /proc/PID/exe goes before the files are closed: wait for the fds too,
        # so that the output node is free when we return.
        while [ -n "$(ls "/proc/$p/fd" 2>/dev/null)" ] && [ $i -lt 300 ]; do sleep 0.02; i=$((i + 1)); done
        echo "vivid-feed: stopped (pid $p)"
    fi
    rm -f "$STATE/pid"
}

# field LABEL TEXT: the value after "LABEL :" in v4l2-ctl's format listing.
field() {
    printf '%s\n' "$2" | sed -n "s/^[[:space:]]*$1[[:space:]]*: *//p" | head -n1
}

start() {
    file=$1 fmt=$2
    case $fmt in RGB24) fmt=RGB3 ;; BGR24) fmt=BGR3 ;; esac
    [ -s "$file" ] || fail "no frames in '$file'"
    case $file in /*) ;; *) file=$PWD/$file ;; esac
    mkdir -p "$STATE"
    stop >/dev/null

    capinfo=$(v4l2-ctl -d "$CAP" --get-fmt-video) || fail "cannot read the format of $CAP"
    cap=$(field "Pixel Format" "$capinfo" | cut -d"'" -f2)
    capsize=$(field "Width\/Height" "$capinfo")
    [ "$cap" = "$fmt" ] || fail "capture node $CAP is set to '$cap', not $fmt: run vivid-setup.sh $fmt first"
    w=${capsize%/*} h=${capsize#*/}
    outinfo=$(v4l2-ctl -d "$OUTDEV" --set-fmt-video-out="width=$w,height=$h,pixelformat=$fmt" --get-fmt-video-out) \
        || fail "cannot set $fmt ${w}x$h on $OUTDEV"
    size=$(field "Size Image" "$outinfo")
    bytes=$(wc -c <"$file")
    [ "$bytes" -ge "$size" ] && [ $((bytes % size)) -eq 0 ] \
        || fail "'$file' has $bytes bytes: not a whole number of $fmt ${w}x$h frames ($size bytes each)"

    printf '%s\n%s\n' "$file" "$fmt" >"$STATE/args"
    # v4l2-ctl reads FILE again for every frame it sends. Read through the 9p share (where the host's files and the
    # out dir are), that took two thirds of the guest's CPU at 60 frames a second, and lumascan, niced, starved
    # (a 10-frame scan took a minute). A copy in the guest's memory (the root overlay is tmpfs) costs a fifth.
    frames=$STATE/frames.raw
    cp "$file" "$frames" || fail "cannot copy '$file' to $frames"
    v4l2-ctl -d "$OUTDEV" --silent --stream-out-mmap --stream-from="$frames" --stream-loop \
        </dev/null >"$STATE/log" 2>&1 &
    echo $! >"$STATE/pid"
    sleep 0.1
    running || { cat "$STATE/log" >&2; fail "the feeder exited at once"; }
    verify "$frames" "$size" $((bytes / size))
    echo "vivid-feed: feeding $((bytes / size)) frame(s) of $fmt ${w}x$h from $file (pid $pid)$VERIFIED"
}

# verify FILE SIZE NFRAMES: wait until the capture node delivers one of the
# fed frames. Right after the feeder starts, vivid often sends its noise
# pattern for a while (tens of frames, up to about a second under TCG)
# before the loop carries the fed frames; probing with one-frame captures
# until one matches gets past that, so the caller's capture starts on a live
# loop. Skipped when LUMASCAN_VIVID_FEED_VERIFY=0 (then it waits
# LUMASCAN_VIVID_FEED_SETTLE seconds, default 1.5) or when the capture node
# is busy (someone else streams from it).
verify() {
    VERIFIED=
    if [ "${LUMASCAN_VIVID_FEED_VERIFY:-1}" = 0 ]; then
        sleep "${LUMASCAN_VIVID_FEED_SETTLE:-1.5}"
        return 0
    fi
    probe=$STATE/probe.raw
    n=$3
    [ "$n" -le 16 ] || n=16  # compare with the first 16 frames at most
    t=0
    while [ $t -lt 30 ]; do
        t=$((t + 1))
        rm -f "$probe"
        if ! v4l2-ctl -d "$CAP" --stream-mmap --stream-count=1 --stream-to="$probe" \
                >"$STATE/probe.log" 2>&1; then
            VERIFIED=" (loop not verified: $CAP busy?)"
            return 0
        fi
        if [ ! -s "$probe" ]; then
            VERIFIED=" (loop not verified: no frame from $CAP: $(tail -n1 "$STATE/probe.log"))"
            return 0
        fi
        running || { cat "$STATE/log" >&2; fail "the feeder died while waiting for the loop"; }
        k=0
        while [ $k -lt "$n" ]; do
            if cmp -s -n "$2" "$probe" "$1" 0 $((k * $2)); then
                VERIFIED=" (loop verified after $t probe(s))"
                return 0
            fi
            k=$((k + 1))
        done
    done
    fail "$CAP did not deliver the fed frames after $t probes (formats or loop_video wrong?)"
}

case ${1:-} in
    stop) stop ;;
    status)
        if running; then echo "vivid-feed: running (pid $pid)"; else echo "vivid-feed: not running"; exit 1; fi ;;
    restart)
        [ -r "$STATE/args" ] || fail "nothing to restart: no feeder was started"
        { read -r f; read -r m; } <"$STATE/args"
        start "$f" "$m" ;;
    start) [ $# -eq 3 ] || fail "usage: vivid-feed.sh start FILE FORMAT"; start "$2" "$3" ;;
    ""|-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; [ -n "${1:-}" ] ;;
    *) [ $# -eq 2 ] || fail "usage: vivid-feed.sh FILE FORMAT | stop | restart | status"; start "$1" "$2" ;;
esac
