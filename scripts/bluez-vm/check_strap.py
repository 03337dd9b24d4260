#!/usr/bin/env python3
"""scripts/bluez-vm/check_strap.py — host-side verdict on the `strap` scenario.

Usage: check_strap.py RESULTS_DIR   (run by `run strap`; exit status 0 = pass)

The pack's own binaries ran in the guest against the real kernel Bluetooth stack and a virtual
Zephyr HxM on BR/EDR. This compares what they recorded (journal, capture, JSON output, HCI trace)
with what the strap sent (sent.jsonl), for issue 5's acceptance:

  * `handoff scan --classic` finds the strap by inquiry: name, class of device, protocol;
  * `handoff pair ADDRESS --as zephyr-hxm` paired the strap by address: its RFCOMM channel came
    from an SDP query (the trace holds the SDP channel, then RFCOMM on the channel the record
    names), the kernel's PIN request was answered by handoffd with the HxM's PIN;
  * every frame the pack took is one the strap sent, in order, none doubled; none was lost
    while the link was up;
  * every recorded second's heart rate is the latest frame's (fresh within 3 s), nothing
    invented; the run's RR intervals are exactly those the frames' beat timestamps give
    (decoded here independently: CRC-8/MAXIM, the General Data Packet layout);
  * the strap drops out for 15 s: the link times out after the 4 s supervision timeout handoffd
    set, the run has a gap with gap and link events, handoffd pages the strap (name requests,
    no sockets) until it answers, and heart rate comes back; the guest kernel stays healthy.
"""

import math
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict import RESULTS, check, expected_points, finish, load_json, load_lines, read_text  # noqa: E402

HXM = "F0:F0:F0:00:00:03"


