#!/usr/bin/python3
"""Reads seven-segment meters from a wide generator of its own through `lumascan scan`, as a camera would deliver them.

Called by `scripts/eval-meter.sh --digital` (or directly: it needs no data set, only python3-opencv and a lumascan).
The generator is independent of the bench kit's (CSupport/CLumaBenchKit/meter_synth.cpp, which the seven-segment reader
was tuned on) and draws wider than it: digits as OpenCV polygons in three segment shapes (hexagonal, bevelled,
rectangular), with gaps between segments of 0-5 % of the digit height, strokes 9-19 % of it (at most 30 % of the width),
digits 0.42-0.66 of their height wide, slanted 0-12 degrees; the variants of 6, 7 and 9 with and without their tails;
4-8 digits, and in 40 % of the meters a decimal point (every meter has unlit points, faint on an LCD). Two styles,
alternating: LCD (dark digits on a grey-green ground, every unlit segment faintly visible, a "ghost") and LED (light
digits on a dark ground, a glow, sometimes faint ghosts). The display (its ground with a bezel, on a meter plate among
clutter) is 55-85 % of the cutout's width (--min-width widens it), seen at up to 30 degrees of yaw and 20 of pitch,
rolled up to 4 degrees (--max-roll), with glare (40 %), blur, sensor noise and JPEG (quality 50-90). Eight frames per
meter (noise and a pixel of jitter differ) go into one MJPEG recording, which `lumascan scan --config <digital_meter
config> --input <recording>` replays as a camera. The cutout is 4:1 at 70 % of the frame's width, centred (CUTOUT
below), with 24 pixels of crop padding.

Verdicts (as in eval-meter.py): a meter is exact when its first COMPLETED_RESULT equals the truth, misread when it
differs, no result without one; "digits right" counts the truth's digits matched in a minimal alignment with the
reading (the COMPLETED_RESULT's text, else the last partial reading's).

Decimal points: the report's `text` carries the point (MeterRecognizer writes "123.45" when the reader found one;
maxNumDecimalDigits is -1 here, so no digit is dropped). The truth is therefore what a person would write, point
included, and a reading with the right digits but a missing, extra or misplaced point is a misread; the summary
says how many of the misreads have every digit right and only the point wrong.

No meter in view: besides the meters, --blanks scenes (a third each) of a blank display (its ground and every
segment's ghost, nothing lit; LCD or LED), a bare meter plate (screws, a label, lettering without digits, no display)
and background clutter alone, eight frames each; every COMPLETED_RESULT on one is a false result (the target is 0).
"""

import argparse
import json
import math
import os
import random
import sys
import tempfile

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsrec  # noqa: E402 (scripts/lsrec.py, beside this script)

FRAME_W, FRAME_H = 1280, 720
FRAMES_PER_METER = 8
# The cutout of the configuration below in a 1280x720 frame: 4:1, 70 % of the width, centred.
CUTOUT = (192, 248, 896, 224)
# How the user frames the display: its width as a fraction of the cutout's (drawn uniformly from MIN_WIDTH to 0.85)
# and the camera's roll (uniform within +-MAX_ROLL degrees). --min-width and --max-roll widen them to the framing that
# issue 17 asks the reader to handle (0.40 and 10).
MIN_WIDTH = 0.55
MAX_ROLL = 4.0

# Segments a b c d e f g of each digit; 6, 7 and 9 in both forms (with and without the tail), picked per meter.
DIGIT_SEGMENTS = {0: "abcdef", 1: "bc", 2: "abdeg", 3: "abcdg", 4: "bcfg", 5: "acdfg", 6: "acdefg", 7: "abc",
                  8: "abcdefg", 9: "abcdfg"}
TAILLESS = {6: "cdefg", 7: "abc", 9: "abcfg"}
TAILED = {6: "acdefg", 7: "abcf", 9: "abcdfg"}


def config_document():
    return {
        "cameraConfig": {"captureResolution": "720p"},
        "viewPluginConfig": {
            "pluginConfig": {"id": "meter", "cancelOnResult": True, "scanTimeout": 0,
                             "meterConfig": {"scanMode": "digital_meter"}},
            "cutoutConfig": {"ratioFromSize": {"width": 4, "height": 1}, "maxWidthPercent": "70%",
                             "alignment": "center", "cropPadding": {"x": 24, "y": 24}},
        },
    }


