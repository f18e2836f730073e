#!/usr/bin/env bash
# Reads roller counters built from real meter digits (the validation split of scripts/train-meter-digits.py, never
# trained on) through `lumascan scan` in counter_meter mode, as a camera would deliver them, and prints exact / digits
# right / misread / no result (scripts/eval-meter.py says how the counters are made).
#
#   bash scripts/eval-meter.sh [--meters N] [--seed N] [--keep DIR] [--verbose] [--cutout R:1@P] [--framing] \
#       [--blanks N]
#
# --cutout frames the counters in another cutout: the default 3:1@60 (3:1 at 60 % of the frame's width), issue 17's
# 4:1@70. --framing draws them as a user frames a display (40-85 % of the cutout's width, up to 25 degrees of yaw, 15
# of pitch, 10 of roll); --blanks N adds N scenes without a counter (30 by default), where any result is false.
#
# With --digital first, it reads seven-segment meters from a wide generator of its own instead (LCD and LED, and scenes
# with no meter in view; scripts/eval-meter-digital.py says how they are made), which needs no data set, only
# python3-opencv:
#
#   bash scripts/eval-meter.sh --digital [--meters N] [--blanks N] [--seed N] [--keep DIR] [--verbose] \
#       [--min-width F] [--max-roll DEG]   (the framing: 0.40 and 10 are issue 17's; the defaults 0.55 and 4)
#
# --keep DIR keeps the recordings, their configuration and truth.txt; scripts/replay-meter.py --lumascan NEW
# --against OLD DIR... reads them again with two builds and lists the meters whose verdict changed.
#
# Needs ../shared/datasets/meter-digits-train.tar beside the repository (or METER_DIGITS_TAR), python3-opencv,
# python3-sklearn, python3-torch and python3-pil (Debian); unit tests never need any of it. LUMASCAN names a built lumascan to use instead of
# building the debug one.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

if [[ ${1:-} == --digital ]]; then
    shift
    dpkg -s python3-opencv >/dev/null 2>&1 || { echo "eval-meter: apt-get install python3-opencv first" >&2; exit 2; }
    if [[ -z ${LUMASCAN:-} ]]; then
        swift build --product lumascan >&2
        LUMASCAN=$(swift build --show-bin-path)/lumascan
    fi
    exec /usr/bin/python3 scripts/eval-meter-digital.py --lumascan "$LUMASCAN" "$@"
fi

tarball=${METER_DIGITS_TAR:-../shared/datasets/meter-digits-train.tar}
if [[ ! -f $tarball ]]; then
    echo "eval-meter: $tarball not found (the data set lives in ../shared/datasets); nothing to evaluate" >&2
    exit 0
fi
scratch=${METER_DIGITS_SCRATCH:-/tmp/meter-digits-scratch}
if [[ ! -d $scratch/meter-digits ]]; then
    mkdir -p "$scratch"
    tar -C "$scratch" -xf "$tarball"
fi
# eval-meter.py builds the counters with the training script's own code (train-meter-digits.py), which imports torch
# and PIL at its top.
for package in python3-opencv python3-sklearn python3-torch python3-pil; do
    dpkg -s "$package" >/dev/null 2>&1 || { echo "eval-meter: apt-get install $package first" >&2; exit 2; }
done
if [[ -z ${LUMASCAN:-} ]]; then
    swift build --product lumascan >&2
    LUMASCAN=$(swift build --show-bin-path)/lumascan
fi
exec /usr/bin/python3 scripts/eval-meter.py --data "$scratch/meter-digits" --lumascan "$LUMASCAN" "$@"