# --- An independent decoder (Zephyr HxM BT API guide: General Data Packet 0x26) -----------------
def crc8(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8C if crc & 1 else crc >> 1
    return crc


def decode_frame(frame: bytes):
    """{'hr', 'beat', 'times', 'battery'} or None when it is not a valid General Data frame."""
    if len(frame) != 60 or frame[0] != 0x02 or frame[1] != 0x26 or frame[2] != 55 or frame[59] != 0x03:
        return None
    data = frame[3:58]
    if crc8(data) != frame[58]:
        return None
    times = [data[11 + 2 * i] | data[12 + 2 * i] << 8 for i in range(15)]
    return {"battery": data[8], "hr": data[9], "beat": data[10], "times": times}


def new_rr(frame, previous) -> list[int]:
    """RR intervals (ms) of the beats new since `previous`, oldest first."""
    if previous is None:
        return []
    count = (frame["beat"] - previous["beat"]) % 256
    if count == 0:
        return []
    if count < 15 and frame["times"][count] != previous["times"][0]:
        return []  # the beats do not continue the previous frame's
    count = min(count, 14)
    return [(frame["times"][i] - frame["times"][i + 1]) % 65536 for i in range(count - 1, -1, -1)]


sent = load_lines("sent.jsonl")
capture = load_lines("capture.jsonl")
pair = load_json("pair-hxm.json") or {}
sensors = load_json("sensors.json") or []
status = load_json("status.json") or {}
log_text = read_text("handoffd.log")
hci = read_text("hci.txt")

# --- Discovery and pairing ---------------------------------------------------------------------
inquiry = load_json("scan-classic.json") or []
strap = next((d for d in inquiry if d.get("address") == HXM), {})
check(strap.get("name") == "HXM026001" and strap.get("address_type") == "bredr",
      f"handoff scan --classic found the strap by inquiry, with its name ({strap.get('name')!r})")
check(strap.get("class_of_device") == "0x000918 (health, heart/pulse rate monitor)",
      f"… with its class of device ({strap.get('class_of_device')!r})")
check(strap.get("profile") == "zephyr-hxm" and strap.get("kind") == "heart_rate",
      "… and took it for a Zephyr HxM heart-rate strap")
check(pair.get("address") == HXM and pair.get("address_type") == "bredr" and pair.get("profile") == "zephyr-hxm",
      "handoff pair paired the strap by address as a Zephyr HxM")
check("rfcomm_channel" not in pair, "no channel was configured: it comes from SDP on each connection")
sent_frames = [e for e in sent if e.get("device") == "hxm" and "hex" in e]
first = decode_frame(bytes.fromhex(sent_frames[0]["hex"])) if sent_frames else None
check(first is not None and all(decode_frame(bytes.fromhex(e["hex"])) for e in sent_frames),
      f"the strap's {len(sent_frames)} frames decode here (CRC-8, layout)")
check(pair.get("battery_percent") is not None and pair.get("manufacturer") == "Zephyr" and pair.get("model") == "HxM",
      f"pairing read a frame: battery {pair.get('battery_percent')} %, Zephyr HxM")
check(bool(pair.get("name")), f"pairing asked the strap's name ({pair.get('name')!r})")
check(len(sensors) == 1 and sensors[0].get("link") == "connected", "handoff sensors lists the strap, connected")
check("PSM: 1 (SDP)" in hci or "PSM: 1 " in hci, "the trace holds an SDP channel (L2CAP PSM 1)")
check("PSM: 3 (RFCOMM)" in hci or "PSM: 3 " in hci, "the trace holds an RFCOMM channel (L2CAP PSM 3)")
channels = [e.get("channel") for e in sent if e.get("device") == "hxm" and e.get("event") == "dlc_open"]
check(bool(channels) and all(c == 5 for c in channels),
      f"every RFCOMM connection went to channel 5, the one the SDP record names ({channels})")
check("PIN Code Request Reply" in hci, "the kernel's PIN request was answered (PIN Code Request Reply in the trace)")
check("PIN request" in log_text, "handoffd says it answered the strap's PIN request")

# --- What was sent, what the pack took ---------------------------------------------------------
taken = [e for e in capture if e.get("sensor") == HXM and e.get("kind") == "hxm"]
sent_hex = [e["hex"] for e in sent_frames]
position, in_order = 0, True
for e in taken:
    try:
        position = sent_hex.index(e["hex"], position) + 1
    except ValueError:
        in_order = False
        break
check(len(taken) > 0 and in_order, f"all {len(taken)} frames the pack took are the strap's, in order, none doubled")
# Frames sent while the link was up all arrived: everything sent from the first frame taken to
# the last, except while out of range.
if taken:
    i0, i1 = sent_hex.index(taken[0]["hex"]), sent_hex.index(taken[-1]["hex"])
    dropout = [e["t"] for e in sent if e.get("device") == "hxm" and e.get("event") in ("dropout_start", "dropout_end")]
    expected = [h for e, h in zip(sent_frames[i0:i1 + 1], sent_hex[i0:i1 + 1])
                if not (len(dropout) == 2 and dropout[0] - 1 <= e["t"] <= dropout[1] + 10)]
    got = set(e["hex"] for e in taken)
    lost = [h for h in expected if h not in got]
    check(not lost, f"no frame was lost while the link was up ({len(lost)} lost of {len(expected)})")

# --- The journal -------------------------------------------------------------------------------
db = sqlite3.connect(os.path.join(RESULTS, "handoff.sqlite"))
sessions = db.execute("SELECT id, start_mono_ns, state FROM session ORDER BY id").fetchall()
check(len(sessions) == 1 and sessions[0][2] == "finished", "the journal holds one finished run")
commands = [e for e in capture if e.get("kind") == "command"]
stops = [e["mono_ns"] for e in commands if e["command"] == "stop"]
sensor_id = dict(db.execute("SELECT key, id FROM sensor").fetchall()).get(HXM)
if sessions and stops:
    sid, start, _ = sessions[0]
    stop = stops[0]
    rows = db.execute("SELECT elapsed_s, hr_bpm FROM point WHERE session_id = ? ORDER BY elapsed_s", (sid,)).fetchall()
    wanted = expected_points(capture, HXM, ("hxm",), start, [r[0] for r in rows],
                             lambda b: (decode_frame(b) or {}).get("hr"))
    bad = [(elapsed, hr, want) for (elapsed, hr), want in zip(rows, wanted) if hr != want]
    check(105 <= len(rows) <= 120, f"the run recorded about 110 seconds ({len(rows)} points)")
    check(sum(1 for _, hr in rows[:60] if hr is not None) >= 58, "heart rate in nearly every second of the first minute")
    check(not bad, "every second's heart rate is the latest frame's, nothing invented"
          + (f" (first mismatches, second/recorded/expected: {bad[:5]})" if bad else ""))
    # RR: the pipeline sees every frame in capture order, also before the run started.
    rr_expected, previous = [], None
    for e in taken:
        frame = decode_frame(bytes.fromhex(e["hex"]))
        rr = new_rr(frame, previous)
        previous = frame
        if start <= e["mono_ns"] <= stop:
            rr_expected += [math.floor(ms * 1.024 + 0.5) for ms in rr]
    rr_db = [r[0] for r in db.execute("SELECT rr_1024 FROM rr_interval WHERE session_id = ? ORDER BY offset_ns, seq",
                                       (sid,)).fetchall()]
    check(len(rr_db) > 100 and rr_db == rr_expected,
          f"the run's {len(rr_db)} RR intervals are those the frames' beat timestamps give ({len(rr_expected)} expected)")
    best = run = 0
    for _, hr in rows:
        run = run + 1 if hr is None else 0
        best = max(best, run)
    check(12 <= best <= 30, f"the 15 s dropout left a gap in heart rate of about that length ({best} s)")
    kinds = [k for (k,) in db.execute("SELECT kind FROM event WHERE session_id = ? AND sensor_id = ? ORDER BY offset_ns",
                                       (sid, sensor_id)).fetchall()]
    check("gap_start" in kinds and "gap_end" in kinds and "disconnected" in kinds and "connected" in kinds,
          f"the gap and the link changes are events of the run ({kinds})")
    check(sum(1 for _, hr in rows[-30:] if hr is not None) >= 25, "heart rate was recorded again after the dropout")
    reasons = [e.get("reason") for e in capture if e.get("sensor") == HXM and e.get("kind") == "link"
               and e.get("state") == "disconnected"]
    check(bool(reasons) and any("supervision timeout" in r for r in reasons if r),
          f"the link loss was reported as a supervision timeout ({reasons[:2]})")
check("Write Link Supervision Timeout" in hci and "Timeout: 4000.000 msec" in hci,
      "handoffd set each classic link's supervision timeout to 4 s (the BR/EDR default is 20 s)")
dmesg = read_text("dmesg.txt")
check(not any(bad in dmesg for bad in ("list_del corruption", "Oops", "BUG:", "general protection")),
      "the guest kernel stayed healthy (no oops or list corruption in dmesg)")
hxm_status = next((s for s in status.get("sensors", []) if s.get("id") == HXM), {})
check(hxm_status.get("rejected", 0) == 0, "no frame was rejected")

sys.exit(finish("check_strap"))
