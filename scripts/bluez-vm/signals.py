"""scripts/bluez-vm/signals.py — the virtual sensors' deterministic measurement script.

Pure functions, no Bumble: peripherals.py sends these payloads and the checkers recompute them
to verify what reached the guest. Measurement n (n = 0, 1, 2, … per device, counting sent
notifications, continuing across reconnections and dropouts) is a function of n alone.

Heart Rate Measurement (0x2A37), flags byte then fields in order:
  bit0 HR format (0: uint8, 1: uint16) — uint16 every 20th (n % 20 == 19)
  bit1-2 sensor contact: 0b11 = supported and detected — always
  bit3 energy expended present (uint16 kJ) — every 10th (n % 10 == 9), value 100 + n // 2
  bit4 RR intervals present (uint16 each, 1/1024 s) — always: one, or two when n % 3 == 2
  heart rate = 120 + (n * 7 % 41) bpm; RR = round(60 * 1024 / hr) (two: RR - 5, RR + 5)

RSC Measurement (0x2A53), flags 0x07 (stride length + total distance present, running):
  speed uint16 in 1/256 m/s = round((3.0 + 0.5 * sin(n / 10)) * 256)
  cadence uint8 in 1/min = 170 + n % 11
  stride length uint16 in 1/100 m = round(speed_m_s * 60 / cadence * 100)
  total distance uint32 in 1/10 m = floor(10 * sum of speed_m_s for k = 0..n), i.e. one
  second of running per measurement (the distance therefore also depends on n only).
"""

import math
import struct

HR_ADDRESS = "F0:F0:F0:00:00:01"
FOOTPOD_ADDRESS = "F0:F0:F0:00:00:02"
GUEST_CONTROLLER_ADDRESS = "F0:F0:F0:00:00:10"


def heart_rate(n: int) -> int:
    return 120 + (n * 7) % 41


def rr_intervals(n: int) -> list[int]:
    rr = round(60 * 1024 / heart_rate(n))
    return [rr - 5, rr + 5] if n % 3 == 2 else [rr]


def hr_measurement(n: int) -> bytes:
    hr = heart_rate(n)
    wide = n % 20 == 19
    energy = n % 10 == 9
    flags = 0x06 | 0x10 | (0x01 if wide else 0) | (0x08 if energy else 0)
    out = bytearray([flags])
    out += struct.pack("<H", hr) if wide else bytes([hr])
    if energy:
        out += struct.pack("<H", 100 + n // 2)
    for rr in rr_intervals(n):
        out += struct.pack("<H", rr)
    return bytes(out)


def rsc_speed_raw(n: int) -> int:
    return round((3.0 + 0.5 * math.sin(n / 10)) * 256)


def rsc_cadence(n: int) -> int:
    return 170 + n % 11


def rsc_total_distance_dm(n: int) -> int:
    # Sum in exact 1/256 m units, floor at the end: no drift from float rounding.
    return sum(rsc_speed_raw(k) for k in range(n + 1)) * 10 // 256


def rsc_measurement(n: int) -> bytes:
    speed_raw = rsc_speed_raw(n)
    cadence = rsc_cadence(n)
    stride_cm = round(speed_raw / 256 * 60 / cadence * 100)
    return struct.pack("<BHBHI", 0x07, speed_raw, cadence, stride_cm, rsc_total_distance_dm(n))


def measurement(device: str, n: int) -> bytes:
    return hr_measurement(n) if device == "hr" else rsc_measurement(n)


# Malformed payloads the "malformed" control action sends (logged with "n": null).
MALFORMED = {
    "hr": {
        # Flags say uint16 heart rate, but the value stops after the flags byte.
        "truncated": bytes([0x01]),
        # Flags promise energy expended and RR intervals; only the uint8 heart rate follows.
        "flags_overrun": bytes([0x16 | 0x08, 130]),
        "empty": b"",
    },
    "footpod": {
        # Flags promise stride and distance; the speed field itself is cut short.
        "truncated": bytes([0x07, 0x00]),
        # Speed and cadence present, stride length and total distance missing.
        "flags_overrun": struct.pack("<BHB", 0x07, 768, 172),
        "empty": b"",
    },
}
