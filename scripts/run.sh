#!/usr/bin/env bash
# The README's run command: installs what is missing, builds lumascan, and scans the first camera; with no camera,
# it replays the bundled sample recording Samples/kiosk-demo.lsrec at its recorded pace, as a camera would deliver it
# (3.5 s; scripts/make-sample-recording.sh makes it from Samples/*.png). Extra arguments go to `lumascan scan`.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -d /opt/swift/usr/bin ]] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/deps.sh
swift build -c release --product lumascan
lumascan=$(swift build -c release --show-bin-path)/lumascan

camera=""
for node in /dev/video*; do
  [[ -e "$node" ]] || continue
  if v4l2-ctl -d "$node" --info 2>/dev/null | grep -q "Video Capture"; then camera=$node; break; fi
done

if [[ -n "$camera" ]]; then
  echo "run: scanning $camera (Ctrl-C stops)" >&2
  exec "$lumascan" scan --device "$camera" --results-only "$@"
else
  echo "run: no camera found; replaying the bundled sample recording Samples/kiosk-demo.lsrec" >&2
  exec "$lumascan" scan --input Samples/kiosk-demo.lsrec --realtime --results-only "$@"
fi
