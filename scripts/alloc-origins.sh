#!/usr/bin/env bash
# Where a recognizer's allocations per frame come from: LumaScan's own code, or the libraries it calls.
#
#   scripts/alloc-origins.sh IMAGE CONFIG [FRAMES]
#
# Builds lumascan (release) and the preload library scripts/alloc-origins/alloc_origins.c, records IMAGE as two GREY
# recordings of FRAMES (default 60) and 3 x FRAMES frames, runs `lumascan bench --input <recording> --config CONFIG
# --baseline-frames 0` on each with every allocation counted by its origin, and prints the difference divided by
# 2 x FRAMES: the allocations of one steady-state frame (setup, warm-up and the summary cancel out), by origin, then
# the call sites of those in LumaScan's own code (resolved with addr2line, binutils). The benchmarks' malloc counters
# (scripts/bench.sh check) count every allocation; this says whose they are. Not in CI: a measurement.
#
# Example (the askew bench meter; write its frame with the SyntheticScene of your choice):
#   scripts/alloc-origins.sh askew.png meter.json
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
if [[ $# -lt 2 ]]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
image=$1 config=$2 frames=${3:-60}
scripts/deps.sh
swift build -c release --product lumascan >&2
lumascan=$(swift build -c release --show-bin-path)/lumascan
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc=$(command -v clang || command -v cc)
"$cc" -O2 -shared -fPIC -o "$work/alloc_origins.so" scripts/alloc-origins/alloc_origins.c -ldl -lpthread

for n in "$frames" $((3 * frames)); do
  "$lumascan" record --input "$image" --out "$work/$n.lsrec" --repeat "$n" 2>/dev/null
  ALLOC_ORIGINS_EXE=lumascan ALLOC_ORIGINS_OUT="$work/$n.txt" LD_PRELOAD="$work/alloc_origins.so" \
    "$lumascan" bench --input "$work/$n.lsrec" --config "$config" --frames "$n" --baseline-frames 0 --no-progress \
    >"$work/$n.out" 2>&1 || { cat "$work/$n.out" >&2; exit 1; }
done

python3 - "$work/$frames.txt" "$work/$((3 * frames)).txt" $((2 * frames)) "$lumascan" <<'PY'
import shutil, subprocess, sys

def load(path):
    origins, sites = {}, {}
    for line in open(path):
        kind, count, rest = line.rstrip("\n").split(" ", 2)
        (origins if kind == "origin" else sites)[rest] = int(count)
    return origins, sites

(o1, s1), (o2, s2), frames, exe = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
per_frame = lambda a, b: {k: (b.get(k, 0) - a.get(k, 0)) / frames for k in set(a) | set(b)}
origins, sites = per_frame(o1, o2), per_frame(s1, s2)
print(f"allocations per frame (steady state, the difference of two runs over {frames} frames), by origin:")
for name, value in sorted(origins.items(), key=lambda kv: -kv[1]):
    if abs(value) >= 0.05:
        label = "LumaScan's own code (the executable)" if name.endswith("/lumascan") else name
        print(f"  {value:8.1f}  {label}")
# (Setup differs a little between the two runs, through sites that move by a fraction of a count; what repeats
# every frame, or every few frames, stays.)
own = [(v, k) for k, v in sites.items() if v >= 0.25]
if own:
    print("LumaScan's own allocations per frame, by call site (the innermost return addresses first):")
    addr2line, swift = shutil.which("addr2line"), shutil.which("swift")
    for value, key in sorted(own, reverse=True):
        names = []
        for offset in key.split():
            if offset == "0":
                break
            if not addr2line:
                names.append("0x" + offset)
                continue
            out = subprocess.run([addr2line, "-f", "-C", "-e", exe, "0x" + offset], capture_output=True, text=True)
            name = out.stdout.split("\n")[0]
            if swift and name.startswith("$s"):
                demangled = subprocess.run([swift, "demangle", "--simplified", "--compact", name],
                                           capture_output=True, text=True).stdout.strip()
                name = demangled or name
            names.append(name[:60])
        print(f"  {value:8.1f}  " + " <- ".join(names))
PY
