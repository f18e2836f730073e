#!/usr/bin/python3
"""Replays simulated camera captures of secure and plain QR codes through `lumascan scan` and scores the scan states.

Called by scripts/eval-secure-qr.sh (which builds lumascan). This capture model is written independently of the
classifier's own corpus generator (Tests/LumaScanTestSupport/SecureQR*.swift): codes come from `lumascan secure-qr
generate` (the issuer's secure codes, standard and hybrid, and codes without a secure graphic) and from `qrencode`
(plain codes on the issuer's domain and on another), and every step of the capture is numpy/OpenCV code here:

- the scene: textured paper, product print (gradients, shapes, text) or a wooden desk, with the code on a white
  label, in reflectance units;
- the pose: a 3D rotation (tilt up to 30 degrees, any roll; hybrid labels within 20 degrees of level) and a pinhole
  projection (focal length 1.2 x the frame width), the whole label inside the frame, a pixel or so of hand shake
  and a little scale change from frame to frame;
- the light: a linear illumination gradient, vignetting (a radial falloff) and an exposure level;
- the optics: Gaussian blur (defocus) or motion blur (a line kernel at any angle), on the linear image;
- the sensor: shot noise (Poisson, a full well of 150-600 electrons at white) and read noise (1-3 levels), a gamma of
  1/1.8-1/2.4, 8 bits, then JPEG at quality 60-90 (MJPG, as USB cameras send it);
- 720p or 1080p, 10-40 frames per scene, written as a recording (scripts/lsrec.py) that `lumascan scan --input`
  replays as a camera.

Each scene has one expected state, by construction:

- OK: a secure issuer code at 2.6-5 px per CDP cell (within what the frame holds), sharp;
- TOO_SMALL: a secure issuer code at 0.9-1.5 px per cell, sharp;
- BLURRY: a secure issuer code at 2.6-5 px per cell, Gaussian blur of 0.45-0.8 cell or motion blur of 2-3.5 cells;
- BLURRY_UNDECODABLE: the same, blurred about as far as decoding fails (Gaussian 1.4-2.6 cells, 0.35-0.65 module, or motion 6-13 cells); BLURRY is
  expected (the "hold still" guidance for a code no reader decodes);
- NOT_PROPRIETARY: a qrencode code on another domain, 5-14 px per module;
- NO_AUTH: an issuer code without a secure graphic (generator or qrencode), 10-16 px per module;
- FP_NOT_IN_FRAME: a hybrid issuer code whose fingerprint zone runs off the frame's right edge;
- UNREADABLE: a scene without a code.

TOO_SMALL and BLURRY scenes count towards their targets only when the code is decodable at full resolution: zbarimg
or ZXingReader (the readers' own tools) decodes the scene's middle frame, as delivered (after JPEG). The others
are listed apart ("set apart"). BLURRY_UNDECODABLE scenes count only when neither decodes it; those that one does are
set apart.

A scene's outcome is its COMPLETED_RESULT's state when it completes, else the most frequent state of its IN_PROGRESS
reports; its smoothed outcome is the most frequent `guidance.steadyState` of the reports. Per frame, a report is right
when its (raw) state is the expected one.
"""

import argparse
import collections
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsrec  # noqa: E402 (scripts/lsrec.py, beside this script)

ISSUER = "https://scan.example.com/q/"
OTHER = "https://shop.example.org/item/"
PRINT_MODULE_PX = 16  # the generated codes' pixels per module (4 per CDP cell): the print the camera sees
CELLS_PER_MODULE = 4
STATES = ["OK", "TOO_SMALL", "BLURRY", "BLURRY_UNDECODABLE", "NOT_PROPRIETARY", "NO_AUTH", "FP_NOT_IN_FRAME",
          "UNREADABLE"]