# MARK: Digits

def segment_lines(w, h, t):
    """Each segment's centre line (two points) in a digit cell w x h whose strokes are t thick, and its outer side
    (the unit normal pointing out of the digit; None for the middle segment)."""
    x0, x1 = t / 2, w - t / 2
    y0, ym, y1 = t / 2, h / 2, h - t / 2
    return {
        "a": ((x0, y0), (x1, y0), (0, -1)),
        "b": ((x1, y0), (x1, ym), (1, 0)),
        "c": ((x1, ym), (x1, y1), (1, 0)),
        "d": ((x0, y1), (x1, y1), (0, 1)),
        "e": ((x0, ym), (x0, y1), (-1, 0)),
        "f": ((x0, y0), (x0, ym), (-1, 0)),
        "g": ((x0, ym), (x1, ym), None),
    }


def segment_polygon(p0, p1, outer, t, gap, shape):
    """One segment's outline: the centre line p0-p1 shortened by `gap` at both ends, `t` thick, in `shape`."""
    p0, p1 = np.float64(p0), np.float64(p1)
    d = p1 - p0
    length = float(np.hypot(*d))
    u = d / length
    n = np.float64([-u[1], u[0]])
    a, b = p0 + u * gap, p1 - u * gap
    half = t / 2
    taper = min(half, 0.4 * (length - 2 * gap))  # what the ends give up, so short segments stay convex
    if shape == "rect":  # rectangles that stop short of the corners
        a, b = a + u * taper * 0.6, b - u * taper * 0.6
        pts = [a + n * half, b + n * half, b - n * half, a - n * half]
    elif shape == "bevel" and outer is not None:  # trapezoids: the outer edge long, the inner one short
        o = np.float64(outer)
        pts = [a + o * half, b + o * half, b - o * half - u * taper, a - o * half + u * taper]
    else:  # hexagons with pointed ends
        pts = [a, a + u * taper + n * half, b - u * taper + n * half, b, b - u * taper - n * half,
               a + u * taper - n * half]
    return np.float64(pts)


def draw_digit(canvas, left, top, w, h, t, gap, shape, slant, segments, level, scale=4):
    """Draws the segments of one digit (cell at left, top) into `canvas` (float32) at `level`, slanted by `slant`
    radians (the top leans right, about the cell's middle row). Anti-aliased through a fixed-point shift."""
    lines = segment_lines(w, h, t)
    for s in segments:
        p0, p1, outer = lines[s]
        poly = segment_polygon(p0, p1, outer, t, gap, shape)
        poly[:, 0] += (h / 2 - poly[:, 1]) * math.tan(slant)
        poly += (left, top)
        pts = np.round(poly * (1 << scale)).astype(np.int32)
        cv2.fillPoly(canvas, [pts], float(level), lineType=cv2.LINE_AA, shift=scale)


def pick_meter(rng):
    count = rng.randint(4, 8)
    digits = [rng.randrange(10) for _ in range(count)]
    decimal_after = rng.randint(1, count - 1) if rng.random() < 0.4 else -1
    truth = "".join(str(d) for d in digits)
    if decimal_after > 0:
        truth = truth[:decimal_after] + "." + truth[decimal_after:]
    return digits, decimal_after, truth


# MARK: Scenes

def background(rng):
    frame = np.full((FRAME_H, FRAME_W), rng.uniform(50, 200), np.float32)
    ys, xs = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
    frame += rng.uniform(-40, 40) * (xs / FRAME_W - 0.5) + rng.uniform(-40, 40) * (ys / FRAME_H - 0.5)
    return frame


