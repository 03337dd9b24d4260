#!/usr/bin/env python3
"""scripts/bluez-vm/check_pack.py — host-side verdict on the `pack` scenario.

Usage: check_pack.py RESULTS_DIR   (run by `run pack`; exit status 0 = pass)

The pack's own binaries ran in the guest against the real kernel Bluetooth stack. This compares
what they recorded (the journal handoff.sqlite, the capture capture.jsonl, their JSON output)
with what the virtual peripherals sent (sent.jsonl, host clock), for issue 4's acceptance:

  * `handoff scan` listed the strap and the footpod by name, kind and address;
    `handoff pair` paired both; `handoff sensors` lists them connected with battery and
    device information;
  * session 1 (60 s): every heart-rate and footpod notification sent reached the pack, in
    order, none lost or doubled; the run's RR intervals are exactly those the strap sent while
    recording, in order; every recorded second's heart rate and cadence is the value of the
    latest notification before that second (fresh within 3 s), and nothing else;
  * session 2: the strap vanishes for 20 s: the run has a gap of about 20 s in heart rate
    (no invented value), marked by gap and link events, and heart rate resumes within 5 s of
    the strap's return; the same for the footpod;
  * malformed notifications (truncated, flags promising more bytes than sent, empty) arrived,
    were counted as rejected and logged at debug level, never recorded, and handoffd kept going;
  * the kernel created every link with the LE defaults handoffd set through mgmt (intervals up
    to 1 s, so that straps' parameter requests are accepted; a 4 s supervision timeout).
"""

import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict import RESULTS, check, expected_points, finish, load_json, load_lines, read_text  # noqa: E402

REJECTED = object()  # a value the pack's codec must refuse


# --- Independent decoders (Heart Rate Service 1.0 §3.1, RSC Service 1.0 §3.1) -------------------
def decode_hrm(data: bytes):
    """(bpm, [rr]) or None when the value is malformed."""
    if len(data) < 2:
        return None
    flags, i = data[0], 1
    if flags & 0x01:
        if len(data) < 3:
            return None
        bpm, i = data[1] | data[2] << 8, 3
    else:
        bpm, i = data[1], 2
    if flags & 0x08:
        if len(data) < i + 2:
            return None
        i += 2
    rr = []
    if flags & 0x10:
        rest = data[i:]
        if len(rest) % 2:
            return None
        rr = [rest[k] | rest[k + 1] << 8 for k in range(0, len(rest), 2)]
    contact_supported, contact = flags & 0x04, flags & 0x02
    plausible = bpm > 0 and not (contact_supported and not contact)
    return bpm if plausible else None, rr


def decode_rsc(data: bytes):
    if len(data) < 4:
        return None
    flags = data[0]
    need = 4 + (2 if flags & 0x01 else 0) + (4 if flags & 0x02 else 0)
    if len(data) < need:
        return None
    return data[3]  # cadence


sent = load_lines("sent.jsonl")
capture = load_lines("capture.jsonl")
scan = load_json("scan.json") or []
sensors = load_json("sensors.json") or []
status = load_json("status.json") or {}
pairs = [load_json("pair-hr.json") or {}, load_json("pair-footpod.json") or {}]
log_text = read_text("handoffd.log")

# --- Scan and pairing -------------------------------------------------------------------------
by_name = {d.get("name"): d for d in scan}
for name, kind in (("Handoff HR", "heart_rate"), ("Handoff Footpod", "footpod")):
    device = by_name.get(name)
    if check(device is not None, f"handoff scan lists {name}"):
        check(device.get("kind") == kind, f"{name} is listed as {kind}")
        check(bool(device.get("address")) and device.get("address_type") in ("public", "random"),
              f"{name} has an address and address type")
        check(device.get("rssi") is not None and len(device.get("services", [])) > 0, f"{name} has RSSI and services")
hr_pair, pod_pair = pairs
check(hr_pair.get("kind") == "heart_rate" and hr_pair.get("name") == "Handoff HR", "handoff pair paired the strap")
check(pod_pair.get("kind") == "footpod" and pod_pair.get("name") == "Handoff Footpod", "handoff pair paired the footpod")
check(hr_pair.get("battery_percent") is not None and hr_pair.get("model") is not None,
      "pairing read the strap's battery and device information")
HR, POD = hr_pair.get("address"), pod_pair.get("address")
check(len(sensors) == 2 and all(s.get("link") == "connected" for s in sensors),
      "handoff sensors lists both, connected")

