#!/usr/bin/env bash
# The learned seven-segment classifier against the segment-probe reader, on the same cells (issue 17, item 3).
#
#   bash scripts/seven-segment/compare.sh [--seeds "7 11 23 53"] [--work DIR] [--load MODEL.pt]
#
# For each seed: scripts/eval-meter.sh --digital draws its 240 meters (the wide generator, kept with --keep), the cell
# harness (cells.cpp, the library's meter sources built with LV_METER_CELL_HOOK) reads every frame and dumps the cells
# of each reading with the segment probes' digit, and train.py trains the CNN on its own rendered cells (or loads
# --load) and compares the two, cell by cell, on the readings whose cells align with the truth's digits. Writes
# DIR/run/comparison.json; about 15 minutes on 2 cores with --load (per seed, its meters about 2, their cells 1), the
# training 6 more.
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

arguments=()
for seed in $seeds; do
    dir=$work/seed$seed
    if [[ ! -f $dir.log ]]; then
        bash scripts/eval-meter.sh --digital --seed "$seed" --keep "$dir" --verbose > "$dir.log.partial"
        mv "$dir.log.partial" "$dir.log"
    fi
    mkdir -p "$dir-cells" "$dir-frames"
    # Each recording's frames as the recognizer crops them (eval-meter-digital.py's CUTOUT with its crop padding),
    # one folder per meter; then one manifest per meter, the meters read on every core, joined in their order.
    /usr/bin/python3 - "$dir" "$dir-frames" <<'PYTHON'
import glob, importlib.util, os, sys
import cv2, numpy as np
sys.path.insert(0, "scripts")
import lsrec
spec = importlib.util.spec_from_file_location("digital", "scripts/eval-meter-digital.py")
digital = importlib.util.module_from_spec(spec)
spec.loader.exec_module(digital)
pad = digital.config_document()["viewPluginConfig"]["cutoutConfig"]["cropPadding"]["x"]
x, y, w, h = digital.CUTOUT
for recording in sorted(glob.glob(os.path.join(sys.argv[1], "meter-*.lsrec"))):
    folder = os.path.join(sys.argv[2], os.path.basename(recording)[:-len(".lsrec")])
    os.makedirs(folder, exist_ok=True)
    for i, jpeg in enumerate(lsrec.read_frames(recording)):
        frame = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
        cv2.imwrite(os.path.join(folder, f"{i:03d}.png"), frame[y - pad:y + h + pad, x - pad:x + w + pad])
PYTHON
    printf '%s\n' "$dir-frames"/meter-* | xargs -P "$(nproc)" -I{} sh -c \
        'name=$(basename "$1"); "$2" "$3" "$name" "$1"/*.png > "$3/$name.txt"' _ {} "$work/cells" "$dir-cells"
    cat "$dir-cells"/meter-*.txt > "$dir-cells.txt"
    arguments+=(--cells "$dir-cells.txt" --truth "$dir.log")
done
/usr/bin/python3 scripts/seven-segment/train.py --out "$work/run" "${load[@]}" "${arguments[@]}"
