"""Writes LumaScan recordings (.lsrec, README "Recording format") of MJPG frames, as a USB camera delivers them, for
the evaluation scripts that replay scenes through `lumascan scan --input` (eval-meter.py, eval-meter-digital.py,
eval-secure-qr.py), and the meter evaluations' shared steps: a scene's camera frames, the replay's readings, and the
digits a reading got right."""

import json
import math
import os
import struct
import subprocess

import cv2
import numpy as np


def encode_jpeg(grey, quality):
    """An 8-bit grey frame as the JPEG bytes a camera would send (colour JPEG, as MJPG cameras deliver)."""
    ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return jpeg.tobytes()


def write_recording(path, jpegs, width, height, fps=10):
    """A finished recording of `jpegs` (width x height MJPG frames), captured `fps` frames a second."""
    largest = max(len(j) for j in jpegs)
    header = b"LSREC\r\n\x1a" + struct.pack("<HHIIIIIII", 1, 40, int.from_bytes(b"MJPG", "little"), width, height,
                                           0, largest, len(jpegs), largest)
    assert len(header) == 40
    with open(path, "wb") as f:
        f.write(header)
        for i, jpeg in enumerate(jpegs):
            f.write(b"LSFR" + struct.pack("<IQII", 0, i * 1_000_000_000 // fps, i, len(jpeg)))
            f.write(jpeg)


def read_frames(path):
    """The JPEG frames of a recording written by write_recording (or by `lumascan record`), in order."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"LSREC\r\n\x1a":
        raise ValueError(f"{path}: not a LumaScan recording")
    offset = struct.unpack_from("<H", data, 10)[0]  # the header's length
    frames = []
    while offset + 24 <= len(data):
        if data[offset:offset + 4] != b"LSFR":
            raise ValueError(f"{path}: no frame at byte {offset}")
        length = struct.unpack_from("<I", data, offset + 20)[0]
        frames.append(data[offset + 24:offset + 24 + length])
        offset += 24 + length
    return frames


def camera_frames(rng, frame, noise, quality, count):
    """`count` JPEG frames of one scene (float32 grey), as a camera held still delivers them: each moved by up to a
    pixel, with its own sensor noise (standard deviation `noise`), at JPEG `quality`."""
    height, width = frame.shape[:2]
    out = []
    for _ in range(count):
        m = np.float32([[1, 0, rng.uniform(-1, 1)], [0, 1, rng.uniform(-1, 1)]])
        f = cv2.warpAffine(frame, m, (width, height), borderMode=cv2.BORDER_REPLICATE)
        f = f + np.random.default_rng(rng.randrange(1 << 30)).normal(0, noise, f.shape)
        out.append(encode_jpeg(np.clip(f, 0, 255).astype(np.uint8), quality))
    return out


def verdict(truth, completed):
    """The verdict on one recording (the evaluations' and replay-meter.py's): "exact" when its first COMPLETED_RESULT
    `completed` equals `truth`, "misread" when it differs, "no result" without one; for a scene without a meter
    (`truth` None), "none", or "false" when anything completed."""
    if truth is None:
        return "none" if completed is None else "false"
    if completed is None:
        return "no result"
    return "exact" if completed == truth else "misread"


def write_truths(folder, entries):
    """With --keep, the truth of each kept recording, for scripts/replay-meter.py: `entries` are (recording's file
    name, truth or None for a scene without a meter, style) and go to FOLDER/truth.txt, one a line."""
    with open(os.path.join(folder, "truth.txt"), "w") as f:
        for name, truth, style in entries:
            f.write(f"{name} {truth if truth is not None else '-'} {style}\n")


def read_truths(folder):
    """FOLDER/truth.txt (write_truths) as (recording's path, truth or None, style) tuples."""
    entries = []
    with open(os.path.join(folder, "truth.txt")) as f:
        for line in f:
            name, truth, style = line.split()
            entries.append((os.path.join(folder, name), None if truth == "-" else truth, style))
    return entries


def scan_readings(lumascan, config, recording):
    """Replays `recording` through `lumascan scan --config config`: the first COMPLETED_RESULT's text (None without
    one) and the last partial reading."""
    run = subprocess.run([lumascan, "scan", "--config", config, "--input", recording], capture_output=True, text=True)
    completed, partial = None, ""
    for line in run.stdout.splitlines():
        event = json.loads(line)
        if event.get("event") != "report":
            continue
        if event.get("reportType") == "COMPLETED_RESULT" and completed is None:
            completed = event.get("text", "")
        elif event.get("text"):
            partial = event["text"]
    return completed, partial


def digits_right(truth, read):
    """Digits of the truth matched in a minimal alignment (edit distance) with the reading's digits."""
    a, b = "".join(c for c in truth if c.isdigit()), "".join(c for c in read if c.isdigit())
    cost = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        cost[i][0] = i
    for j in range(len(b) + 1):
        cost[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost[i][j] = min(cost[i - 1][j] + 1, cost[i][j - 1] + 1, cost[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
    return max(0, len(a) - cost[len(a)][len(b)])


def perspective(rng, frame, corners, target_w, max_yaw, max_pitch, max_roll):
    """The scene (float32 grey) seen by a camera turned up to `max_yaw` degrees of yaw, `max_pitch` of pitch and
    `max_roll` of roll either way (a third of the scenes straight on, or nearly: a sixth of the yaw and pitch drawn),
    about the centre of `corners` (the object's four corners, clockwise from the top left), and scaled so that the
    object is `target_w` pixels wide as seen."""
    yaw, pitch, roll = (math.radians(rng.uniform(-max_yaw, max_yaw)), math.radians(rng.uniform(-max_pitch, max_pitch)),
                        math.radians(rng.uniform(-max_roll, max_roll)))
    if rng.random() < 0.3:  # a third straight on, or nearly
        yaw, pitch = yaw / 6, pitch / 6
    f = 1100.0
    height, width = frame.shape[:2]
    centre = corners.mean(axis=0)
    ry = np.array([[math.cos(yaw), 0, math.sin(yaw)], [0, 1, 0], [-math.sin(yaw), 0, math.cos(yaw)]])
    rx = np.array([[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)], [0, math.sin(pitch), math.cos(pitch)]])
    rz = np.array([[math.cos(roll), -math.sin(roll), 0], [math.sin(roll), math.cos(roll), 0], [0, 0, 1]])
    r = rz @ rx @ ry

    def project(points):
        out = []
        for x, y in points:
            p = r @ np.array([x - centre[0], y - centre[1], 0.0]) + np.array([0, 0, f])
            out.append([centre[0] + f * p[0] / p[2], centre[1] + f * p[1] / p[2]])
        return np.float32(out)

    src = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    dst = project(src)
    seen = project(corners)
    seen_w = float(np.linalg.norm(((seen[1] + seen[2]) - (seen[0] + seen[3])) / 2))
    k = target_w / seen_w
    dst = (dst - centre) * k + centre
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(frame, m, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
