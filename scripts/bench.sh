#!/usr/bin/env bash
# LumaScan's benchmarks (the nested package in Benchmarks/, ordo-one/benchmark) and `lumascan bench`.
#
#   scripts/bench.sh [run] [ARGS]     every suite (FrameRing, Pixels, Barcode, SecureQR, Meter, Engine); ARGS go to
#                                     `swift package benchmark`, e.g. --target BarcodeBenchmarks --filter 1920x1080
#   scripts/bench.sh check            the regression guard: runs the guarded benchmarks and compares allocations per
#                                     frame (and instructions, where stable) with Benchmarks/Thresholds/; exits 1 on a
#                                     regression, 0 when equal or better (and says when better: update the thresholds)
#   scripts/bench.sh update           rewrites Benchmarks/Thresholds/ from a run on this machine (commit the result)
#   scripts/bench.sh cli [ARGS]       builds lumascan in release and runs `lumascan bench` at 640x480, 1280x720 and
#                                     1920x1080 (every symbology, then QR only); ARGS are added to each run
#
# Wall-clock figures are noisy on a shared machine: compare ratios measured in one run (the Barcode suite's
# "vs zbar" benchmarks alternate both readers frame by frame) and check `uptime` first. Allocation counts do not
# depend on load; instruction counts barely do.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/deps.sh

mode=${1:-run}
[[ $# -gt 0 ]] && shift

# What the guard runs: LumaScan's own code paths, not the raw-zbar comparisons or the paced latency runs (wall
# clock only), so it takes a few minutes rather than many.
guard_args=(--skip ".*-vs-zbar" --skip "latency-.*" --metric mallocCountTotal)

case "$mode" in
  run)
    cd Benchmarks
    exec swift package --disable-sandbox benchmark "$@"
    ;;
  check)
    cd Benchmarks
    status=0
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    swift package --disable-sandbox benchmark thresholds check --path "$PWD/Thresholds" --no-progress \
      "${guard_args[@]}" "$@" 2>&1 | tee "$log" || status=$?
    # The benchmark plugin's own exit codes (4: better than the thresholds) reach us through `swift package`, which
    # turns every failure into 1; the plugin names the outcome in its last error line, so that is what is read.
    if [[ $status -ne 0 ]] && grep -aq "error: benchmarkThresholdImprovement" "$log"; then status=4; fi
    case $status in
      0) echo "bench: allocations are within Benchmarks/Thresholds/" ;;
      4) echo "bench: better than Benchmarks/Thresholds/: run scripts/bench.sh update and commit the thresholds"
         status=0 ;;
      *) echo "bench: a regression against Benchmarks/Thresholds/ (or the check failed), status $status" >&2
         status=1 ;;
    esac
    exit $status
    ;;
  update)
    cd Benchmarks
    exec swift package --disable-sandbox --allow-writing-to-package-directory benchmark thresholds update \
      --path "$PWD/Thresholds" --no-progress "${guard_args[@]}" "$@"
    ;;
  cli)
    swift build -c release --product lumascan
    lumascan=$(swift build -c release --show-bin-path)/lumascan
    uptime
    for size in 640x480 1280x720 1920x1080; do
      "$lumascan" bench --synthetic "$size" --frames 300 "$@"
      "$lumascan" bench --synthetic "$size" --frames 300 --symbologies qr "$@"
    done
    ;;
  *)
    echo "usage: scripts/bench.sh [run|check|update|cli] [ARGS]" >&2
    exit 2
    ;;
esac
