#!/usr/bin/python3
"""Measures how well `lumascan secure-qr calibrate` tells captures of original secure QR prints from captures of
first-generation copies, on a physically motivated print-and-capture model written here (numpy/OpenCV), apart from
the library.

Called by scripts/eval-copy-detection.sh (which builds lumascan). For each of N payloads:

1. The master: `lumascan secure-qr generate --key-file K` (the CDP seed is HMAC-SHA256(key, payload)), rendered at
   16 px per module and taken to a print raster of 8 px per CDP cell.
2. Printing (the original), in reflectance units on that raster:
   - misregistration: a smooth random displacement field (0.05-0.15 cell), the dots landing off the grid;
   - ink spread / dot gain: the dark image blurred (sigma 0.12-0.25 cell) and thresholded below half (0-10 % gain),
     so dark areas grow and corners round;
   - toner / halftone noise: fine noise added before that threshold (ragged edges, lost and stray dots);
   - ink density and paper: ink at 0.04-0.12 with mottle, paper at 0.82-0.93 with fibre texture, and the light
     scattered in the paper (a 0.5-pixel blur of the reflectance).
3. Copying (a first-generation copy of that print): a scanner at about 3 pixels per cell (the scanner's MTF as a
   Gaussian of 0.25-0.5 cell, the sampling onto its grid at a random phase, sensor noise), re-thresholded at the
   scan's Otsu level, as a counterfeiter does to print a clean bitmap, then printed again with the model of step 2.
4. The camera: eval-secure-qr.py's model (a 3D pose up to 30 degrees of tilt and any roll, a pinhole projection,
   illumination gradient and vignetting, Gaussian defocus, shot and read noise, gamma), then JPEG at quality 70-92.
   Pixels per cell 2-6 and defocus 0.05-0.5 cell are drawn per capture; each print is captured once.

The captures go to genuine/ and copies/ folders; `lumascan secure-qr calibrate --json` scores them; this script
groups the scores by pixels per cell and by blur and prints ROC AUC and the equal error rate for each group (its own
computation, independent of the library's).
"""

import argparse
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("eval_secure_qr", os.path.join(HERE, "eval-secure-qr.py"))
capture = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(capture)  # the camera model: background, pose, projector, render

ISSUER = "https://scan.example.com/q/"
MASTER_MODULE_PX = 16  # the generator's pixels per module
CELLS_PER_MODULE = 4
RASTER_CELL_PX = 8  # the print raster: pixels per CDP cell
PPC_BUCKETS = [(2.0, 2.5), (2.5, 3.0), (3.0, 4.0), (4.0, 5.0), (5.0, 6.01)]
BLUR_BUCKETS = [(0.0, 0.2), (0.2, 0.35), (0.35, 0.51)]


