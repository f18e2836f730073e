#!/usr/bin/env bash
# Self-test of the VM harness: one boot that exercises vivid the way
# LumaScan's real-device tests will, with the checks done on the host.
#
#   selftest.sh [--out DIR] [--timeout S]
#
# Host: writes raw frames with a known pattern (4 GREY frames, 2 YUYV frames,
# 640x480), boots the VM once (run-in-vm.sh -- selftest.sh --guest), then
# checks what came back:
#   a  v4l2-ctl --list-devices / --all -d /dev/video0 show vivid's two nodes
#   b  GREY: frames fed into video1 come back on video0 byte for byte
#   c  YUYV and UYVY: the same (UYVY reuses the YUYV bytes)
#   d  percentage_of_dropped_buffers=50 leaves gaps in the sequence numbers
#      (against a baseline without it); also reports the capture frame rate
#   e  inject_fatal_streaming_error: DQBUF fails (EIO), the feeder stops;
#      after vivid-feed.sh restart the loop delivers exact frames again
#   f  disconnect: DQBUF fails (ENODEV); after every handle is closed the
#      node works again, likewise checked byte for byte
# Prints "ok"/"FAIL" per check and a closing "N passed, N failed" line; exits
# 0 only when all passed. Default out dir: .vm-cache/selftest (kept).
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

W=640 H=480
GREY_SIZE=$((W * H)) YUYV_SIZE=$((W * H * 2))

# ----------------------------------------------------------------- guest side
if [ "${1:-}" = --guest ]; then
    cd "$LUMASCAN_VM_OUT" || exit 125
    SETUP=$HERE/vivid-setup.sh FEED=$HERE/vivid-feed.sh
    CAP=/dev/video0
    now() { cut -d' ' -f1 /proc/uptime; }
    step() { echo "== $* ($(now) s)"; }
    # grab FILE COUNT: COUNT frames from the capture node into FILE.
    grab() { v4l2-ctl -d $CAP --stream-mmap --stream-count="$2" --stream-to="$1" >/dev/null; }

    step "a: devices"
    v4l2-ctl --list-devices >a-list-devices.txt 2>&1
    v4l2-ctl --all -d $CAP >a-all-video0.txt 2>&1

    step "b: GREY loop"
    "$SETUP" GREY && "$FEED" frames/grey.raw GREY && grab b-grey.raw 5
    "$FEED" stop

    step "c: YUYV loop"
    "$SETUP" YUYV && "$FEED" frames/yuyv.raw YUYV && grab c-yuyv.raw 5
    "$FEED" stop
    step "c: UYVY loop"
    "$SETUP" UYVY && "$FEED" frames/yuyv.raw UYVY && grab c-uyvy.raw 5
    "$FEED" stop

    step "d: dropped buffers"
    "$SETUP" GREY && "$FEED" frames/grey.raw GREY
    v4l2-ctl -d $CAP --stream-mmap --stream-count=60 --verbose >d-baseline.log 2>&1
    v4l2-ctl -d $CAP -c percentage_of_dropped_buffers=50
    v4l2-ctl -d $CAP --stream-mmap --stream-count=60 --verbose >d-drop50.log 2>&1
    v4l2-ctl -d $CAP -c percentage_of_dropped_buffers=0

    # until SECONDS CMD...: poll CMD every 0.1 s, at most SECONDS.
    until_ok() { local n=$(($1 * 10)); shift; while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done; return 1; }
    # v4l2-ctl's --verbose log is block-buffered: non-empty = streaming.
    streaming() { [ -s "$1" ]; }
    feeder_gone() { ! "$FEED" status >/dev/null 2>&1; }

    step "e: fatal streaming error"
    v4l2-ctl -d $CAP --stream-mmap --stream-count=600 --verbose >e-fatal.log 2>&1 &
    pid=$!
    until_ok 10 streaming e-fatal.log
    v4l2-ctl -d $CAP -c inject_fatal_streaming_error=1
    wait $pid
    echo $? >e-fatal.rc
    until_ok 3 feeder_gone
    "$FEED" status >e-feeder-after.txt 2>&1
    "$FEED" restart && grab e-recovered.raw 3

    step "f: disconnect"
    v4l2-ctl -d $CAP --stream-mmap --stream-count=600 --verbose >f-disconnect.log 2>&1 &
    pid=$!
    until_ok 10 streaming f-disconnect.log
    v4l2-ctl -d $CAP -c disconnect=1
    wait $pid
    echo $? >f-disconnect.rc
    until_ok 3 feeder_gone
    "$FEED" status >f-feeder-after.txt 2>&1
    "$FEED" stop
    # Every handle is closed now: the nodes are usable again.
    "$SETUP" GREY && "$FEED" frames/grey.raw GREY && grab f-recovered.raw 3
    "$FEED" stop
    step "done"
    exit 0
