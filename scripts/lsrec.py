"""Writes LumaScan recordings (.lsrec, README "Recording format") of MJPG frames, as a USB camera delivers them, for
the evaluation scripts that replay scenes through `lumascan scan --input` (eval-meter.py, eval-secure-qr.py)."""

import struct

import cv2


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
