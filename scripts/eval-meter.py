#!/usr/bin/python3
"""Reads roller counters built from real meter digits through `lumascan scan`, as a camera would deliver them.

Called by scripts/eval-meter.sh (which extracts the data set and builds lumascan). Each meter is a counter of 5-7
drums, each drum one photograph from the validation split of scripts/train-meter-digits.py (never trained on), in a
counter window on a meter plate in a 1280x720 frame, either polarity, slightly rotated and blurred. Six frames per
meter (sensor noise and a pixel of jitter differ from frame to frame) go into one recording as MJPEG (JPEG quality
65-90), which `lumascan scan --config <counter_meter config> --input <recording>` replays as a camera. A meter is
exact when its first COMPLETED_RESULT equals the truth, misread when it differs, no-result without one. After the
meters, --blanks scenes with no meter in view (blank drums in the window, the bare plate, the background alone), where
any COMPLETED_RESULT is a false result.

The truth follows the carry of a rolling counter: whole drums show their digit (a tenth either side, as photographed),
the last drum shows digit + 0.0-0.6, and while the last drum rolls from 9, each drum whose right neighbours all show 9
rolls with it. A person writes each drum's lower digit.
"""

import argparse
import importlib.util
import json
import os
import random
import sys
import tempfile

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsrec  # noqa: E402 (scripts/lsrec.py, beside this script)

HERE = os.path.dirname(os.path.abspath(__file__))
FRAME_W, FRAME_H = 1280, 720
FRAMES_PER_METER = 6
# The scenes without a meter in view (render_meter), a third of --blanks each.
BLANK_KINDS = ("blank drums", "bare plate", "background")
# The cutout of the configuration below in a 1280x720 frame: 3:1, 60 % of the width, centred; --cutout 4:1@70 gives
# issue 17's (4:1 at 70 %, as eval-meter-digital.py frames its displays). main() sets it from the option.
CUTOUT = (256, 232, 768, 256)
CUTOUT_RATIO, CUTOUT_PERCENT = 3, 60
# --framing: (narrowest window as a fraction of the cutout's width, yaw, pitch, roll in degrees either way), or None
# for the counter as eval-meter.py always drew it (45-75 % of the cutout's width, rolled up to 2 degrees, facing the
# camera).
FRAMING = None