def clutter(rng, frame, avoid=None, count=(3, 8)):
    """Rectangles, lines and circles anywhere except `avoid` (x0, y0, x1, y1), when given."""
    for _ in range(rng.randint(*count)):
        x, y = rng.randrange(FRAME_W), rng.randrange(FRAME_H)
        w, h = rng.randint(10, 260), rng.randint(10, 160)
        if avoid and x < avoid[2] and x + w > avoid[0] and y < avoid[3] and y + h > avoid[1]:
            continue
        kind = rng.random()
        level = rng.uniform(0, 255)
        if kind < 0.5:
            cv2.rectangle(frame, (x, y), (x + w, y + h), level, -1 if rng.random() < 0.6 else rng.randint(2, 8))
        elif kind < 0.8:
            cv2.line(frame, (x, y), (x + w, y + rng.randint(-h, h)), level, rng.randint(2, 12))
        else:
            cv2.circle(frame, (x, y), rng.randint(5, 60), level, -1 if rng.random() < 0.5 else rng.randint(2, 8))


LABEL_WORDS = ["kWh", "TYPE", "CLASS", "IMP", "MADE IN EU", "WATER", "GAS", "m3", "SERIAL", "A B C", "HZ", "REV",
               "ELECTRICITY METER", "CE", "METER", "PHASE"]


def lettering(rng, frame, x0, y0, x1, y1, level):
    """A few words without digits inside (x0, y0)-(x1, y1), as printed on a meter plate."""
    for _ in range(rng.randint(1, 4)):
        word = rng.choice(LABEL_WORDS)
        size = rng.uniform(0.5, 1.6)
        (tw, th), _ = cv2.getTextSize(word, cv2.FONT_HERSHEY_SIMPLEX, size, 2)
        if x1 - x0 - tw < 2 or y1 - y0 - th < 2:
            continue
        x = rng.randint(int(x0), int(x1 - tw))
        y = rng.randint(int(y0 + th), int(y1))
        cv2.putText(frame, word, (x, y), cv2.FONT_HERSHEY_SIMPLEX, size, level, rng.randint(1, 3), cv2.LINE_AA)


def style_levels(rng, style):
    """Ground, lit and ghost levels, and the bezel's, for a display style."""
    if style == "LCD":
        ground = rng.uniform(120, 215)
        lit = rng.uniform(15, min(75, ground - 60))
        ghost = ground - rng.uniform(0.04, 0.22) * (ground - lit)
        bezel = rng.uniform(10, 90) if rng.random() < 0.6 else rng.uniform(180, 240)
    else:
        ground = rng.uniform(5, 55)
        lit = rng.uniform(max(140, ground + 90), 255)
        ghost = ground + (rng.uniform(0.03, 0.12) * (lit - ground) if rng.random() < 0.5 else 0)
        bezel = rng.uniform(30, 120) if rng.random() < 0.5 else rng.uniform(150, 230)
    return ground, lit, ghost, bezel


