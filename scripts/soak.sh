#!/usr/bin/env bash
# Soak: runs the engine on a synthetic 1080p source paced at 30 frames per second, once per recognizer, and prints
# the process's resident memory every minute. After a warm-up minute, memory must stay flat: the script fails when
# it grows by more than LIMIT_KB (default 1024) from the end of the warm-up to the end of the run. Not part of CI
# (30 minutes per recognizer by default).
#
#   bash scripts/soak.sh [--minutes N] [--recognizers barcode,secure-qr,meter] [--limit-kb N]
#
# Uses `lumascan bench --synthetic 1920x1080 --fps 30` (the bench's paced live source: frames the engine cannot keep
# up with are dropped as a camera's would be). The bench keeps its own per-frame samples for the percentiles it
# prints (two 8-byte times per processed frame and one per report), but writes their reserved room once at the start,
# so they are resident before the first minute and add nothing to the growth measured. LUMASCAN names a built
# lumascan to use instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"

minutes=30
recognizers=barcode,secure-qr,meter
limit_kb=1024
while [[ $# -gt 0 ]]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --recognizers) recognizers=$2; shift 2 ;;
    --limit-kb) limit_kb=$2; shift 2 ;;
    *) echo "soak: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -z "${LUMASCAN:-}" ]]; then
  swift build -c release --product lumascan >&2
  LUMASCAN=$(swift build -c release --show-bin-path)/lumascan
fi

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

failed=0
IFS=, read -r -a kinds <<<"$recognizers"
for kind in "${kinds[@]}"; do
  frames=$(((minutes * 60 + 30) * 30))  # half a minute beyond the last sample, so that the process is still there
  "$LUMASCAN" bench --recognizer "$kind" --synthetic 1920x1080 --background noisy --fps 30 --frames "$frames" \
    --baseline-frames 0 --no-progress >"/tmp/soak-$kind.out" 2>&1 &
  pid=$!
  echo "soak $kind: $minutes minutes at 1080p30, pid $pid"
  warm=0
  last=0
  for ((minute = 1; minute <= minutes; minute++)); do
    for ((second = 0; second < 60; second++)); do
      kill -0 "$pid" 2>/dev/null || break 2
      sleep 1
    done
    rss=$(rss_kb "$pid")
    ((rss > 0)) || break
    last=$rss
    [[ $minute == 1 ]] && warm=$last
    echo "  minute $minute: RSS $((last / 1024)) MiB ($last kB)"
  done
  if ! wait "$pid"; then
    echo "soak $kind: lumascan bench failed:" >&2
    cat "/tmp/soak-$kind.out" >&2
    failed=1
    continue
  fi
  growth=$((last - warm))
  echo "soak $kind: after the warm-up minute $warm kB, at the end $last kB, growth $growth kB (limit $limit_kb kB)"
  if ((minutes > 1 && growth > limit_kb)); then
    echo "soak $kind: memory grew by more than $limit_kb kB" >&2
    failed=1
  fi
  tail -n 4 "/tmp/soak-$kind.out"
done
exit $failed
