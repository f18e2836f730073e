#!/usr/bin/python3
"""A learned seven-segment digit classifier, trained to be compared with the segment-probe reader (meter_digital.cpp).

Issue 17 asks for a font-independent seven-segment reader, either a learned classifier or a segment-probe reader in
the manner of ssocr, both measured against a generator wider than the reader's assumptions, the better one kept. This
script builds the learned one and measures both on the same cells: it trains a small CNN on digit cells rendered by a
generator of its own, then reads cells that the seven-segment reader itself cut out of the evaluation's meters
(scripts/eval-meter-digital.py's wide generator, a third, independent drawing of segments) and compares, cell by cell,
the CNN's digit with the segment probes' on the same pixels.

Run through scripts/seven-segment/compare.sh, which makes the cells and calls this (CPU, one thread, offline; about
6 minutes of training on the shared build machine):

    /usr/bin/python3 scripts/seven-segment/train.py --out DIR/run --epochs 14 \
        --cells DIR/seed7-cells.txt --truth DIR/seed7.log --cells DIR/seed11-cells.txt --truth DIR/seed11.log ...

Measured (2026-11-28, the reader as committed, seeds 7 / 11 / 23 / 53 of eval-meter-digital.py, 43,964 cells): the
segment probes read 99.80 % of the cells right, the CNN 99.64 % (a first run whose "no digit" class also held display
edges, which took faint 1s, did worse); at the probes' operating point (43,790 cells they are sure of, 20 of them
wrong) the CNN, keeping as many cells, has 92 wrong. As a second opinion it would contradict 18 of the probes' 20 sure
wrong cells and 91 sure right ones, and none of the meters the reader misreads is misread for a wrong cell (a point
missed, a digit lost or added at an end). So the segment-probe reader stays; the CNN's failures are mostly faint 1s
and low-contrast 8s that it cannot tell from an LCD's unlit ghosts without the rest of the row, which the probes see
(they compare each segment with the row's lit level).

--cells names manifests of cells dumped by the reader (one line per cell: meter, crop PNG of 20 x 32 pixels with the
strokes made light, frame, cell index, cells in the reading, the reading, the probes' confidence 0-1, the probes'
digit), --truth the eval-meter-digital.py logs of the same recordings ("meter N STYLE: truth
T"). Only readings with as many cells as the truth has digits are compared (their cells align with the truth's
digits); a reading with a cell too many or too few is the cell finder's failure, not the classifier's.

Model: grey 32 x 20 input, standardised per image as meter_digits.cpp does; three 3 x 3 convolutions with batch norm
and pooling, 11 logits (ten digits and "no digit"). Seeds fixed; torch on one thread.
"""

import argparse
import json
import math
import os
import random
import re
import time

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 20261127
WIDTH, HEIGHT = 20, 32
NONE = 10  # the "no digit" class

# Segments lit per digit, with the variants of 6, 7 and 9 (tails) that real displays use.
DIGITS = {0: ["abcdef"], 1: ["bc"], 2: ["abdeg"], 3: ["abcdg"], 4: ["bcfg"], 5: ["acdfg"], 6: ["acdefg", "cdefg"],
          7: ["abc", "abcf"], 8: ["abcdefg"], 9: ["abcdfg", "abcfg"]}