def draw_display(rng, style, digits, decimal_after, blank=False):
    """A scene with a display in a plate (flat, before the perspective): the frame and the display's corners."""
    frame = background(rng)
    cx, cy, cw, ch = CUTOUT
    count = len(digits)
    target_w = rng.uniform(MIN_WIDTH, 0.85) * cw  # the display's ground and bezel, as seen (after the perspective)
    # The digits' shape.
    aspect = rng.uniform(0.42, 0.66)  # digit width / height
    thick = rng.uniform(0.09, min(0.19, 0.3 * aspect))  # stroke / height (at most 0.3 of the width)
    gap = rng.uniform(0.0, 0.05) if rng.random() < 0.7 else 0.0
    shape = rng.choice(["hex", "bevel", "rect"])
    slant = math.radians(rng.uniform(0, 12)) if rng.random() < 0.7 else 0.0
    spacing = rng.uniform(0.25, 0.6)  # the space between digits / digit width
    margin_x, margin_y = rng.uniform(0.2, 0.6), rng.uniform(0.15, 0.4)  # the ground beyond the digits / height
    # Sizes in units of the digit height, then scaled so the display is target_w wide (a little more: the
    # perspective foreshortens it, and the scene is scaled again after it).
    row_w = count * aspect + (count - 1) * spacing * aspect + math.tan(slant)
    disp_w_u = row_w + 2 * margin_x
    h = target_w / disp_w_u
    h = min(h, 0.62 * ch / (1 + 2 * margin_y))  # the display's height within the cutout's
    w, t, g = aspect * h, thick * h, gap * h
    # A display too tall for the cutout at that width keeps its width, with more ground beside the digits.
    extra = max(0.0, target_w / h - disp_w_u)
    offset = rng.uniform(0.2, 0.8) * extra
    disp_w, disp_h = target_w if extra > 0 else disp_w_u * h, h * (1 + 2 * margin_y)
    centre_x = FRAME_W / 2 + rng.uniform(-0.06, 0.06) * cw
    centre_y = FRAME_H / 2 + rng.uniform(-0.08, 0.08) * ch
    ground, lit, ghost, bezel = style_levels(rng, style)
    # The plate and clutter around it.
    plate_pad = rng.uniform(0.3, 1.2) * h
    px0, py0 = centre_x - disp_w / 2 - 2 * plate_pad, centre_y - disp_h / 2 - plate_pad
    px1, py1 = centre_x + disp_w / 2 + 2 * plate_pad, centre_y + disp_h / 2 + plate_pad
    clutter(rng, frame, avoid=(px0 - 30, py0 - 30, px1 + 30, py1 + 30))
    cv2.rectangle(frame, (int(px0), int(py0)), (int(px1), int(py1)), rng.uniform(70, 230), -1)
    border = rng.uniform(0.05, 0.2) * h
    dx0, dy0 = centre_x - disp_w / 2, centre_y - disp_h / 2
    cv2.rectangle(frame, (int(dx0 - border), int(dy0 - border)),
                  (int(dx0 + disp_w + border), int(dy0 + disp_h + border)), bezel, -1)
    ground_img = np.zeros_like(frame)
    cv2.rectangle(ground_img, (int(dx0), int(dy0)), (int(dx0 + disp_w), int(dy0 + disp_h)), 1.0, -1)
    frame = frame * (1 - ground_img) + ground * ground_img
    # Segments: ghosts (every segment and point), then the lit ones.
    lit_layer = np.zeros_like(frame)
    ghost_layer = np.zeros_like(frame)
    tails = TAILED if rng.random() < 0.5 else TAILLESS
    left0 = dx0 + (margin_x + offset) * h
    top = centre_y - h / 2
    pitch = w * (1 + spacing)
    dot_r = max(1.5, rng.uniform(0.5, 0.8) * t)
    for i, d in enumerate(digits):
        left = left0 + i * pitch
        draw_digit(ghost_layer, left, top, w, h, t, g, shape, slant, "abcdefg", 1.0)
        if not blank:
            draw_digit(lit_layer, left, top, w, h, t, g, shape, slant, tails.get(d, DIGIT_SEGMENTS[d]), 1.0)
        if i + 1 < count:  # the point after digit i: in the space, at the baseline
            dot_x = left + w + spacing * w / 2 - dot_r / 2 - (h / 2 - dot_r) * math.tan(slant)  # slanted as the digits
            dot_y = top + h - dot_r
            cv2.circle(ghost_layer, (int(round(dot_x * 16)), int(round(dot_y * 16))), int(dot_r * 16), 1.0, -1,
                       cv2.LINE_AA, 4)
            if not blank and i + 1 == decimal_after:
                cv2.circle(lit_layer, (int(round(dot_x * 16)), int(round(dot_y * 16))), int(dot_r * 16), 1.0, -1,
                           cv2.LINE_AA, 4)
    ghost_layer = np.clip(ghost_layer, 0, 1)
    lit_layer = np.clip(lit_layer, 0, 1)
    frame = frame * (1 - ghost_layer) + ghost * ghost_layer
    frame = frame * (1 - lit_layer) + lit * lit_layer
    if style == "LED" and not blank and rng.random() < 0.6:  # glow around lit segments
        glow = cv2.GaussianBlur(lit_layer, (0, 0), rng.uniform(1.0, 0.25 * h))
        frame += rng.uniform(0.1, 0.4) * (lit - ground) * glow * ground_img
    corners = np.float32([[dx0, dy0], [dx0 + disp_w, dy0], [dx0 + disp_w, dy0 + disp_h], [dx0, dy0 + disp_h]])
    return frame, corners, target_w, {"shape": shape, "slant": round(math.degrees(slant), 1),
                                      "thick": round(thick, 2), "gap": round(gap, 3), "aspect": round(aspect, 2),
                                      "h": round(h, 1)}