fi

# ------------------------------------------------------------------ host side
if [ "${LUMASCAN_SKIP_VM:-0}" = 1 ]; then
    echo "selftest: skipped (LUMASCAN_SKIP_VM=1)"
    exit 0
fi
OUT=$HERE/../../../.vm-cache/selftest
TIMEOUT=120
while [ $# -gt 0 ]; do
    case $1 in
        --out) OUT=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "selftest: unknown argument $1" >&2; exit 2 ;;
    esac
done
T0=$(date +%s.%N)
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd -P) || exit 2
# Emptied first: only when it is empty or an earlier selftest's.
if [ -n "$(ls -A "$OUT")" ] && [ ! -e "$OUT/.lumascan-selftest" ]; then
    echo "selftest: $OUT is not empty and not a selftest out dir; choose another --out" >&2
    exit 2
fi
find "$OUT" -mindepth 1 -delete
touch "$OUT/.lumascan-selftest"
mkdir -p "$OUT/frames"

# Known patterns: byte (x, y) of frame k = (x + 3y + 61k + (x*y >> 7)) mod 256
# (every byte value occurs; no two rows or frames alike), written by python3.
# Without python3: random bytes, kept in the same files for the comparison.
gen() {  # gen FILE ROW_BYTES ROWS FRAMES
    if command -v python3 >/dev/null; then
        python3 - "$@" <<'EOF'
import sys
path, w, h, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with open(path, "wb") as f:
    for k in range(n):
        f.write(bytes((x + 3 * y + 61 * k + ((x * y) >> 7)) & 255
                      for y in range(h) for x in range(w)))
EOF
    else
        head -c $(($2 * $3 * $4)) /dev/urandom >"$1"
    fi
}
gen "$OUT/frames/grey.raw" $W $H 4
gen "$OUT/frames/yuyv.raw" $((W * 2)) $H 2

echo "selftest: booting the VM (out: $OUT)"
T1=$(date +%s.%N)
"$HERE/run-in-vm.sh" --quiet --timeout "$TIMEOUT" --out "$OUT" -- "$HERE/selftest.sh" --guest
VMRC=$?
T2=$(date +%s.%N)