def segment_polygon(name, w, h, t, gap, shape):
    """The polygon of segment `name` of a digit w x h (digit-local, y down) with strokes t thick, `gap` between
    segments, ends pointed ("hex"), cut square ("rect") or cut at 45 degrees ("bevel")."""
    half = t / 2
    ends = {"a": ((half, half), (w - half, half)), "g": ((half, h / 2), (w - half, h / 2)),
            "d": ((half, h - half), (w - half, h - half)), "f": ((half, half), (half, h / 2)),
            "e": ((half, h / 2), (half, h - half)), "b": ((w - half, half), (w - half, h / 2)),
            "c": ((w - half, h / 2), (w - half, h - half))}
    (x0, y0), (x1, y1) = ends[name]
    length = math.hypot(x1 - x0, y1 - y0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    nx, ny = -uy, ux
    x0, y0 = x0 + ux * gap, y0 + uy * gap
    x1, y1 = x1 - ux * gap, y1 - uy * gap
    tip = min(half if shape == "hex" else (half * 0.6 if shape == "bevel" else 0), 0.3 * length)
    if shape == "rect":
        # Square ends that overlap at the corners the way a block font's strokes do.
        x0, y0, x1, y1 = x0 - ux * half * 0.9, y0 - uy * half * 0.9, x1 + ux * half * 0.9, y1 + uy * half * 0.9
    points = [(x0 + nx * half + ux * tip, y0 + ny * half + uy * tip),
              (x1 + nx * half - ux * tip, y1 + ny * half - uy * tip), (x1, y1), (x1 - nx * half - ux * tip, y1 - ny * half - uy * tip),
              (x0 - nx * half + ux * tip, y0 - ny * half + uy * tip), (x0, y0)]
    return np.array(points, np.float64)


def draw_digit(lit, ghost, x, y, w, h, t, gap, shape, slant, segments, level, ghost_level, scale):
    """Draws a digit whose box's top left is (x, y) in canvas pixels (scale subpixel units per pixel)."""
    for name in "abcdefg":
        on = name in segments
        if not on and ghost_level <= 0:
            continue
        poly = segment_polygon(name, w, h, t, gap, shape)
        poly[:, 0] += slant * (h - poly[:, 1])  # leaning right: the top shifted right
        poly[:, 0] += x
        poly[:, 1] += y
        target = lit if on else ghost
        cv2.fillPoly(target, [np.round(poly * scale * 16).astype(np.int32)], level if on else ghost_level,
                     lineType=cv2.LINE_AA, shift=4)


def render_cell(rng):
    """One training cell: the crop the reader takes around a digit cell (1.3 digit widths x 1.2 heights, the digit
    in its middle), strokes light, 32 x 20; and its class (0-9, or NONE)."""
    h = rng.uniform(26, 60)  # digit height in working-image pixels before the crop is scaled to 32 rows
    aspect = rng.uniform(0.38, 0.72)
    w = aspect * h
    t = min(rng.uniform(0.07, 0.23) * h, 0.32 * w)
    gap = rng.uniform(0, 0.06) * h
    shape = rng.choice(["hex", "rect", "bevel"])
    slant = rng.uniform(-0.07, 0.07)  # what the reader's deslanting leaves
    pitch = w * rng.uniform(1.08, 1.6)
    cw, ch = 1.3 * w, 1.2 * h
    up = 4
    size = (int(math.ceil(ch * up)) + 2, int(math.ceil(cw * up)) + 2)
    lit = np.zeros(size, np.float32)
    ghost = np.zeros(size, np.float32)
    kind = rng.random()
    label = rng.randrange(10)
    segments = rng.choice(DIGITS[label])
    ghost_level = rng.uniform(0.04, 0.45) if rng.random() < 0.5 else 0
    dx = rng.uniform(-0.1, 0.1) * w
    dy = rng.uniform(-0.07, 0.07) * h
    scale_jitter = rng.uniform(0.9, 1.08)
    dw, dh = w * scale_jitter, h * scale_jitter
    ox, oy = 0.15 * w + dx, 0.1 * h + dy
    # Neighbours: digits one pitch to either side (their strokes reach into the crop's margins), or blank.
    for side in (-1, 1):
        if rng.random() < 0.8:
            draw_digit(lit, ghost, ox + side * pitch, oy, dw, dh, t, gap, shape, slant,
                       rng.choice(DIGITS[rng.randrange(10)]), 1.0, ghost_level, up)
    if kind < 0.1:
        label = NONE  # a blank position: ghosts only, or nothing
        draw_digit(lit, ghost, ox, oy, dw, dh, t, gap, shape, slant, "", 1.0, ghost_level, up)
    elif kind < 0.17:
        label = NONE  # off the grid: halfway between two digits
        shift = rng.choice([-0.5, 0.5]) * pitch
        draw_digit(lit, ghost, ox + shift, oy, dw, dh, t, gap, shape, slant,
                   rng.choice(DIGITS[rng.randrange(10)]), 1.0, ghost_level, up)
    else:
        draw_digit(lit, ghost, ox, oy, dw, dh, t, gap, shape, slant, segments, 1.0, ghost_level, up)
    if rng.random() < 0.3:  # a decimal point after (or before) the digit
        px = ox + dw + (pitch - dw) / 2 if rng.random() < 0.7 else ox - (pitch - dw) / 2
        cv2.circle(lit, (int(px * up), int((oy + dh - t / 2) * up)), int(t * up * 0.6), 1.0, -1, cv2.LINE_AA)
    signal = np.maximum(lit, ghost)
    small = cv2.resize(signal, (int(round(cw)), int(round(ch))), interpolation=cv2.INTER_AREA)
    # Camera: ground and stroke levels (a weak or strong contrast), glow or defocus, a lighting gradient, noise.
    ground = rng.uniform(0, 110)
    contrast = rng.uniform(35, 200)
    if rng.random() < 0.5:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.6))
    img = ground + contrast * small
    gy, gx = np.mgrid[0:img.shape[0], 0:img.shape[1]].astype(np.float32)
    img += rng.uniform(-40, 40) * (gx / img.shape[1] - 0.5) + rng.uniform(-30, 30) * (gy / img.shape[0] - 0.5)
    if rng.random() < 0.25:  # glare: a bright soft spot
        cx, cy, r = rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0]), rng.uniform(0.3, 1.0) * h
        img += rng.uniform(20, 90) * np.exp(-((gx - cx) ** 2 + (gy - cy) ** 2) / (2 * r * r))
    img += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(1, 9), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(40, 90)])
        img = cv2.imdecode(enc, cv2.IMREAD_GRAYSCALE)
    img = cv2.GaussianBlur(img, (3, 3), 0)  # the reader's smoothing
    return cv2.resize(img, (WIDTH, HEIGHT), interpolation=cv2.INTER_AREA), label