def set_cutout(spec):
    """Sets CUTOUT from "R:1@P" (a ratio R:1 at P % of the frame's width, centred), as Anyline's cutout lays it out."""
    global CUTOUT, CUTOUT_RATIO, CUTOUT_PERCENT
    ratio, percent = spec.split("@")
    CUTOUT_RATIO, CUTOUT_PERCENT = int(ratio.split(":")[0]), int(percent)
    width = round(FRAME_W * CUTOUT_PERCENT / 100)
    height = round(width / CUTOUT_RATIO)
    CUTOUT = ((FRAME_W - width) // 2, (FRAME_H - height) // 2, width, height)


def load_training_module():
    spec = importlib.util.spec_from_file_location("train_meter_digits", os.path.join(HERE, "train-meter-digits.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def config_document():
    return {
        "cameraConfig": {"captureResolution": "720p"},
        "viewPluginConfig": {
            "pluginConfig": {"id": "meter", "cancelOnResult": True, "scanTimeout": 0,
                             "meterConfig": {"scanMode": "counter_meter"}},
            "cutoutConfig": {"ratioFromSize": {"width": CUTOUT_RATIO, "height": 1},
                             "maxWidthPercent": f"{CUTOUT_PERCENT}%",
                             "alignment": "center", "cropPadding": {"x": 24, "y": 24}},
        },
    }


def pick_drums(rng, by_class):
    """Digits, truth and the class (digit * 10 + tenth) each drum shows."""
    count = rng.randint(5, 7)
    digits = [rng.randrange(10) for _ in range(count)]
    if rng.random() < 0.3:  # a carry in progress: the last few drums at 9
        for i in range(count - rng.randint(1, 3), count):
            digits[i] = 9
    last_tenth = 0 if rng.random() < 0.4 else rng.randint(1, 6)
    classes = []
    for i, d in enumerate(digits):
        if i == count - 1:
            tenth = last_tenth
        elif all(x == 9 for x in digits[i + 1:]) and last_tenth > 0:
            tenth = last_tenth
        else:
            tenth = rng.choice([-1, 0, 0, 0, 0, 0, 1])  # a whole drum, photographed a tenth either side
        classes.append((d * 10 + tenth) % 100)
    truth = "".join(str(d) for d in digits)
    images = [rng.choice(by_class[c]) for c in classes]
    return truth, classes, images


def render_meter(rng, images, kind="meter"):
    """One meter in a frame (float32), before noise and JPEG, plus the parameters the frames share. With `kind` one of
    BLANK_KINDS there is no meter in view: "blank drums" is the counter window with `images` drums showing no digit
    (blank faces, shaded as a drum's cylinder), "bare plate" the plate without its window, "background" the frame's
    ground and clutter alone."""
    frame = np.full((FRAME_H, FRAME_W), rng.uniform(60, 190), np.float32)
    ys, xs = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
    frame += rng.uniform(-30, 30) * (xs / FRAME_W - 0.5) + rng.uniform(-30, 30) * (ys / FRAME_H - 0.5)
    for _ in range(rng.randint(2, 6)):  # clutter away from the counter
        x, y = rng.randrange(FRAME_W), rng.randrange(FRAME_H)
        if CUTOUT[0] - 40 < x < CUTOUT[0] + CUTOUT[2] + 40 and CUTOUT[1] - 40 < y < CUTOUT[1] + CUTOUT[3] + 40:
            continue
        cv2.rectangle(frame, (x, y), (x + rng.randint(20, 200), y + rng.randint(20, 120)), rng.uniform(0, 255), -1)
    count = len(images)
    cx, cy, cw, ch = CUTOUT
    fill = rng.uniform(0.45, 0.75)
    gap_fraction = rng.uniform(0.05, 0.2)
    cell_w = cw * fill / (count + (count - 1) * gap_fraction)
    cell_w = min(cell_w, 0.55 * ch * 20 / 32)
    cell_h = cell_w * 32 / 20
    gap = cell_w * gap_fraction
    invert = rng.random() < 0.5  # dark digits on light drums (most photographs are light on dark)
    window_level = rng.uniform(0, 40)
    plate_level = rng.uniform(80, 220)
    row_w = count * cell_w + (count - 1) * gap
    centre_x = cx + cw / 2 + rng.uniform(-0.08, 0.08) * cw
    centre_y = cy + ch / 2 + rng.uniform(-0.1, 0.1) * ch
    # The plate, then the window (its frame a few pixels around the drums), then the drums.
    pad = rng.uniform(0.3, 0.8) * cell_h
    if kind != "background":
        cv2.rectangle(frame, (int(centre_x - row_w / 2 - 2 * pad), int(centre_y - cell_h / 2 - 1.5 * pad)),
                      (int(centre_x + row_w / 2 + 2 * pad), int(centre_y + cell_h / 2 + 1.5 * pad)), plate_level, -1)
    border = rng.uniform(0.05, 0.2) * cell_h
    if kind in ("meter", "blank drums"):
        cv2.rectangle(frame, (int(centre_x - row_w / 2 - border), int(centre_y - cell_h / 2 - border)),
                      (int(centre_x + row_w / 2 + border), int(centre_y + cell_h / 2 + border)), window_level, -1)
    for i, image in enumerate(images if kind in ("meter", "blank drums") else []):
        if kind == "blank drums":
            face = rng.uniform(0, 0.35)
            shade = np.cos(np.linspace(-1.2, 1.2, 32, dtype=np.float32))[:, None] * np.ones((1, 20), np.float32)
            grey = 20 + 200 * (face * shade + rng.uniform(0, 0.05))
        else:
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
            grey = (grey - grey.min()) / max(1.0, float(grey.max() - grey.min()))
            grey = 20 + 200 * grey
        left = centre_x - row_w / 2 + i * (cell_w + gap)
        top = centre_y - cell_h / 2
        w, h = int(round(cell_w)), int(round(cell_h))
        cell = cv2.resize(grey, (w, h), interpolation=cv2.INTER_CUBIC)
        x0, y0 = int(round(left)), int(round(top))
        frame[y0:y0 + h, x0:x0 + w] = cell
    if invert:
        x0 = int(centre_x - row_w / 2 - border)
        y0 = int(centre_y - cell_h / 2 - border)
        x1 = int(centre_x + row_w / 2 + border)
        y1 = int(centre_y + cell_h / 2 + border)
        frame[y0:y1, x0:x1] = 255 - frame[y0:y1, x0:x1]
    if FRAMING is None:
        angle = rng.uniform(-2, 2)
        m = cv2.getRotationMatrix2D((centre_x, centre_y), angle, 1.0)
        frame = cv2.warpAffine(frame, m, (FRAME_W, FRAME_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    else:
        # Framed as a user frames a display (--framing): the window min_width-85 % of the cutout's width (no taller
        # than 85 % of its height), seen from the side and rolled.
        min_width, max_yaw, max_pitch, max_roll = FRAMING
        x0, x1 = centre_x - row_w / 2 - border, centre_x + row_w / 2 + border
        y0, y1 = centre_y - cell_h / 2 - border, centre_y + cell_h / 2 + border
        corners = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        target_w = min(rng.uniform(min_width, 0.85) * cw, 0.85 * ch * (x1 - x0) / (y1 - y0))
        frame = lsrec.perspective(rng, frame, corners, target_w, max_yaw, max_pitch, max_roll)
    frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.4, 1.2))
    return frame, {"noise": rng.uniform(2, 6), "quality": rng.randint(65, 90), "invert": invert}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True, help="the extracted meter-digits folder")
    parser.add_argument("--lumascan", required=True)
    parser.add_argument("--meters", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", help="keep the recordings and the configuration in this folder")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--framing", action="store_true",
                        help="frame the counters as issue 17 frames a display: 40-85 %% of the cutout's width, up to "
                             "25 degrees of yaw, 15 of pitch and 10 of roll")
    parser.add_argument("--blanks", type=int, default=30, help="scenes with no meter in view, after the meters")
    parser.add_argument("--cutout", default="3:1@60", help="the cutout, R:1@P (issue 17 frames its counters 4:1@70)")
    args = parser.parse_args()
    set_cutout(args.cutout)
    global FRAMING
    FRAMING = (0.40, 25, 15, 10) if args.framing else None

    train = load_training_module()
    _, validation = train.split_dataset(args.data)
    by_class = {c: [] for c in range(100)}
    for path, c in validation:
        by_class[c].append(cv2.imread(path, cv2.IMREAD_COLOR))
    rng = random.Random(args.seed)
    work = args.keep or tempfile.mkdtemp(prefix="eval-meter-")
    os.makedirs(work, exist_ok=True)
    config = os.path.join(work, "counter-meter.json")
    with open(config, "w") as f:
        json.dump(config_document(), f, indent=1)

    def replay(rng, frame, params, recording):
        """The scene's camera frames as a recording, replayed through lumascan scan (kept only with --keep): the
        first COMPLETED_RESULT's text (None without one) and the last partial reading."""
        jpegs = lsrec.camera_frames(rng, frame, params["noise"], params["quality"], FRAMES_PER_METER)
        lsrec.write_recording(recording, jpegs, FRAME_W, FRAME_H)
        readings = lsrec.scan_readings(args.lumascan, config, recording)
        if not args.keep:
            os.remove(recording)
        return readings

    exact = misread = none = 0
    digits = right = 0
    kept = []  # (recording, truth, style) for truth.txt
    for index in range(args.meters):
        truth, classes, images = pick_drums(rng, by_class)
        frame, params = render_meter(rng, images)
        completed, partial = replay(rng, frame, params, os.path.join(work, f"meter-{index:03d}.lsrec"))
        kept.append((f"meter-{index:03d}.lsrec", truth, "dark-on-light" if params["invert"] else "light-on-dark"))
        read = completed if completed is not None else partial
        digits += len(truth)
        right += lsrec.digits_right(truth, read)
        verdict = lsrec.verdict(truth, completed)
        none += verdict == "no result"
        exact += verdict == "exact"
        misread += verdict == "misread"
        if verdict == "misread":
            verdict = "MISREAD"
        if args.verbose or verdict == "MISREAD":
            shown = " ".join(f"{c // 10}.{c % 10}" for c in classes)
            print(f"meter {index:3d}: truth {truth} read {read or '-'} ({verdict}; drums {shown}; "
                  f"{'dark on light' if params['invert'] else 'light on dark'})")
    n = args.meters
    if n > 0:
        print(f"{n} counters, {digits} digits: exact {exact} ({100 * exact / n:.1f} %), digits right {right} "
              f"({100 * right / digits:.1f} %), misread {misread}, no result {none}")
    # No meter in view, after the meters (so that a seed's meters stay the ones it always drew): any
    # COMPLETED_RESULT is a false result.
    false_results = 0
    for index in range(args.blanks):
        kind = BLANK_KINDS[index % len(BLANK_KINDS)]
        frame, params = render_meter(rng, [None] * rng.randint(5, 7), kind)
        completed, _ = replay(rng, frame, params, os.path.join(work, f"blank-{index:03d}.lsrec"))
        kept.append((f"blank-{index:03d}.lsrec", None, kind.replace(" ", "-")))
        if completed is not None:
            false_results += 1
        if args.verbose or completed is not None:
            print(f"no meter {index:3d} ({kind}): {'FALSE RESULT ' + completed if completed is not None else 'none'}")
    print(f"no meter in view: {args.blanks} scenes ({', '.join(BLANK_KINDS)}), false results {false_results}")
    if args.keep:
        lsrec.write_truths(work, kept)


if __name__ == "__main__":
    sys.exit(main())
