#!/usr/bin/env bash
# Prints and copies simulated secure QR codes, photographs both through a camera model, scores the captures with
# `lumascan secure-qr calibrate` and prints ROC AUC and the equal error rate, overall and per pixels-per-cell and blur
# bucket (scripts/eval-copy-detection.py says how prints, copies and captures are made).
#
#   bash scripts/eval-copy-detection.sh [--codes N] [--seed N] [--keep DIR]
#
# Not part of CI. Needs python3-opencv and python3-numpy (Debian: apt-get install them); unit tests never need them.
# LUMASCAN names a built lumascan to use instead of building the debug one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

source scripts/eval-lib.sh
eval_prepare eval-copy-detection python3-opencv python3-numpy
exec /usr/bin/python3 scripts/eval-copy-detection.py --lumascan "$LUMASCAN" "$@"
