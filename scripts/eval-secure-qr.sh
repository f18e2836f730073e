#!/usr/bin/env bash
# Replays independently simulated camera captures of secure and plain QR codes through `lumascan scan` and prints,
# per expected scan state, how many scenes and frames came out right (scripts/eval-secure-qr.py says how the scenes
# are made and scored).
#
#   bash scripts/eval-secure-qr.sh [--scenes N] [--states OK,TOO_SMALL,...] [--seed N] [--keep DIR] [--verbose]
#
# Not part of CI. Needs python3-opencv, python3-numpy, qrencode, zbar-tools and zxing-cpp-tools (Debian: apt-get
# install them); unit tests never need any of it. LUMASCAN names a built lumascan to use instead of building the
# debug one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

source scripts/eval-lib.sh
eval_prepare eval-secure-qr python3-opencv python3-numpy qrencode zbar-tools zxing-cpp-tools
exec /usr/bin/python3 scripts/eval-secure-qr.py --lumascan "$LUMASCAN" "$@"