def draw_plate(rng):
    """A bare meter plate (no display): screws, a label, lettering."""
    frame = background(rng)
    cx, cy, cw, ch = CUTOUT
    pw, ph = rng.uniform(0.6, 1.1) * cw, rng.uniform(0.8, 1.8) * ch
    x0, y0 = FRAME_W / 2 - pw / 2 + rng.uniform(-40, 40), FRAME_H / 2 - ph / 2 + rng.uniform(-30, 30)
    clutter(rng, frame, avoid=(x0 - 30, y0 - 30, x0 + pw + 30, y0 + ph + 30))
    plate = rng.uniform(60, 230)
    cv2.rectangle(frame, (int(x0), int(y0)), (int(x0 + pw), int(y0 + ph)), plate, -1)
    ink = plate - 120 if plate > 140 else plate + 100
    for sx, sy in [(x0 + 20, y0 + 20), (x0 + pw - 20, y0 + 20), (x0 + 20, y0 + ph - 20), (x0 + pw - 20, y0 + ph - 20)]:
        cv2.circle(frame, (int(sx), int(sy)), rng.randint(6, 12), ink, -1)
    if rng.random() < 0.6:  # a label
        lx, ly = x0 + rng.uniform(0.1, 0.4) * pw, y0 + rng.uniform(0.1, 0.5) * ph
        cv2.rectangle(frame, (int(lx), int(ly)), (int(lx + 0.4 * pw), int(ly + 0.3 * ph)), rng.uniform(0, 255), -1)
    lettering(rng, frame, x0 + 10, y0 + 10, x0 + pw - 10, y0 + ph - 10, ink)
    return frame


def perspective(rng, frame, corners, target_w):
    """The scene seen at up to 30 degrees of yaw, 20 of pitch and MAX_ROLL of roll, scaled so the display is target_w
    wide (lsrec.perspective)."""
    return lsrec.perspective(rng, frame, corners, target_w, max_yaw=30, max_pitch=20, max_roll=MAX_ROLL)


def finish(rng, frame):
    """Glare and blur, and the parameters of the frames' noise and JPEG."""
    cx, cy, cw, ch = CUTOUT
    glare = rng.random() < 0.4
    if glare:
        ys, xs = np.mgrid[0:FRAME_H, 0:FRAME_W].astype(np.float32)
        gx, gy = cx + rng.uniform(0.1, 0.9) * cw, cy + rng.uniform(0.0, 1.0) * ch
        sx, sy = rng.uniform(20, 160), rng.uniform(10, 70)
        spot = np.exp(-((xs - gx) ** 2 / (2 * sx * sx) + (ys - gy) ** 2 / (2 * sy * sy)))
        frame = frame + rng.uniform(30, 110) * spot
    frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.4, 2.0))
    return frame, {"noise": rng.uniform(2, 8), "quality": rng.randint(50, 90), "glare": glare}



