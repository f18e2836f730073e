#!/usr/bin/env bash
# Regenerates Samples/kiosk-demo.lsrec, the recording scripts/run.sh replays when there is no camera, from the
# committed sample images Samples/*.png (480x360 grey): each image as 2 GREY frames at 2 frames per second, so every
# code stays in view for one second (1D codes with weak check digits need two reads) and the replay lasts 3.5 s.
# The recording is deterministic: timestamps come from --fps and sequence numbers from the frame index, so running
# this again gives the same bytes (the lumascanTests "bundled sample recording" test checks that).
#
#   bash scripts/make-sample-recording.sh                     # builds lumascan (release) first
#   LUMASCAN=.build/debug/lumascan bash scripts/make-sample-recording.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
if [[ -z "${LUMASCAN:-}" ]]; then
  swift build -c release --product lumascan
  LUMASCAN=$(swift build -c release --show-bin-path)/lumascan
fi
"$LUMASCAN" record --input Samples --fps 2 --repeat 2 --out Samples/kiosk-demo.lsrec
