#!/usr/bin/env python3
"""scripts/oracles/photo_oracle.py — photos for the store's tests, made and read by independent tools.

Usage:
  photo_oracle.py make jpeg|png OUT   a 640x480 photo (Pillow) with what a phone puts in one (exiftool):
                                      GPS position, camera make, model and serial, orientation 6, XMP
                                      creator, a comment (JPEG) or text chunk (PNG)
  photo_oracle.py bomb OUT            a PNG that claims 20000x20000 pixels: 400 MB of zeros in ~400 kB
  photo_oracle.py inspect FILE...     JSON per file: exiftool's tags (-G1 -n) and Pillow's decoded size,
                                      mode and a SHA-256 of its pixels

Needs Pillow (PyPI) and exiftool (Debian's libimage-exiftool-perl): `scripts/setup --test` installs both.
"""
import hashlib
import json
import random
import struct
import subprocess
import sys
import zlib

from PIL import Image


def make(kind, out):
    rng = random.Random(2026)
    image = Image.new("RGB", (640, 480))
    image.putdata([(rng.randrange(256), (x * 7) % 256, (x // 640) % 256) for x in range(640 * 480)])
    image.save(out, "JPEG" if kind == "jpeg" else "PNG", **({"quality": 90} if kind == "jpeg" else {}))
    tags = [
        "-GPSLatitude=48.2082", "-GPSLatitudeRef=N", "-GPSLongitude=16.3738", "-GPSLongitudeRef=E",
        "-Make=Handoff Phone", "-Model=HP-1", "-SerialNumber=SN123456", "-Orientation#=6",
        "-XMP-dc:Creator=Ada", "-XMP-dc:Description=Home street",
    ]
    tags.append("-Comment=Taken at home" if kind == "jpeg" else "-PNG:Comment=Taken at home")
    subprocess.run(["exiftool", "-q", "-overwrite_original"] + tags + [out], check=True)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def bomb(out):
    side = 20000
    compressor = zlib.compressobj(9)
    row = b"\x00" * (side + 1)
    data = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    with open(out, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", data))
        f.write(chunk(b"IEND", b""))


def inspect(files):
    tags = json.loads(subprocess.run(["exiftool", "-j", "-G1", "-n"] + files, check=True, capture_output=True).stdout)
    result = []
    for path, found in zip(files, tags):
        with Image.open(path) as image:
            image.load()
            pixels = hashlib.sha256(image.tobytes()).hexdigest()
            result.append({"file": path, "tags": found, "size": list(image.size), "mode": image.mode,
                           "pixels_sha256": pixels})
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make" and sys.argv[2] in ("jpeg", "png"):
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "bomb":
        bomb(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "inspect":
        inspect(sys.argv[2:])
    else:
        sys.exit(__doc__)
