#!/usr/bin/env bash
# The learned seven-segment classifier against the segment-probe reader, on the same cells (issue 17, item 3).
#
#   bash scripts/seven-segment/compare.sh [--seeds "7 11 23 53"] [--work DIR] [--load MODEL.pt]
#
# For each seed: scripts/eval-meter.sh --digital draws its 240 meters (the wide generator, kept with --keep), the cell
# harness (cells.cpp, the library's meter sources built with LV_METER_CELL_HOOK) reads every frame and dumps the cells
# of each reading with the segment probes' digit, and train.py trains the CNN on its own rendered cells (or loads
# --load) and compares the two, cell by cell, on the readings whose cells align with the truth's digits. Writes
# DIR/run/comparison.json; about 25 minutes on 2 cores (5 per seed's meters, 6 for the training).
# Needs python3-opencv and python3-torch (Debian), and a built lumascan (LUMASCAN, else the debug build).
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds="7 11 23 53"
work=/tmp/seven-segment-compare
load=()
while (($#)); do
    case $1 in
        --seeds) seeds=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --load) load=(--load "$2"); shift 2 ;;
        *) echo "compare: unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$work/obj"
vision=CSupport/CLumaVision
includes=(-I$vision/include -I$vision $(pkg-config --cflags-only-I opencv4 zbar libpng libturbojpeg libwebp libtiff-4))
sources=(meter meter_image meter_digital meter_drums meter_counter meter_templates meter_digits codecs codecs_libs image
    common assertion_guard)
objects=()
for source in "${sources[@]}"; do
    c++ -std=c++17 -O2 -DLV_METER_CELL_HOOK=lv_meter_cell_hook "${includes[@]}" -c $vision/$source.cpp \
        -o "$work/obj/$source.o"
    objects+=("$work/obj/$source.o")
done
cc -O2 -I$vision/include -c $vision/meter_digits_model.c -o "$work/obj/meter_digits_model.o"
c++ -std=c++17 -O2 "${includes[@]}" scripts/seven-segment/cells.cpp "${objects[@]}" "$work/obj/meter_digits_model.o" \
    -o "$work/cells" -lopencv_core -lopencv_imgproc -lopencv_imgcodecs -lopencv_dnn -lzbar -lZXing -lpng16 \
    -lturbojpeg -lwebp -ltiff -lgif

# The cutout of eval-meter-digital.py's configuration (CUTOUT) with its crop padding: the crop the recognizer reads.
read -r cx cy cw ch pad < <(/usr/bin/python3 -c "
import importlib.util
spec = importlib.util.spec_from_file_location('digital', 'scripts/eval-meter-digital.py')
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
padding = module.config_document()['viewPluginConfig']['cutoutConfig']['cropPadding']['x']
print(*module.CUTOUT, padding)")
crop=($((cx - pad)) $((cy - pad)) $((cw + 2 * pad)) $((ch + 2 * pad)))
arguments=()
for seed in $seeds; do
    dir=$work/seed$seed
    if [[ ! -f $dir.log ]]; then
        bash scripts/eval-meter.sh --digital --seed "$seed" --keep "$dir" --verbose > "$dir.log.partial"
        mv "$dir.log.partial" "$dir.log"
    fi
    mkdir -p "$dir-cells"
    # One manifest per recording, the recordings read on every core, then joined in the recordings' order.
    printf '%s\n' "$dir"/meter-*.lsrec | xargs -P "$(nproc)" -I{} sh -c \
        'name=$(basename "$1" .lsrec); "$2" "$1" "$3" "$name" $4 > "$3/$name.txt"' _ {} "$work/cells" "$dir-cells" \
        "${crop[*]}"
    cat "$dir-cells"/meter-*.txt > "$dir-cells.txt"
    arguments+=(--cells "$dir-cells.txt" --truth "$dir.log")
done
/usr/bin/python3 scripts/seven-segment/train.py --out "$work/run" "${load[@]}" "${arguments[@]}"
