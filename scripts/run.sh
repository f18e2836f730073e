#!/usr/bin/env bash
# The README's run command: installs what is missing, builds lumascan, and scans the first camera; with no camera,
# it replays the bundled sample recording Samples/kiosk-demo.lsrec at its recorded pace, as a camera would deliver it
# (3.5 s; scripts/make-sample-recording.sh makes it from Samples/*.png). Extra arguments go to `lumascan scan`.
#
#   bash scripts/run.sh serve [ARGS...]   the kiosk service instead: `lumascan serve` on the camera, or on the sample
#                                         recording replayed over and over, with its page at http://127.0.0.1:8080/
#                                         (Ctrl-C stops; extra arguments go to `lumascan serve`, e.g. --listen).
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

if [[ "${1:-}" == serve ]]; then
  shift
  if [[ -n "$camera" ]]; then
    echo "run: serving $camera; the page is at http://127.0.0.1:8080/ unless --listen says otherwise (Ctrl-C stops)" >&2
    exec "$lumascan" serve --device "$camera" "$@"
  fi
  echo "run: no camera found; serving the bundled sample recording Samples/kiosk-demo.lsrec over and over;" \
    "the page is at http://127.0.0.1:8080/ unless --listen says otherwise (Ctrl-C stops)" >&2
  exec "$lumascan" serve --input Samples/kiosk-demo.lsrec --loop "$@"
fi

if [[ -n "$camera" ]]; then
  echo "run: scanning $camera (Ctrl-C stops)" >&2
  exec "$lumascan" scan --device "$camera" --results-only "$@"
else
  echo "run: no camera found; replaying the bundled sample recording Samples/kiosk-demo.lsrec" >&2
  exec "$lumascan" scan --input Samples/kiosk-demo.lsrec --realtime --results-only "$@"
fi
