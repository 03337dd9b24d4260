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

Zephyr HxM General Data Packet (classic strap "hxm", one frame a second over RFCOMM), 60 bytes:
  02 26 37 <55 payload bytes> <CRC-8> 03 — STX, message id 0x26, payload length 0x37, ETX.
  CRC-8 over the 55 payload bytes only: crc = 0; for each byte: crc ^= b, then 8 times
  crc = (crc >> 1) ^ 0x8C if crc & 1 else crc >> 1.
  Frame n is sent at strap clock C(n) = 40 000 + 1000 * n ms (unwrapped; the strap has been on
  for 40 s, so the 16-bit timestamps wrap at 65 536 ms during a half-minute test).
  Payload offsets (u16 little-endian):
  @0  firmware id 9500           @2-3 firmware version "1f"   @4 hardware id 7800
  @6-7 hardware version "1d"     @8 battery % = max(10, 80 - n // 600) (1 % per 10 min)
  @9  heart rate bpm hr(n) = round(150 + 14 * sin(n / 20) + 6 * sin(n / 7)), within 130…170
  @10 heart beat number = (200 + index of the newest beat) mod 256 — wraps during a test
  @11…40 the newest 15 beat times, newest first, each mod 65 536 ms. Beats: the first at
      T_0 = 30 000 ms, then T_(k+1) = T_k + round(60 000 / hr(m)) where m is the frame whose
      second holds T_k (m = max(0, ceil((T_k - 40 000) / 1000))): every beat interval follows
      the HR of its frame. Frame n lists the beats with T_k <= C(n) (2–3 new ones a frame).
  @41…46 reserved, zero
  @47 distance in 1/16 m, mod 65 536 (wraps at 4096 m) = (64 000 + floor(sum of speed(k) / 16
      for k = 0..n)) mod 65 536: starts at 4000 m and wraps after ~30 s of running
  @49 instantaneous speed in 1/256 m/s: speed(n) = round((3.0 + 0.4 * sin(n / 15)
      + 0.1 * sin(n / 4)) * 256)
  @51 strides mod 256 = 230 + floor(sum of (140 + (7k mod 11) - 5) for k = 0..n / 100):
      ~1.4 strides a second (168 steps/min), wraps during a test
  @52 reserved, zero; @53-54 reserved, zero (cadence on some firmware; unreliable on id 26)
  hxm_expected(n) lists these values; hxm_frame(n) builds the bytes; hxm_parse checks a frame.
"""

import bisect
import math
import struct

HR_ADDRESS = "F0:F0:F0:00:00:01"
FOOTPOD_ADDRESS = "F0:F0:F0:00:00:02"
HXM_ADDRESS = "F0:F0:F0:00:00:03"
HXM_NAME = "HXM026001"
HXM_PIN = "1234"
HXM_RFCOMM_CHANNEL = 5
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
    if device == "hxm":
        return hxm_frame(n)
    return hr_measurement(n) if device == "hr" else rsc_measurement(n)


# --- Zephyr HxM (classic, RFCOMM) -----------------------------------------------------------
HXM_FIRMWARE_ID, HXM_FIRMWARE_VERSION = 9500, b"1f"
HXM_HARDWARE_ID, HXM_HARDWARE_VERSION = 7800, b"1d"
HXM_CLOCK0_MS = 40_000      # strap clock at frame 0
HXM_FIRST_BEAT_MS = 30_000  # the first beat the script generates (15 s of history at frame 0)
HXM_BEAT_NUMBER0 = 200      # heart beat number of that first beat
HXM_DISTANCE0 = 64_000      # 1/16 m: 4000 m
HXM_STRIDES0 = 230


def hxm_crc8(payload: bytes) -> int:
    crc = 0
    for b in payload:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8C if crc & 1 else crc >> 1
    return crc


def hxm_heart_rate(n: int) -> int:
    return round(150 + 14 * math.sin(n / 20) + 6 * math.sin(n / 7))


def hxm_speed_raw(n: int) -> int:
    return round((3.0 + 0.4 * math.sin(n / 15) + 0.1 * math.sin(n / 4)) * 256)


def hxm_clock_ms(n: int) -> int:
    return HXM_CLOCK0_MS + 1000 * n


_hxm_beats: list[int] = [HXM_FIRST_BEAT_MS]  # beat times (ms, unwrapped), grown on demand


def _hxm_beats_until(t_ms: int) -> int:
    """Grows the beat list past t_ms; returns how many beats have T_k <= t_ms."""
    while _hxm_beats[-1] <= t_ms:
        last = _hxm_beats[-1]
        frame = max(0, -(-(last - HXM_CLOCK0_MS) // 1000))  # ceil, frames before 0 use hr(0)
        _hxm_beats.append(last + round(60_000 / hxm_heart_rate(frame)))
    return bisect.bisect_right(_hxm_beats, t_ms)


def hxm_expected(n: int) -> dict:
    """What frame n says, decoded: the values a checker compares a received frame with."""
    count = _hxm_beats_until(hxm_clock_ms(n))
    newest = count - 1
    timestamps = [(_hxm_beats[newest - i] % 65536) if newest - i >= 0 else 0 for i in range(15)]
    distance = (HXM_DISTANCE0 + sum(hxm_speed_raw(k) for k in range(n + 1)) // 16) % 65536
    strides = (HXM_STRIDES0 + sum(140 + (7 * k) % 11 - 5 for k in range(n + 1)) // 100) % 256
    return {
        "firmware_id": HXM_FIRMWARE_ID, "firmware_version": HXM_FIRMWARE_VERSION.decode(),
        "hardware_id": HXM_HARDWARE_ID, "hardware_version": HXM_HARDWARE_VERSION.decode(),
        "battery": max(10, 80 - n // 600),
        "hr": hxm_heart_rate(n),
        "beat_number": (HXM_BEAT_NUMBER0 + newest) % 256,
        "timestamps": timestamps,
        "distance": distance,
        "speed": hxm_speed_raw(n),
        "strides": strides,
    }


def hxm_payload(values: dict) -> bytes:
    p = bytearray(55)
    struct.pack_into("<H2sH2sBBB", p, 0, values["firmware_id"], values["firmware_version"].encode(),
                     values["hardware_id"], values["hardware_version"].encode(),
                     values["battery"], values["hr"], values["beat_number"])
    struct.pack_into("<15H", p, 11, *values["timestamps"])
    struct.pack_into("<HHB", p, 47, values["distance"], values["speed"], values["strides"])
    return bytes(p)


def hxm_frame(n: int) -> bytes:
    payload = hxm_payload(hxm_expected(n))
    return bytes([0x02, 0x26, 0x37]) + payload + bytes([hxm_crc8(payload), 0x03])


def hxm_parse(frame: bytes) -> dict:
    """Decodes one 60-byte General Data Packet; raises ValueError when framing or CRC is wrong."""
    if len(frame) != 60 or frame[:3] != bytes([0x02, 0x26, 0x37]) or frame[59] != 0x03:
        raise ValueError(f"not an HxM general data packet: {frame.hex()}")
    payload = frame[3:58]
    if hxm_crc8(payload) != frame[58]:
        raise ValueError(f"CRC 0x{frame[58]:02X}, computed 0x{hxm_crc8(payload):02X}")
    fw, fwv, hw, hwv, battery, hr, beat = struct.unpack_from("<H2sH2sBBB", payload, 0)
    distance, speed, strides = struct.unpack_from("<HHB", payload, 47)
    return {
        "firmware_id": fw, "firmware_version": fwv.decode("ascii"),
        "hardware_id": hw, "hardware_version": hwv.decode("ascii"),
        "battery": battery, "hr": hr, "beat_number": beat,
        "timestamps": list(struct.unpack_from("<15H", payload, 11)),
        "distance": distance, "speed": speed, "strides": strides,
        "reserved_zero": payload[41:47] == bytes(6) and payload[52:55] == bytes(3),
    }


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