def smooth_field(rng, h, w, scale, amplitude):
    small = rng.normal(0, 1, (max(2, h // scale), max(2, w // scale))).astype(np.float32)
    return amplitude * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def print_press(rng, light, cell):
    """Prints a binary image (`light`: 1 paper, 0 ink) on the raster: returns the print's reflectance."""
    h, w = light.shape
    dark = 1 - light
    # Misregistration: the raster lands a little off, smoothly varying over the sheet.
    jitter = rng.uniform(0.05, 0.15) * cell
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    map_x = xs + smooth_field(rng, h, w, int(4 * cell), jitter)
    map_y = ys + smooth_field(rng, h, w, int(4 * cell), jitter)
    dark = cv2.remap(dark, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # Ink spread and dot gain, with toner noise before the ink settles.
    spread = cv2.GaussianBlur(dark, (0, 0), rng.uniform(0.12, 0.25) * cell)
    toner = rng.normal(0, rng.uniform(0.08, 0.2), (h, w)).astype(np.float32)
    toner = cv2.GaussianBlur(toner, (0, 0), 0.7)
    coverage = (spread + toner > 0.5 - rng.uniform(0.0, 0.1)).astype(np.float32)
    # Ink density and paper texture.
    ink = rng.uniform(0.04, 0.12) + smooth_field(rng, h, w, int(2 * cell), 0.02)
    paper = rng.uniform(0.82, 0.93) + smooth_field(rng, h, w, 16, 0.015) + rng.normal(0, 0.012, (h, w))
    reflectance = paper * (1 - coverage) + ink * coverage
    # Light scattered inside the paper (optical dot gain).
    return np.clip(cv2.GaussianBlur(reflectance.astype(np.float32), (0, 0), 0.5), 0, 1)


def copy_print(rng, reflectance, cell):
    """A first-generation copy: scanned at about 3 px per cell, re-thresholded, printed again."""
    h, w = reflectance.shape
    mtf = cv2.GaussianBlur(reflectance, (0, 0), rng.uniform(0.25, 0.5) * cell)
    scan_cell = rng.uniform(2.6, 3.4)
    factor = scan_cell / cell
    phase = rng.uniform(0, 1, 2)
    m = np.float32([[factor, 0, -phase[0]], [0, factor, -phase[1]]])
    sw, sh = int(w * factor), int(h * factor)
    scanned = cv2.warpAffine(mtf, m, (sw, sh), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    scanned = scanned + rng.normal(0, rng.uniform(0.01, 0.03), scanned.shape).astype(np.float32)
    scan8 = np.clip(scanned * 255, 0, 255).astype(np.uint8)
    _, binary = cv2.threshold(scan8, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    # The bitmap printed back at the original size (nearest: the printer places whole dots).
    light = cv2.resize(binary, (w, h), interpolation=cv2.INTER_NEAREST).astype(np.float32) / 255
    return print_press(rng, light, cell)


def master(lumascan, work, key, payload):
    out = os.path.join(work, "master.png")
    run = subprocess.run([lumascan, "secure-qr", "generate", "--payload", payload, "--key-file", key, "--module-px",
                          str(MASTER_MODULE_PX), "--out", out, "--json"], capture_output=True, text=True, check=True)
    description = json.loads(run.stdout)
    image = cv2.imread(out, cv2.IMREAD_GRAYSCALE).astype(np.float32) / 255
    factor = RASTER_CELL_PX * CELLS_PER_MODULE // MASTER_MODULE_PX
    raster = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_NEAREST)
    return (raster > 0.5).astype(np.float32), description


def photograph(rng, reflectance, ppc, blur_cells, path):
    """One capture of a print (reflectance at RASTER_CELL_PX per cell) at `ppc` px per cell, saved as JPEG."""
    module_px = ppc * CELLS_PER_MODULE
    # Integrate the raster down to twice the frame's module size first: the camera's warp then shrinks by 2 at most.
    inter = 2 * module_px / (RASTER_CELL_PX * CELLS_PER_MODULE)
    label = cv2.resize(reflectance, None, fx=inter, fy=inter, interpolation=cv2.INTER_AREA)
    ch, cw = label.shape
    side = int(max(ch, cw) * 0.5 * 1.9) + 40
    w, h = side, side
    scene, _ = capture.background(rng, w, h)
    rotation = capture.pose(rng, 30)
    centre = (w / 2 + rng.uniform(-0.05, 0.05) * w, h / 2 + rng.uniform(-0.05, 0.05) * h)
    project = capture.projector(rotation, w, centre, 0.5)
    params = {
        "modulePx": module_px, "ink": 0.0, "paper": 1.0, "blur": "gaussian", "sigma": max(0.05, blur_cells * ppc),
        "gradient": (rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)), "vignetting": rng.uniform(0.05, 0.3),
        "exposure": rng.uniform(0.7, 1.0), "fullWell": rng.uniform(200, 600), "readNoise": rng.uniform(1, 3),
        "gamma": rng.uniform(1.8, 2.4),
    }
    frame = capture.render(rng, scene, label, project, params, w, h)
    quality = int(rng.integers(70, 93))
    cv2.imwrite(path, frame, [cv2.IMWRITE_JPEG_QUALITY, quality])


def roc(genuine, copies):
    """ROC AUC (ties half) and the equal error rate (mean of the two error rates where they are closest)."""
    if not genuine or not copies:
        return None, None
    g = np.asarray(genuine)
    c = np.asarray(copies)
    auc = float(((g[:, None] > c[None, :]).sum() + 0.5 * (g[:, None] == c[None, :]).sum()) / (len(g) * len(c)))
    best = None
    for t in sorted(set(genuine) | set(copies)) + [math.inf]:
        frr = float((g < t).mean())
        far = float((c >= t).mean())
        key = (abs(frr - far), frr + far)
        if best is None or key < best[0]:
            best = (key, (frr + far) / 2)
    return auc, best[1]


def bucket_of(value, buckets):
    for low, high in buckets:
        if low <= value < high:
            return (low, high)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lumascan", required=True)
    parser.add_argument("--codes", type=int, default=120, help="payloads; each gives one original and one copy")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--keep", help="keep the captures in this folder")
    parser.add_argument("--threshold", type=float, default=0.92,
                        help="also report the error rates at this threshold (default: the configuration's default)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    work = tempfile.mkdtemp(prefix="eval-copy-")
    try:
        key = os.path.join(work, "issuer.key")
        with open(key, "wb") as f:
            f.write(rng.bytes(32))
        genuine_dir, copies_dir = os.path.join(work, "genuine"), os.path.join(work, "copies")
        os.makedirs(genuine_dir)
        os.makedirs(copies_dir)
        plan = {}
        for index in range(args.codes):
            payload = ISSUER + f"C{args.seed:03d}{index:05d}"
            light, _ = master(args.lumascan, work, key, payload)
            original = print_press(rng, light, RASTER_CELL_PX)
            copied = copy_print(rng, original, RASTER_CELL_PX)
            for folder, reflectance in ((genuine_dir, original), (copies_dir, copied)):
                ppc = float(rng.uniform(2.0, 6.0))
                blur = float(rng.uniform(0.05, 0.5))
                path = os.path.join(folder, f"{index:05d}.jpg")
                photograph(rng, reflectance, ppc, blur, path)
                plan[path] = (ppc, blur)
            if (index + 1) % 20 == 0:
                print(f"eval-copy-detection: {index + 1}/{args.codes} codes printed, copied and captured",
                      file=sys.stderr)
        run = subprocess.run([args.lumascan, "secure-qr", "calibrate", "--genuine", genuine_dir, "--copies", copies_dir,
                              "--key-file", key, "--json"], capture_output=True, text=True)
        if run.returncode not in (0,):
            print(run.stdout, run.stderr, file=sys.stderr)
            sys.exit(f"eval-copy-detection: calibrate failed ({run.returncode})")
        rows, fit = [], None
        for line in run.stdout.splitlines():
            obj = json.loads(line)
            if "fit" in obj:
                fit = obj["fit"]
            else:
                rows.append(obj)
        unscored = [r for r in rows if "score" not in r]
        scored = [r for r in rows if "score" in r]
        print(f"captures: {len(rows)} ({len(unscored)} not scored: "
              + ", ".join(sorted({f"{r['label']} {r['notScored']}" for r in unscored})) + ")")
        print(f"calibrate's fit over all scored captures: AUC {fit['auc']:.4f}, EER {100 * fit['eer']:.2f} %, "
              f"threshold {fit['threshold']:.4f}")

        def report(title, select):
            g = [r["score"] for r in scored if r["label"] == "genuine" and select(r)]
            c = [r["score"] for r in scored if r["label"] == "copy" and select(r)]
            auc, eer = roc(g, c)
            if auc is None:
                print(f"  {title:<26} genuine {len(g):4d} copies {len(c):4d}  (too few)")
                return
            print(f"  {title:<26} genuine {len(g):4d} copies {len(c):4d}  AUC {auc:.4f}  EER {100 * eer:5.2f} %  "
                  f"genuine median {np.median(g):.3f}  copy median {np.median(c):.3f}")

        for title, select in (("all", lambda r: True), (">= 3 px/cell", lambda r: plan[r["file"]][0] >= 3)):
            g = [r["score"] for r in scored if r["label"] == "genuine" and select(r)]
            c = [r["score"] for r in scored if r["label"] == "copy" and select(r)]
            print(f"at threshold {args.threshold}, {title}: {100 * np.mean(np.asarray(g) < args.threshold):.2f} % of "
                  f"originals rejected, {100 * np.mean(np.asarray(c) >= args.threshold):.2f} % of copies accepted")
        print("ROC AUC and equal error rate (originals vs first-generation copies):")
        report("all", lambda r: True)
        report(">= 3 px/cell", lambda r: plan[r["file"]][0] >= 3)
        for low, high in PPC_BUCKETS:
            report(f"{low:.1f}-{min(high, 6):.1f} px/cell", lambda r, lo=low, hi=high: lo <= plan[r["file"]][0] < hi)
        for low, high in BLUR_BUCKETS:
            report(f"blur {low:.2f}-{min(high, 0.5):.2f} cell", lambda r, lo=low, hi=high: lo <= plan[r["file"]][1] < hi)
        for low, high in BLUR_BUCKETS:
            report(f">= 3 px/cell, blur {low:.2f}-{min(high, 0.5):.2f}",
                   lambda r, lo=low, hi=high: plan[r["file"]][0] >= 3 and lo <= plan[r["file"]][1] < hi)
        if args.keep:
            shutil.copytree(work, args.keep, dirs_exist_ok=True)
            with open(os.path.join(args.keep, "scores.jsonl"), "w") as f:
                for r in rows:
                    ppc, blur = plan[r["file"]]
                    f.write(json.dumps({**r, "plannedPixelsPerCell": ppc, "plannedBlurCells": blur}) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
