#!/usr/bin/env bash
# Measures the kiosk service's two performance targets (issue #16) in one run, and prints the figures:
#
#   1. What a watched preview costs the recognizer: `lumascan bench` on 1280x720 synthetic frames (noisy, an EAN-13,
#      a QR code and no code in turn), the engine at full speed, with no preview viewer and with one (the viewer reads
#      the JPEGs as `lumascan serve`'s /preview.mjpg does), alternated ROUNDS times; pinned to one core (the preview
#      encoder then shares the recognizer's core, the worst case) and unpinned. Target: with one viewer, throughput
#      falls by at most 5 %; with none, no JPEG is encoded.
#   2. Capture-to-screen latency in a real browser at 720p30: `lumascan serve` replays a 1280x720 recording paced at
#      30 fps (four QR codes, half a second each, looped, so that a new result comes twice a second), the page runs in
#      headless Chromium with the live preview shown, and Tests/BrowserTests/page_test.py --latency relates each
#      report's capture time (the engine's CLOCK_MONOTONIC) to the wall-clock time of the animation frame that paints
#      it. Target: at most 150 ms.
#
#   bash scripts/measure-kiosk.sh                       # builds lumascan (release) first
#   LUMASCAN=.build/release/lumascan ROUNDS=5 LATENCY_SECONDS=30 bash scripts/measure-kiosk.sh
#
# Needs chromium, qrencode and taskset (util-linux); `bash scripts/deps.sh --test` installs them. Not part of
# scripts/test.sh: performance is measured here, never asserted in a test. Prints a JSON summary on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
if [[ -z "${LUMASCAN:-}" ]]; then
  swift build -c release --product lumascan >&2
  LUMASCAN=$(swift build -c release --show-bin-path)/lumascan
fi
ROUNDS=${ROUNDS:-5}
FRAMES=${FRAMES:-1200}
LATENCY_SECONDS=${LATENCY_SECONDS:-30}
for tool in chromium qrencode taskset python3; do
  command -v "$tool" >/dev/null || { echo "measure-kiosk: $tool is missing (bash scripts/deps.sh --test)" >&2; exit 2; }
done

# shellcheck source=scripts/serve-lib.sh
source scripts/serve-lib.sh
serve_work
work=$WORK

# --- 1. Throughput with and without a preview viewer. ---
bench() {  # pinning viewers round
  local pin=$1 viewers=$2 round=$3 prefix=()
  [[ $pin == pinned ]] && prefix=(taskset -c 1)
  "${prefix[@]}" "$LUMASCAN" bench --synthetic 1280x720 --frames "$FRAMES" --baseline-frames 0 \
    --preview-viewers "$viewers" --json --no-progress --log-level error >"$work/bench-$pin-$viewers-$round.json"
  echo "measure-kiosk: bench $pin, $viewers viewer(s), round $round: $(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("%.1f frames/s, %d JPEGs encoded" % (r["framesPerSecond"], r["previewFramesEncoded"]))' \
    "$work/bench-$pin-$viewers-$round.json")" >&2
}
for pin in pinned unpinned; do
  for round in $(seq 1 "$ROUNDS"); do
    # Alternate the order, so that a drift of the machine's speed does not favour one side.
    if ((round % 2)); then order=(0 1); else order=(1 0); fi
    for viewers in "${order[@]}"; do bench "$pin" "$viewers" "$round"; done
  done
done

# --- 2. Capture-to-screen latency at 720p30 in the browser. ---
mkdir -p "$work/frames"
python3 - "$work/frames" <<'EOF'
# Four 1280x720 grey frames, each a QR code (qrencode, 6 px modules) on a lit, slightly noisy background, as PNGs
# written with the standard library (zlib), each 15 times: half a second per code at 30 fps.
import random, struct, subprocess, sys, zlib

out = sys.argv[1]
width, height, scale = 1280, 720, 6
random.seed(16)

def png(path, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))

index = 0
for n in range(4):
    text = f"LUMASCAN-KIOSK-{n + 1}"
    art = subprocess.run(["qrencode", "-t", "ASCII", "-m", "2", text], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    modules = [[line[i] == "#" for i in range(0, len(line), 2)] for line in art if line]
    size = len(modules) * scale
    left, top = (width - size) // 2 + (n - 1.5) * 120, (height - size) // 2
    left = int(left)
    rows = []
    for y in range(height):
        shade = 150 + 60 * y // height  # a gradient, as from a lamp above
        row = [min(255, max(0, shade + random.randint(-6, 6))) for _ in range(width)]
        my = (y - top) // scale
        if 0 <= y - top < size:
            line = modules[my]
            for x in range(left, left + size):
                if line[(x - left) // scale]:
                    row[x] = 30 + random.randint(-6, 6)
                else:
                    row[x] = 225 + random.randint(-6, 6)
        rows.append(row)
    for _ in range(15):
        png(f"{out}/frame-{index:03d}.png", rows)
        index += 1
EOF
"$LUMASCAN" record --input "$work/frames" --fps 30 --out "$work/kiosk-720p.lsrec" --log-level error
serve_start measure-kiosk "$work" --input "$work/kiosk-720p.lsrec" --loop --log-level error
python3 Tests/BrowserTests/page_test.py --url "http://$ADDRESS/" --expect-text LUMASCAN-KIOSK-1 \
  --expect-text LUMASCAN-KIOSK-4 --latency "$LATENCY_SECONDS" --latency-json "$work/latency.json" >&2

# --- Summary. ---
python3 - "$work" "$ROUNDS" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
summary = {}
for pin in ("pinned", "unpinned"):
    runs = {v: [json.load(open(f"{work}/bench-{pin}-{v}-{r}.json")) for r in range(1, rounds + 1)] for v in (0, 1)}
    fps = {v: statistics.median(r["framesPerSecond"] for r in runs[v]) for v in (0, 1)}
    summary[pin] = {
        "framesPerSecondNoViewer": fps[0], "framesPerSecondOneViewer": fps[1],
        "change": fps[1] / fps[0] - 1,
        "jpegsEncodedNoViewer": max(r["previewFramesEncoded"] for r in runs[0]),
        "jpegsEncodedOneViewer": min(r["previewFramesEncoded"] for r in runs[1]),
        # CPU time of the whole process per frame (recognition, capture, delivery, and the preview's encoder).
        "cpuMsPerFrameNoViewer": statistics.median(
            1000 * (r["cpuUserSeconds"] + r["cpuSystemSeconds"]) / r["framesProcessed"] for r in runs[0]),
        "cpuMsPerFrameOneViewer": statistics.median(
            1000 * (r["cpuUserSeconds"] + r["cpuSystemSeconds"]) / r["framesProcessed"] for r in runs[1]),
        "spread": {v: [round(r["framesPerSecond"], 1) for r in runs[v]] for v in (0, 1)},
    }
    s = summary[pin]
    print(f"measure-kiosk: {pin}: {s['framesPerSecondNoViewer']:.1f} frames/s without a viewer, "
          f"{s['framesPerSecondOneViewer']:.1f} with one ({100 * s['change']:+.1f} %, median of {rounds}; rounds "
          f"{s['spread'][0]} and {s['spread'][1]}); CPU {s['cpuMsPerFrameNoViewer']:.2f} and "
          f"{s['cpuMsPerFrameOneViewer']:.2f} ms per frame; JPEGs encoded without a viewer: "
          f"{s['jpegsEncodedNoViewer']}", file=sys.stderr)
summary["latency"] = json.load(open(f"{work}/latency.json"))
print(json.dumps(summary))
EOF