# --- The connection parameters handoffd set (hw/bluetooth.md: why straps drop) -----------------
# Every LE Create Connection the kernel sent (btmon's decoding, hci.txt) allows intervals up to
# 1 s, so the kernel accepts a strap's requests for long intervals, and a 4 s supervision timeout.
hci_text = read_text("hci.txt")
creates = hci_text.split("HCI Command: LE Create Conn")[1:]
check(len(creates) >= 2 and all("Max connection interval: 1000.00 msec" in c.split("HCI Event")[0]
                                and "Supervision timeout: 4000 msec" in c.split("HCI Event")[0] for c in creates),
      f"all {len(creates)} LE Create Connection commands carry handoffd's defaults (max interval 1 s, supervision 4 s)")

# --- What was sent, what the pack took -----------------------------------------------------------
sent_hr = [e for e in sent if e.get("device") == "hr" and "hex" in e]
sent_pod = [e for e in sent if e.get("device") == "footpod" and "hex" in e]
commands = [e for e in capture if e.get("kind") == "command"]
starts = [e["mono_ns"] for e in commands if e["command"] == "start"]
stops = [e["mono_ns"] for e in commands if e["command"] == "stop"]
check(len(starts) == 2 and len(stops) == 2, "the capture holds two sessions (start and stop twice)")
taken = {HR: [], POD: []}
for e in capture:
    if e.get("sensor") in taken and e.get("kind") in ("hrm", "rsc"):
        taken[e["sensor"]].append(e)


def contiguous(received: list[str], sent_hex: list[str]) -> bool:
    """received is sent_hex[i:i+len(received)] for some i: in order, nothing lost or doubled."""
    if not received:
        return False
    n = len(received)
    return any(sent_hex[i:i + n] == received for i in range(len(sent_hex) - n + 1))


# Every notification the pack took, all sessions: exactly the peripherals' sequence.
check(contiguous([e["hex"] for e in taken[HR]], [e["hex"] for e in sent_hr]),
      f"all {len(taken[HR])} strap notifications the pack took are the strap's, in order, none lost or doubled")
check(contiguous([e["hex"] for e in taken[POD]], [e["hex"] for e in sent_pod]),
      f"all {len(taken[POD])} footpod notifications the pack took are the footpod's, in order, none lost or doubled")

db = sqlite3.connect(os.path.join(RESULTS, "handoff.sqlite"))
sessions = db.execute("SELECT id, start_mono_ns, state FROM session ORDER BY id").fetchall()
check(len(sessions) == 2 and all(s[2] == "finished" for s in sessions), "the journal holds two finished runs")
sensor_rows = dict(db.execute("SELECT key, id FROM sensor").fetchall())


def check_session(index: int, label: str) -> list:
    sid, start, _ = sessions[index]
    stop = stops[index]
    rows = db.execute("SELECT elapsed_s, hr_bpm, cadence_spm, hr_sensor, footpod_sensor FROM point "
                      "WHERE session_id = ? ORDER BY elapsed_s", (sid,)).fetchall()
    elapsed = [r[0] for r in rows]
    hr_expected = expected_points(capture, HR, ("hrm",), start, elapsed,
                                  lambda b: REJECTED if decode_hrm(b) is None else decode_hrm(b)[0], REJECTED)
    cad_expected = expected_points(capture, POD, ("rsc",), start, elapsed,
                                   lambda b: REJECTED if decode_rsc(b) is None else decode_rsc(b), REJECTED)
    hr_bad = [(s, got, want) for s, got, want in zip(elapsed, [r[1] for r in rows], hr_expected) if got != want]
    cad_bad = [(s, got, want) for s, got, want in zip(elapsed, [r[2] for r in rows], cad_expected) if got != want]
    check(not hr_bad, f"{label}: every second's heart rate is the latest notification's, nothing invented"
          + (f" (first mismatches, second/recorded/expected: {hr_bad[:5]})" if hr_bad else ""))
    check(not cad_bad, f"{label}: every second's cadence is the latest footpod notification's"
          + (f" (first mismatches: {cad_bad[:5]})" if cad_bad else ""))
    check(all(r[3] == sensor_rows.get(HR) for r in rows if r[1] is not None),
          f"{label}: points name the strap as their heart-rate sensor")
    # RR intervals: exactly those of the strap's notifications taken while recording, in order.
    rr_sent = []
    for e in taken[HR]:
        if start <= e["mono_ns"] <= stop:
            decoded = decode_hrm(bytes.fromhex(e["hex"]))
            if decoded is not None:
                rr_sent += decoded[1]
    rr_db = [r[0] for r in db.execute("SELECT rr_1024 FROM rr_interval WHERE session_id = ? "
                                       "ORDER BY offset_ns, seq", (sid,)).fetchall()]
    check(len(rr_db) > 0 and rr_db == rr_sent, f"{label}: the run's {len(rr_db)} RR intervals are the strap's, in order")
    return rows


