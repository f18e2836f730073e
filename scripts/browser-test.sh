#!/usr/bin/env bash
# Browser test of the preview page that `lumascan serve` serves: starts the server on the bundled sample recording on a
# free port and runs Tests/BrowserTests/page_test.py against it in a real headless Chromium. The page must show the
# recording's four codes in its results, draw the last result's polygon on the code, and pause and resume scanning
# from its buttons. It checks the page as a user's browser runs it, which the Swift tests of the server cannot.
#
#   bash scripts/browser-test.sh                                  # the debug build, .build/debug/lumascan
#   LUMASCAN=.build/release/lumascan bash scripts/browser-test.sh --screenshot /tmp/page.png
#
# Arguments go to page_test.py; SERVE_ARGS adds arguments to `lumascan serve` (word-split). Needs chromium and
# python3 (`bash scripts/deps.sh --test` installs chromium). Exits with the test's status (0 passed, 1 a check
# failed, 2 it could not run).
set -euo pipefail
cd "$(dirname "$0")/.."

LUMASCAN=${LUMASCAN:-.build/debug/lumascan}
if [[ ! -x "$LUMASCAN" ]]; then
  echo "browser-test: $LUMASCAN is not an executable lumascan: build it (swift build) or set LUMASCAN" >&2
  exit 2
fi
# The decoded texts of Samples/*.png, from which scripts/make-sample-recording.sh makes the recording (the
# lumascanTests "bundled samples" test checks them): EAN-13, UPC-A, Code 128 and QR code.
expected=(4006381333931 036000291452 TICKET-000042 https://lumascan.example/hello)
# Each code is placed at the centre of its 480x360 image (SamplesTests.makeSamples), so every result's polygon must be
# centred there.
centre=0.5,0.5

# shellcheck source=scripts/serve-lib.sh
source scripts/serve-lib.sh
serve_work
work=$WORK

# shellcheck disable=SC2086  # SERVE_ARGS is a list of words
serve_start browser-test "$work" --input Samples/kiosk-demo.lsrec --loop ${SERVE_ARGS:-}
address=$ADDRESS
echo "browser-test: lumascan serve is listening on $address" >&2

arguments=(--url "http://$address/" --expect-result-centre "$centre")
for text in "${expected[@]}"; do arguments+=(--expect-text "$text"); done
status=0
python3 Tests/BrowserTests/page_test.py "${arguments[@]}" "$@" || status=$?
if ((status != 0)); then
  echo "browser-test: failed; the server's stderr (last lines):" >&2
  tail -n 20 "$work/stderr" >&2
fi
exit "$status"