def main():
    global MIN_WIDTH, MAX_ROLL
    parser = argparse.ArgumentParser()
    parser.add_argument("--lumascan", required=True)
    parser.add_argument("--meters", type=int, default=240, help="seven-segment meters, half LCD, half LED")
    parser.add_argument("--blanks", type=int, default=42, help="scenes with no meter in view")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", help="keep the recordings and the configuration in this folder")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--min-width", type=float, default=MIN_WIDTH,
                        help="the narrowest display, as a fraction of the cutout's width")
    parser.add_argument("--max-roll", type=float, default=MAX_ROLL, help="the camera's roll, degrees either way")
    args = parser.parse_args()
    MIN_WIDTH, MAX_ROLL = args.min_width, args.max_roll

    rng = random.Random(args.seed)
    work = args.keep or tempfile.mkdtemp(prefix="eval-meter-digital-")
    os.makedirs(work, exist_ok=True)
    config = os.path.join(work, "digital-meter.json")
    with open(config, "w") as f:
        json.dump(config_document(), f, indent=1)

    stats = {s: {"n": 0, "exact": 0, "misread": 0, "none": 0, "digits": 0, "right": 0, "point": 0}
             for s in ("LCD", "LED")}
    kept = []  # (recording, truth, style) for truth.txt
    for index in range(args.meters):
        style = "LCD" if index % 2 == 0 else "LED"
        digits, decimal_after, truth = pick_meter(rng)
        frame, corners, target_w, shape = draw_display(rng, style, digits, decimal_after)
        frame = perspective(rng, frame, corners, target_w)
        frame, params = finish(rng, frame)
        recording = os.path.join(work, f"meter-{index:03d}.lsrec")
        jpegs = lsrec.camera_frames(rng, frame, params["noise"], params["quality"], FRAMES_PER_METER)
        lsrec.write_recording(recording, jpegs, FRAME_W, FRAME_H)
        completed, partial = lsrec.scan_readings(args.lumascan, config, recording)
        kept.append((os.path.basename(recording), truth, style))
        read = completed if completed is not None else partial
        s = stats[style]
        s["n"] += 1
        s["digits"] += len(digits)
        s["right"] += lsrec.digits_right(truth, read)
        verdict = lsrec.verdict(truth, completed)
        s["none" if verdict == "no result" else verdict] += 1
        if verdict == "misread":
            verdict = "MISREAD"
            if completed.replace(".", "") == truth.replace(".", ""):
                s["point"] += 1
                verdict = "MISREAD (point)"
        if args.verbose or verdict.startswith("MISREAD"):
            print(f"meter {index:3d} {style}: truth {truth} read {read or '-'} ({verdict}; {shape}; "
                  f"glare {params['glare']})", flush=True)
        if not args.keep:
            os.remove(recording)

    kinds = ["blank display", "bare plate", "background"]
    false_results = {k: 0 for k in kinds}
    scenes = {k: 0 for k in kinds}
    for index in range(args.blanks):
        kind = kinds[index % 3]
        if kind == "blank display":
            style = rng.choice(["LCD", "LED"])
            frame, corners, target_w, _ = draw_display(rng, style, [8] * rng.randint(4, 8), -1, blank=True)
            frame = perspective(rng, frame, corners, target_w)
        elif kind == "bare plate":
            frame = draw_plate(rng)
        else:
            frame = background(rng)
            clutter(rng, frame, count=(6, 16))
            lettering(rng, frame, 0, 0, FRAME_W, FRAME_H, rng.uniform(0, 255))
        frame, params = finish(rng, frame)
        recording = os.path.join(work, f"none-{index:03d}.lsrec")
        jpegs = lsrec.camera_frames(rng, frame, params["noise"], params["quality"], FRAMES_PER_METER)
        lsrec.write_recording(recording, jpegs, FRAME_W, FRAME_H)
        completed, partial = lsrec.scan_readings(args.lumascan, config, recording)
        kept.append((os.path.basename(recording), None, kind.replace(" ", "-")))
        scenes[kind] += 1
        if completed is not None:
            false_results[kind] += 1
        if args.verbose or completed is not None:
            print(f"no meter {index:3d} ({kind}): {'FALSE RESULT ' + completed if completed is not None else 'none'}"
                  f" (last partial {partial or '-'})", flush=True)
        if not args.keep:
            os.remove(recording)

    total = {k: sum(s[k] for s in stats.values()) for k in stats["LCD"]}
    for name, s in list(stats.items()) + [("all", total)]:
        n = max(1, s["n"])
        print(f"{name}: {s['n']} meters, {s['digits']} digits: exact {s['exact']} ({100 * s['exact'] / n:.1f} %), "
              f"digits right {s['right']} ({100 * s['right'] / max(1, s['digits']):.1f} %), misread {s['misread']} "
              f"({100 * s['misread'] / n:.1f} %; {s['point']} only the point), no result {s['none']}")
    print(f"no meter in view: {args.blanks} scenes, false results {sum(false_results.values())} ("
          + ", ".join(f"{k} {false_results[k]} of {scenes[k]}" for k in kinds) + ")")
    if args.keep:
        lsrec.write_truths(work, kept)


if __name__ == "__main__":
    sys.exit(main())