def standardise(batch):
    batch = batch.astype(np.float32)
    mean = batch.mean(axis=(1, 2), keepdims=True)
    std = batch.std(axis=(1, 2), keepdims=True)
    return (batch - mean) / (std + 1)


class SegmentNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

        self.features = nn.Sequential(block(1, width), nn.MaxPool2d(2), block(width, 2 * width), nn.MaxPool2d(2),
                                      block(2 * width, 4 * width), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(4 * width * 4 * 2, 11))

    def forward(self, x):
        return self.head(self.features(x))


def load_cells(manifests, truths):
    """The dumped cells whose reading has as many cells as the truth has digits, with the truth's digit."""
    cells = []
    for manifest, truth_log in zip(manifests, truths):
        truth = {int(m.group(1)): m.group(2).replace(".", "")
                 for m in re.finditer(r"^meter +(\d+) \w+: truth (\S+)", open(truth_log).read(), re.M)}
        for line in open(manifest):
            parts = line.split()
            if parts[1] == "-":
                continue
            meter = int(parts[0].split("-")[1])
            path, index, count = parts[1], int(parts[3]), int(parts[4])
            digits = truth[meter]
            if count != len(digits):
                continue
            crop = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
            cells.append((crop, int(digits[index]), int(parts[7]), float(parts[6]), os.path.basename(manifest)))
    return cells


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--cells", action="append", default=[])
    parser.add_argument("--truth", action="append", default=[])
    parser.add_argument("--samples", type=int, default=60000)
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--load", help="a seven-segment.pt of an earlier run: compare without training")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    started = time.time()
    model = SegmentNet(args.width)
    if args.load:
        model.load_state_dict(torch.load(args.load))
        model.eval()
        compare(model, args)
        return
    rendered = [render_cell(rng) for _ in range(args.samples)]
    xs = standardise(np.stack([r[0] for r in rendered]))[:, None]
    ys = np.array([r[1] for r in rendered], np.int64)
    atlas = np.vstack([np.hstack([rendered[r * 24 + c][0] for c in range(24)]) for r in range(8)])
    cv2.imwrite(os.path.join(args.out, "rendered-atlas.png"), atlas)
    print(f"rendered {len(ys)} cells in {time.time() - started:.0f} s", flush=True)
    split = int(0.9 * len(ys))
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = args.epochs * math.ceil(split / 128)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps)
    order_rng = np.random.default_rng(SEED + 1)
    for epoch in range(args.epochs):
        model.train()
        order = order_rng.permutation(split)
        loss_sum = 0.0
        for start in range(0, split, 128):
            index = order[start:start + 128]
            logits = model(torch.from_numpy(xs[index]))
            loss = F.cross_entropy(logits, torch.from_numpy(ys[index]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += float(loss) * len(index)
        model.eval()
        with torch.no_grad():
            held = model(torch.from_numpy(xs[split:])).argmax(1).numpy()
        print(f"epoch {epoch + 1}: loss {loss_sum / split:.4f}, rendered held-out {np.mean(held == ys[split:]):.4f}"
              f" ({time.time() - started:.0f} s)", flush=True)
    torch.save(model.state_dict(), os.path.join(args.out, "seven-segment.pt"))
    compare(model, args)


def compare(model, args):
    """Reads the dumped cells with the model and compares its digits with the segment probes'."""
    if not args.cells:
        return
    cells = load_cells(args.cells, args.truth)
    crops = standardise(np.stack([c[0] for c in cells]))[:, None]
    with torch.no_grad():
        probabilities = torch.softmax(model(torch.from_numpy(crops)), 1).numpy()
    truth = np.array([c[1] for c in cells])
    probe = np.array([c[2] for c in cells])
    probe_conf = np.array([c[3] for c in cells])
    learned = probabilities.argmax(1)
    learned_conf = probabilities.max(1)
    report = {"cells": int(len(cells)),
              "probe_right": float(np.mean(probe == truth)), "learned_right": float(np.mean(learned == truth))}
    # Confident wrong cells at the operating points: the probes' confidence 1 (as the reader reports sure digits),
    # and the CNN's probability at the level where it keeps as many cells as the probes do.
    sure = probe_conf >= 0.999
    report["probe_sure"] = int(sure.sum())
    report["probe_sure_wrong"] = int((sure & (probe != truth)).sum())
    cut = np.sort(learned_conf)[::-1][max(0, int(sure.sum()) - 1)]
    kept = learned_conf >= cut
    report["learned_kept_at_same_count"] = int(kept.sum())
    report["learned_kept_wrong"] = int((kept & (learned != truth)).sum())
    report["learned_cut"] = float(cut)
    for name in sorted({c[4] for c in cells}):
        part = np.array([c[4] == name for c in cells])
        report[name] = {"cells": int(part.sum()), "probe_right": float(np.mean(probe[part] == truth[part])),
                        "learned_right": float(np.mean(learned[part] == truth[part]))}
    both_wrong = (probe != truth) & (learned != truth)
    report["both_wrong"] = int(both_wrong.sum())
    report["only_probe_wrong"] = int(((probe != truth) & (learned == truth)).sum())
    report["only_learned_wrong"] = int(((probe == truth) & (learned != truth)).sum())
    # Calibration: how often a cell is right at each level of the probes' confidence (and of the CNN's probability).
    edges = [0, 0.01, 0.2, 0.4, 0.6, 0.8, 0.999, 1.01]
    for name, confidence, digits in (("probe", probe_conf, probe), ("learned", learned_conf, learned)):
        table = []
        for lo, hi in zip(edges, edges[1:]):
            part = (confidence >= lo) & (confidence < hi)
            if part.any():
                table.append({"from": lo, "to": min(hi, 1.0), "cells": int(part.sum()),
                              "right": round(float(np.mean(digits[part] == truth[part])), 4)})
        report[name + "_calibration"] = table
    # The network as a second opinion: sure probe readings it contradicts (with its probability above 0.5).
    veto = sure & (learned != probe) & (learned_conf > 0.5)
    report["veto_of_sure_wrong"] = int((veto & (probe != truth)).sum())
    report["veto_of_sure_right"] = int((veto & (probe == truth)).sum())
    print(json.dumps(report, indent=1))
    with open(os.path.join(args.out, "comparison.json"), "w") as f:
        json.dump(report, f, indent=1)
    wrong = [i for i in range(len(cells)) if learned[i] != truth[i]][:96]
    if wrong:
        tiles = [cv2.resize(cells[i][0], (40, 64), interpolation=cv2.INTER_NEAREST) for i in wrong]
        tiles += [np.zeros_like(tiles[0])] * ((-len(tiles)) % 16)
        cv2.imwrite(os.path.join(args.out, "learned-wrong.png"),
                    np.vstack([np.hstack(tiles[r:r + 16]) for r in range(0, len(tiles), 16)]))
        with open(os.path.join(args.out, "learned-wrong.txt"), "w") as f:
            for i in wrong:
                f.write(f"truth {truth[i]} learned {learned[i]} ({learned_conf[i]:.2f}) probe {probe[i]}\n")


if __name__ == "__main__":
    main()