PASS=0 FAIL=0
ok() { echo "ok   - $*"; PASS=$((PASS + 1)); }
bad() { echo "FAIL - $*"; FAIL=$((FAIL + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

# frames_match CAPTURED FED SIZE MIN: CAPTURED holds >= MIN whole frames and
# each one equals some frame of FED, byte for byte.
frames_match() {
    local cap=$OUT/$1 fed=$OUT/frames/$2 size=$3 min=$4 d n i f hit seen=''
    [ -s "$cap" ] || { echo "  $1: missing or empty"; return 1; }
    n=$(($(stat -c %s "$cap") / size))
    [ $((n * size)) -eq "$(stat -c %s "$cap")" ] && [ "$n" -ge "$min" ] \
        || { echo "  $1: $(stat -c %s "$cap") bytes, wanted >= $min frames of $size"; return 1; }
    d=$(mktemp -d)
    split -b "$size" -d -a 3 "$cap" "$d/cap."
    split -b "$size" -d -a 3 "$fed" "$d/fed."
    for f in "$d"/cap.*; do
        hit=''
        for i in "$d"/fed.*; do cmp -s "$f" "$i" && { hit=${i##*.}; break; }; done
        if [ -z "$hit" ]; then
            echo "  $1: frame ${f##*.} matches no fed frame ($(cmp -l "$f" "$d/fed.000" | wc -l) bytes differ from fed frame 0)"
            rm -rf "$d"; return 1
        fi
        seen="$seen $((10#$hit))"
    done
    rm -rf "$d"
    echo "  $1: $n frames, each identical to fed frame:$seen"
}

# seqs LOG: the sequence numbers in a v4l2-ctl --verbose capture log.
seqs() { sed -n 's/^cap dqbuf: .* seq: *\([0-9]*\) .*/\1/p' "$OUT/$1"; }
gaps() { seqs "$1" | awk 'NR > 1 && $1 > p + 1 { g += $1 - p - 1 } { p = $1 } END { print g + 0 }'; }
fps() {
    sed -n 's/^cap dqbuf: .* ts: *\([0-9.]*\).*/\1/p' "$OUT/$1" \
        | awk 'NR == 1 { a = $1 } { b = $1; n++ } END { if (n > 1 && b > a) printf "%.1f", (n - 1) / (b - a); else print "?" }'
}

if [ "$VMRC" != 0 ]; then
    bad "VM run (run-in-vm.sh exit $VMRC; see $OUT/console.log, $OUT/stderr.txt)"
else
    ok "VM run"
fi

check "a: --list-devices shows vivid with /dev/video0 and /dev/video1" \
    grep -q 'vivid' "$OUT/a-list-devices.txt"
grep -q '/dev/video1' "$OUT/a-list-devices.txt" || bad "a: /dev/video1 missing from --list-devices"
check "a: --all -d /dev/video0 reports driver vivid" \
    grep -Eq 'Driver name *: vivid' "$OUT/a-all-video0.txt"

check "b: GREY frames loop back byte for byte" frames_match b-grey.raw grey.raw $GREY_SIZE 5
check "c: YUYV frames loop back byte for byte" frames_match c-yuyv.raw yuyv.raw $YUYV_SIZE 5
check "c: UYVY frames loop back byte for byte" frames_match c-uyvy.raw yuyv.raw $YUYV_SIZE 5

if [ -s "$OUT/d-baseline.log" ] && [ -s "$OUT/d-drop50.log" ]; then
    gb=$(gaps d-baseline.log) gd=$(gaps d-drop50.log)
    nb=$(seqs d-baseline.log | wc -l) nd=$(seqs d-drop50.log | wc -l)
    echo "  baseline: $nb frames, seq $(seqs d-baseline.log | head -n1)..$(seqs d-baseline.log | tail -n1), $gb missing, $(fps d-baseline.log) fps"
    echo "  50% drop: $nd frames, seq $(seqs d-drop50.log | head -n1)..$(seqs d-drop50.log | tail -n1), $gd missing, $(fps d-drop50.log) fps"
    echo "  first seqs with drops: $(seqs d-drop50.log | head -n 16 | tr '\n' ' ')"
    check "d: percentage_of_dropped_buffers=50 leaves sequence gaps (>= 20 missing of 60, more than baseline)" \
        test "$nd" -eq 60 -a "$gd" -ge 20 -a "$gd" -gt "$gb"
else
    bad "d: no capture logs"
fi

# v4l2-ctl exits 0 even when streaming fails, so the checks read its log.
frames_in() { grep -c '^cap dqbuf:' "$OUT/$1" 2>/dev/null; }
check "e: inject_fatal_streaming_error ends the capture with EIO" \
    grep -q 'VIDIOC_DQBUF: failed: Input/output error' "$OUT/e-fatal.log"
echo "  capture: $(frames_in e-fatal.log) frames, then: $(grep -m1 -i 'error' "$OUT/e-fatal.log"); v4l2-ctl exit $(cat "$OUT/e-fatal.rc" 2>/dev/null)"
check "e: the fatal error also ended the feeder" grep -q 'not running' "$OUT/e-feeder-after.txt"
check "e: after vivid-feed.sh restart the loop is exact again" frames_match e-recovered.raw grey.raw $GREY_SIZE 3

check "f: disconnect ends the capture with an error" \
    grep -Eq 'qbuf error|dqbuf error|No such device' "$OUT/f-disconnect.log"
echo "  capture: $(frames_in f-disconnect.log) frames, then: $(grep -m1 -i -E 'error|no such' "$OUT/f-disconnect.log"); v4l2-ctl exit $(cat "$OUT/f-disconnect.rc" 2>/dev/null)"
check "f: the disconnect also ended the feeder" grep -q 'not running' "$OUT/f-feeder-after.txt"
check "f: once all handles are closed the node loops exact frames again" frames_match f-recovered.raw grey.raw $GREY_SIZE 3

T3=$(date +%s.%N)
sec() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
echo "timings: VM run $(sec "$T1" "$T2") s (boot-to-poweroff $(sed -n 's/host_qemu_wall_s //p' "$OUT/timings.txt" 2>/dev/null) s), whole selftest $(sec "$T0" "$T3") s"
grep '^== ' "$OUT/stdout.txt" 2>/dev/null | sed 's/^/  guest /'
echo "selftest: $PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