# The state a scene kind expects (BLURRY_UNDECODABLE scenes expect BLURRY).
EXPECTED_STATE = {"BLURRY_UNDECODABLE": "BLURRY"}
# The blurred scene kinds' Gaussian sigma and motion length ranges, in CDP cells.
BLUR_CELLS = {"BLURRY": ((0.45, 0.8), (2, 3.5)), "BLURRY_UNDECODABLE": ((1.4, 2.6), (6, 13))}
SIZES = [(1280, 720), (1920, 1080)]


def config_document(hybrid, height):
    return {
        "cameraConfig": {"captureResolution": "1080p" if height >= 1080 else "720p"},
        "viewPluginConfig": {
            "pluginConfig": {
                "id": "secure-qr", "scanTimeout": 0,
                "secureQRConfig": {"issuerPrefixes": [ISSUER], "design": {"hybrid": hybrid}},
            },
        },
    }


# ---- codes -------------------------------------------------------------------------------------------------------


def generated_code(lumascan, work, payload, seed, hybrid=False, secure_graphic=True):
    """A code from `lumascan secure-qr generate`: the image (0 dark .. 1 light) and its description."""
    out = os.path.join(work, "code.png")
    command = [lumascan, "secure-qr", "generate", "--payload", payload, "--seed", str(seed), "--module-px",
               str(PRINT_MODULE_PX), "--out", out, "--json"]
    if hybrid:
        command.append("--hybrid")
    if not secure_graphic:
        command.append("--no-secure-graphic")
    run = subprocess.run(command, capture_output=True, text=True, check=True)
    description = json.loads(run.stdout)
    image = cv2.imread(out, cv2.IMREAD_GRAYSCALE).astype(np.float32) / 255
    return image, description


def qrencode_code(work, payload):
    """A plain code from qrencode (error correction Q, 4 modules of quiet zone), 0 dark .. 1 light."""
    out = os.path.join(work, "qrencode.png")
    subprocess.run(["qrencode", "-l", "Q", "-s", str(PRINT_MODULE_PX), "-m", "4", "-o", out, payload], check=True)
    return cv2.imread(out, cv2.IMREAD_GRAYSCALE).astype(np.float32) / 255


def modules_of(description):
    """Modules per side and the code's top-left corner in print pixels, from the generator's description."""
    return int(description["modules"]), tuple(description["origin"])


# ---- scenes ------------------------------------------------------------------------------------------------------