# --- Session 1: a minute of recording ------------------------------------------------------------
if len(sessions) >= 1 and len(stops) >= 1:
    rows = check_session(0, "session 1")
    check(55 <= len(rows) <= 70, f"session 1 recorded about 60 seconds ({len(rows)} points)")
    check(sum(1 for r in rows if r[1] is not None) >= len(rows) - 4, "session 1: heart rate in nearly every second")
    check(sum(1 for r in rows if r[2] is not None) >= len(rows) - 4, "session 1: cadence in nearly every second")


# --- Session 2: dropouts and malformed values ----------------------------------------------------
def longest_null_run(values: list) -> int:
    best = run = 0
    for v in values:
        run = run + 1 if v is None else 0
        best = max(best, run)
    return best


def resume_after_return(device: str) -> float | None:
    """Seconds from the sensor coming back in range to its first notification after that."""
    ends = [e["t"] for e in sent if e.get("device") == device and e.get("event") == "dropout_end"]
    if not ends:
        return None
    after = [e["t"] for e in sent if e.get("device") == device and "hex" in e and e["t"] > ends[0]]
    return after[0] - ends[0] if after else None


if len(sessions) >= 2 and len(stops) >= 2:
    rows = check_session(1, "session 2")
    sid = sessions[1][0]
    for device, column, address in (("hr", 1, HR), ("footpod", 2, POD)):
        gap = longest_null_run([r[column] for r in rows])
        check(17 <= gap <= 27, f"session 2: the {device} dropout left a gap of about 20 s ({gap} s)")
        kinds = [k for (k,) in db.execute("SELECT kind FROM event WHERE session_id = ? AND sensor_id = ? "
                                           "ORDER BY offset_ns", (sid, sensor_rows.get(address))).fetchall()]
        check("gap_start" in kinds and "gap_end" in kinds and "disconnected" in kinds and "connected" in kinds,
              f"session 2: the {device}'s gap and link changes are events of the run ({kinds})")
        resumed = resume_after_return(device)
        check(resumed is not None and resumed < 5.0,
              f"session 2: the {device} sent again {resumed if resumed is None else round(resumed, 2)} s after it came back (< 5 s)")
        reasons = [e.get("reason") for e in capture if e.get("sensor") == address and e.get("kind") == "link"
                   and e.get("state") == "disconnected"]
        check(any(r and "supervision timeout" in r for r in reasons),
              f"session 2: the {device}'s link loss was reported as a supervision timeout ({reasons[:2]})")

    malformed = [e for e in sent if e.get("device") == "hr" and e.get("malformed")]
    check(len(malformed) == 3, "the strap sent three malformed notifications")
    taken_hex = [e["hex"] for e in taken[HR]]
    check(all(e["hex"] in taken_hex for e in malformed), "the malformed notifications reached the pack")
    hr_status = next((s for s in status.get("sensors", []) if s.get("id") == HR), {})
    check(hr_status.get("rejected", 0) >= 3, f"handoffd counted them as rejected ({hr_status.get('rejected')})")
    check(log_text.count("Rejected a reading") >= 3 and " debug " in log_text,
          "handoffd logged them at debug level")
    latency, delay = status.get("commit_latency"), status.get("point_commit_delay")
    if check(latency is not None and delay is not None, "handoffd measured notification-to-commit latency"):
        print(f"     notification to committed point, over {latency['samples']} notifications: p50 {latency['p50_ms']} ms, "
              f"p95 {latency['p95_ms']} ms, max {latency['max_ms']} ms")
        print(f"     of which after the second ended, over {delay['samples']} points: p50 {delay['p50_ms']} ms, "
              f"p95 {delay['p95_ms']} ms, max {delay['max_ms']} ms")
        with open(os.path.join(RESULTS, "latency.json"), "w") as f:
            json.dump({"commit_latency": latency, "point_commit_delay": delay}, f)

sys.exit(finish("check_pack"))