def smooth_noise(rng, h, w, scale, amplitude):
    """Low-frequency noise: a small random plane blown up."""
    small = rng.normal(0, 1, (max(2, h // scale), max(2, w // scale))).astype(np.float32)
    return amplitude * cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def background(rng, w, h):
    """A scene in reflectance (0..1): textured paper, product print or a wooden desk."""
    kind = rng.choice(["paper", "print", "desk"])
    if kind == "paper":
        scene = 0.75 + smooth_noise(rng, h, w, 64, 0.03) + smooth_noise(rng, h, w, 4, 0.015)
        for _ in range(int(rng.integers(50, 200))):  # fibres
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            a = rng.uniform(0, math.pi)
            length = rng.uniform(5, 30)
            cv2.line(scene, (x, y), (int(x + length * math.cos(a)), int(y + length * math.sin(a))),
                     float(rng.uniform(0.6, 0.8)), 1)
    elif kind == "desk":
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        angle = rng.uniform(-0.3, 0.3)
        u = xs * math.sin(angle) + ys * math.cos(angle) + smooth_noise(rng, h, w, 32, 20)
        scene = 0.35 + 0.08 * np.sin(u / rng.uniform(3, 9)) + smooth_noise(rng, h, w, 16, 0.04)
    else:
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        scene = 0.3 + 0.4 * (xs / w) * rng.uniform(0.3, 1) + 0.2 * (ys / h)
        for _ in range(int(rng.integers(4, 12))):  # shapes
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            level = float(rng.uniform(0.05, 0.95))
            if rng.random() < 0.5:
                cv2.rectangle(scene, (x, y), (x + int(rng.integers(30, 400)), y + int(rng.integers(30, 300))), level, -1)
            else:
                cv2.circle(scene, (x, y), int(rng.integers(20, 200)), level, -1)
        for _ in range(int(rng.integers(3, 10))):  # text
            x, y = int(rng.integers(0, w - 100)), int(rng.integers(20, h))
            words = "".join(rng.choice(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "), size=int(rng.integers(5, 20))))
            cv2.putText(scene, words, (x, y), cv2.FONT_HERSHEY_SIMPLEX, rng.uniform(0.5, 2.0),
                        float(rng.uniform(0.0, 1.0)), int(rng.integers(1, 4)))
    return np.clip(scene, 0.02, 0.98).astype(np.float32), kind


def pose(rng, max_tilt, max_roll=180):
    """A rotation: a roll of up to `max_roll` degrees either way, then a tilt of up to `max_tilt` degrees about a
    random in-plane axis."""
    roll = math.radians(rng.uniform(-max_roll, max_roll))
    tilt = math.radians(rng.uniform(0, max_tilt))
    axis = rng.uniform(0, 2 * math.pi)
    rz = np.array([[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0], [0, 0, 1]])
    k = np.array([math.cos(axis), math.sin(axis), 0.0])
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    rt = np.eye(3) + math.sin(tilt) * kx + (1 - math.cos(tilt)) * kx @ kx
    return rt @ rz


def projector(rotation, w, centre, scale):
    """Maps print pixels (relative to the print's centre) to frame pixels: rotate in 3D, then a pinhole camera."""
    focal = 1.2 * w

    def project(points):
        p = np.asarray(points, np.float64) * scale
        xyz = np.column_stack([p, np.zeros(len(p))]) @ rotation.T
        depth = focal + xyz[:, 2]
        return np.column_stack([centre[0] + focal * xyz[:, 0] / depth, centre[1] + focal * xyz[:, 1] / depth])

    return project


def render(rng, scene, code, project, params, w, h):
    """One frame: the labelled code placed on the scene, lit, blurred, exposed, noised, gamma-encoded, 8 bits."""
    ch, cw = code.shape
    src = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
    dst = project(src - np.float32([cw / 2, ch / 2])).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    ink, paper = params["ink"], params["paper"]
    label = ink + (paper - ink) * code
    # Supersampled warp (area-average down), so that small modules are integrated over pixels like a sensor does.
    ss = 2 if params["modulePx"] < 8 else 1
    s = np.diag([ss, ss, 1.0]).astype(np.float64)
    big = (w * ss, h * ss)
    warped = cv2.warpPerspective(label, s @ m, big, flags=cv2.INTER_AREA if ss == 1 else cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=-1)
    mask = cv2.warpPerspective(np.ones_like(label), s @ m, big, flags=cv2.INTER_LINEAR)
    if ss > 1:
        warped = cv2.resize(warped * mask, (w, h), interpolation=cv2.INTER_AREA)
        mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)
        warped = warped / np.maximum(mask, 1e-6)
    reflect = np.where(mask > 0.5, np.clip(warped, 0, 1) * mask + scene * (1 - mask), scene)
    # Light: gradient and vignetting.
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = params["gradient"]
    light = 1 + gx * (xs / w - 0.5) + gy * (ys / h - 0.5)
    r2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / (0.5 * math.hypot(w, h)) ** 2
    light *= 1 - params["vignetting"] * r2
    radiance = reflect * light * params["exposure"]
    # Optics.
    if params["blur"] == "gaussian":
        radiance = cv2.GaussianBlur(radiance, (0, 0), params["sigma"])
    else:
        length = params["motion"]
        size = int(math.ceil(length)) * 2 + 1
        kernel = np.zeros((size, size), np.float32)
        c = size // 2
        a = params["motionAngle"]
        dx, dy = math.cos(a) * length / 2, math.sin(a) * length / 2
        cv2.line(kernel, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1,
                 cv2.LINE_AA)
        kernel /= kernel.sum()
        radiance = cv2.filter2D(radiance, -1, kernel, borderType=cv2.BORDER_REPLICATE)
        radiance = cv2.GaussianBlur(radiance, (0, 0), 0.4)
    # Sensor: shot noise in electrons, read noise, then gamma and 8 bits.
    well = params["fullWell"]
    electrons = rng.poisson(np.clip(radiance, 0, 1.2) * well).astype(np.float32)
    signal = electrons / well + rng.normal(0, params["readNoise"] / 255, radiance.shape).astype(np.float32)
    encoded = 255 * np.power(np.clip(signal, 0, 1), 1 / params["gamma"])
    return np.clip(encoded + 0.5, 0, 255).astype(np.uint8)


# ---- the scene kinds ---------------------------------------------------------------------------------------------


def plan(rng, expected, w, h, print_modules):
    """How the code is shot for a scene of `expected` state: module size, blur and tilt. `print_modules` is the
    print's size in modules (quiet zone and a hybrid code's fingerprint zone included)."""
    p = {"blur": "gaussian", "sigma": rng.uniform(0.3, 0.55), "tilt": 30.0, "modulePx": 8.0}
    # The whole print inside the frame, with room for the roll and the tilt.
    max_module = 0.6 * min(w / print_modules[0], h / print_modules[1])
    if expected == "OK":
        p["modulePx"] = CELLS_PER_MODULE * rng.uniform(2.6, min(5.0, max_module / CELLS_PER_MODULE))
        p["sigma"] = min(p["sigma"], 0.06 * p["modulePx"])  # at most a quarter of a cell
    elif expected == "TOO_SMALL":
        p["modulePx"] = CELLS_PER_MODULE * rng.uniform(0.9, 1.5)
        p["sigma"] = rng.uniform(0.3, 0.7)
        p["tilt"] = 20.0
    elif expected in BLUR_CELLS:
        # Gaussian (sigma) or motion (length) blur, in CDP cells.
        gaussian, motion = BLUR_CELLS[expected]
        p["modulePx"] = CELLS_PER_MODULE * rng.uniform(2.6, min(5.0, max_module / CELLS_PER_MODULE))
        cell = p["modulePx"] / CELLS_PER_MODULE
        if rng.random() < 0.5:
            p["sigma"] = cell * rng.uniform(*gaussian)
        else:
            p["blur"] = "motion"
            p["motion"] = cell * rng.uniform(*motion)
            p["motionAngle"] = rng.uniform(0, math.pi)
    elif expected == "NOT_PROPRIETARY":
        p["modulePx"] = rng.uniform(5, min(14, max_module))
    elif expected == "NO_AUTH":
        p["modulePx"] = rng.uniform(10, min(16, max_module))
    elif expected == "FP_NOT_IN_FRAME":
        p["modulePx"] = CELLS_PER_MODULE * rng.uniform(2.6, 3.6)
        p["tilt"] = 15.0
    p.update({
        "ink": rng.uniform(0.04, 0.15), "paper": rng.uniform(0.8, 0.95),
        "gradient": (rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)), "vignetting": rng.uniform(0.05, 0.35),
        "exposure": rng.uniform(0.6, 1.0), "fullWell": rng.uniform(150, 600), "readNoise": rng.uniform(1, 3),
        "gamma": rng.uniform(1.8, 2.4), "quality": int(rng.integers(60, 91)), "frames": int(rng.integers(10, 41)),
    })
    return p


def make_scene(rng, expected, lumascan, work, index):
    """The frames (JPEG bytes) of one scene, its configuration's design and what it is."""
    w, h = SIZES[int(rng.integers(0, 2))]
    hybrid = False
    code = None
    modules = 0
    quiet = 4  # modules of quiet zone qrencode draws (-m 4)
    origin = (quiet * PRINT_MODULE_PX, quiet * PRINT_MODULE_PX)
    payload = ISSUER + f"S{index:05d}"
    if expected in ("OK", "TOO_SMALL", "BLURRY", "BLURRY_UNDECODABLE"):
        hybrid = bool(rng.random() < 0.3)
        if hybrid and expected != "TOO_SMALL":
            w, h = SIZES[1]  # the wide hybrid label at 2.6-5 px per cell needs a 1080p frame
        code, description = generated_code(lumascan, work, payload, 1000 + index, hybrid=hybrid)
        modules, origin = modules_of(description)
    elif expected == "FP_NOT_IN_FRAME":
        hybrid = True
        code, description = generated_code(lumascan, work, payload, 1000 + index, hybrid=True)
        modules, origin = modules_of(description)
    elif expected == "NO_AUTH":
        if rng.random() < 0.5:
            code, description = generated_code(lumascan, work, payload, 1000 + index, secure_graphic=False)
            modules, origin = modules_of(description)
        else:
            code = qrencode_code(work, payload)
            modules = code.shape[1] // PRINT_MODULE_PX - 2 * quiet
    elif expected == "NOT_PROPRIETARY":
        code = qrencode_code(work, OTHER + f"{index:05d}")
        modules = code.shape[1] // PRINT_MODULE_PX - 2 * quiet
    print_modules = (code.shape[1] / PRINT_MODULE_PX, code.shape[0] / PRINT_MODULE_PX) if code is not None else (41, 41)
    p = plan(rng, expected, w, h, print_modules)
    scene, kind = background(rng, w, h)
    jpegs = []
    middle = None
    if code is None:
        for i in range(p["frames"]):
            frame = render(rng, scene, np.ones((4, 4), np.float32), lambda q: np.asarray(q) * 0 - 100, p, w, h)
            jpegs.append(lsrec.encode_jpeg(frame, p["quality"]))
        return jpegs, hybrid, p, kind, w, h, jpegs[len(jpegs) // 2]
    # A hybrid label (twice as wide as tall) is held roughly level, as it is printed.
    rotation = pose(rng, p["tilt"], 20 if hybrid else 180)
    scale = p["modulePx"] / PRINT_MODULE_PX
    ch, cw = code.shape
    # The QR code's centre in print pixels relative to the print's centre (a hybrid print holds the zone beside it).
    qr_centre_print = np.array([origin[0] + modules / 2 * PRINT_MODULE_PX - cw / 2,
                                origin[1] + modules / 2 * PRINT_MODULE_PX - ch / 2])
    if expected == "FP_NOT_IN_FRAME":
        # The zone to the right (roll within 10 degrees, tilt within 15), the QR code wholly inside the frame with its
        # right edge 1-3 modules from the frame's right edge, so the zone runs off it.
        rotation = pose(rng, p["tilt"], 10)
        at_origin = projector(rotation, w, (0, 0), scale)
        qr_corners = np.float64([[0, 0], [1, 0], [1, 1], [0, 1]]) * modules * PRINT_MODULE_PX + origin
        spots = at_origin(qr_corners - [cw / 2, ch / 2]) - at_origin([qr_centre_print])[0]
        qr_x = w - spots[:, 0].max() - rng.uniform(1, 3) * p["modulePx"]
        low, high = -spots[:, 1].min() + p["modulePx"], h - spots[:, 1].max() - p["modulePx"]
        qr_y = rng.uniform(low, high)
    else:
        # Anywhere the whole print (quiet zone, fingerprint zone) stays in the frame.
        corners = np.float64([[0, 0], [cw, 0], [cw, ch], [0, ch]]) - [cw / 2, ch / 2]
        at_origin = projector(rotation, w, (0, 0), scale)
        spots = at_origin(corners) - at_origin([qr_centre_print])[0]
        low = -spots.min(axis=0) + 3
        high = np.array([w, h]) + -spots.max(axis=0) - 3
        if np.any(high <= low):
            sys.exit(f"eval-secure-qr: scene {index}: the print does not fit the frame ({p['modulePx']:.1f} px/module)")
        qr_x, qr_y = [rng.uniform(a, b) for a, b in zip(low, high)]
    for i in range(p["frames"]):
        shake = rng.normal(0, 0.8, 2)
        zoom = 1 + rng.normal(0, 0.005)
        base = projector(rotation, w, (0, 0), scale * zoom)
        offset = np.array([qr_x, qr_y]) + shake - base([qr_centre_print])[0]
        project = projector(rotation, w, tuple(offset), scale * zoom)
        frame = render(rng, scene, code, project, p, w, h)
        jpeg = lsrec.encode_jpeg(frame, p["quality"])
        jpegs.append(jpeg)
        if i == p["frames"] // 2:
            middle = jpeg
    return jpegs, hybrid, p, kind, w, h, middle


def write_no_code_recording(path, seed, frames=300):
    """A 1080p recording without a code, for `lumascan bench --recognizer secure-qr --input`: six scenes (paper,
    product print, desk, twice) through the same light, optics and sensor, JPEG q85, cycled to `frames` frames."""
    rng = np.random.default_rng(seed)
    w, h = SIZES[1]
    images = []
    for i in range(6):
        while True:
            scene, kind = background(rng, w, h)
            if kind == ["paper", "print", "desk"][i % 3]:
                break
        p = plan(rng, "UNREADABLE", w, h, (41, 41))
        images.append(render(rng, scene, np.ones((4, 4), np.float32), lambda q: np.asarray(q) * 0 - 100, p, w, h))
    jpegs = [lsrec.encode_jpeg(image, 85) for image in images]
    lsrec.write_recording(path, [jpegs[i % len(jpegs)] for i in range(frames)], w, h, fps=30)


def decodable(work, jpeg):
    """Whether a reader of its own decodes the frame at full resolution: zbarimg, else ZXing-C++'s ZXingReader (the
    Debian tools, as a user would run them; not LumaScan's reading)."""
    path = os.path.join(work, "middle.jpg")
    with open(path, "wb") as f:
        f.write(jpeg)
    run = subprocess.run(["zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable", path], capture_output=True)
    if run.returncode == 0 and run.stdout.strip():
        return True
    run = subprocess.run(["ZXingReader", "-format", "QRCode", path], capture_output=True, text=True)
    return run.returncode == 0 and "Text:" in run.stdout


def scan(lumascan, config, recording):
    run = subprocess.run([lumascan, "scan", "--config", config, "--input", recording], capture_output=True, text=True)
    reports = []
    for line in run.stdout.splitlines():
        event = json.loads(line)
        if event.get("event") == "report":
            reports.append(event)
    return reports


def outcome(reports):
    for r in reports:
        if r["reportType"] == "COMPLETED_RESULT":
            return r["state"]
    counts = collections.Counter(r["state"] for r in reports)
    return counts.most_common(1)[0][0] if counts else "-"


def smoothed_outcome(reports):
    for r in reports:
        if r["reportType"] == "COMPLETED_RESULT":
            return r["state"]
    counts = collections.Counter(r.get("guidance", {}).get("steadyState", r["state"]) for r in reports)
    return counts.most_common(1)[0][0] if counts else "-"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lumascan", required=True)
    parser.add_argument("--scenes", type=int, default=20, help="scenes per expected state")
    parser.add_argument("--states", default=",".join(STATES), help="the expected states to simulate")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--keep", help="keep the recordings and configurations in this folder")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--write-no-code", metavar="PATH",
                        help="only write a 300-frame 1080p recording without a code (for lumascan bench) and stop")
    args = parser.parse_args()
    if args.write_no_code:
        write_no_code_recording(args.write_no_code, args.seed)
        return
    for tool in ("qrencode", "zbarimg", "ZXingReader"):
        if not shutil.which(tool):
            sys.exit(f"eval-secure-qr: {tool} is missing (apt-get install qrencode zbar-tools zxing-cpp-tools)")
    rng = np.random.default_rng(args.seed)
    work = args.keep or tempfile.mkdtemp(prefix="eval-secure-qr-")
    os.makedirs(work, exist_ok=True)
    configs = {}
    rows = collections.OrderedDict()
    index = 0
    for expected in args.states.split(","):
        row = rows.setdefault(expected, {"scenes": 0, "right": 0, "smoothed": 0, "frames": 0, "framesRight": 0,
                                         "undecodable": 0, "undecodableOutcomes": collections.Counter(),
                                         "wrong": collections.Counter()})
        for _ in range(args.scenes):
            index += 1
            jpegs, hybrid, p, kind, w, h, middle = make_scene(rng, expected, args.lumascan, work, index)
            key = (hybrid, h)
            if key not in configs:
                configs[key] = os.path.join(work, f"secure-qr-{'hybrid' if hybrid else 'standard'}-{h}p.json")
                with open(configs[key], "w") as f:
                    json.dump(config_document(hybrid, h), f, indent=1)
            recording = os.path.join(work, f"scene-{index:04d}-{expected}.lsrec")
            lsrec.write_recording(recording, jpegs, w, h, fps=15)
            reports = scan(args.lumascan, configs[key], recording)
            got = outcome(reports)
            smoothed = smoothed_outcome(reports)
            state = EXPECTED_STATE.get(expected, expected)
            if expected in ("TOO_SMALL", "BLURRY") and not decodable(work, middle):
                row["undecodable"] += 1
                row["undecodableOutcomes"][got] += 1
                verdict = "not decodable"
            elif expected == "BLURRY_UNDECODABLE" and decodable(work, middle):
                row["undecodable"] += 1
                row["undecodableOutcomes"][got] += 1
                verdict = "decodable"
            else:
                row["scenes"] += 1
                row["right"] += got == state
                row["smoothed"] += smoothed == state
                row["frames"] += len(reports)
                row["framesRight"] += sum(r["state"] == state for r in reports)
                if got != state:
                    row["wrong"][got] += 1
                verdict = "right" if got == state else "WRONG"
            if args.verbose or verdict == "WRONG":
                states = "".join(r["state"][0] if r["state"] != "NO_AUTH" else "A" for r in reports)
                detail = f"{p['blur']} σ {p['sigma']:.2f}" if p["blur"] == "gaussian" else f"motion {p['motion']:.1f}"
                size = "no code" if expected == "UNREADABLE" else f"{p['modulePx'] / CELLS_PER_MODULE:.2f} px/cell"
                print(f"scene {index:4d} {expected:15s} {w}x{h} {kind:5s} {'hybrid ' if hybrid else ''}"
                      f"{size} {detail} q{p['quality']}: {got} "
                      f"(smoothed {smoothed}; {verdict}) {states}", flush=True)
            if not args.keep:
                os.remove(recording)
    print()
    print("| expected | per scene | smoothed per scene | per frame | set apart (outcomes) |")
    print("|---|---|---|---|---|")
    for expected, row in rows.items():
        n = row["scenes"]
        frames = row["frames"]
        scene_rate = f"{row['right']}/{n} ({100 * row['right'] / n:.1f} %)" if n else "-"
        smoothed_rate = f"{row['smoothed']}/{n}" if n else "-"
        frame_rate = f"{100 * row['framesRight'] / frames:.1f} % of {frames}" if frames else "-"
        undecodable = row["undecodable"]
        outcomes = ", ".join(f"{k} {v}" for k, v in row["undecodableOutcomes"].most_common())
        print(f"| {expected} | {scene_rate} | {smoothed_rate} | {frame_rate} | {undecodable} ({outcomes}) |")
        if row["wrong"]:
            print(f"|   wrong outcomes | {', '.join(f'{k} {v}' for k, v in row['wrong'].most_common())} | | | |")


if __name__ == "__main__":
    sys.exit(main())
