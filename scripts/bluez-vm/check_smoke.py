#!/usr/bin/env python3
"""scripts/bluez-vm/check_smoke.py — host-side verdict on the smoke scenario's results.

Usage: check_smoke.py RESULTS_DIR   (run by `run smoke`; exit status 0 = pass)

Compares what the guest saw (btmgmt find output, att-*.json from guest/att_client.py, the HCI
trace hci.btsnoop) with what the virtual peripherals did (sent.jsonl) and with the
deterministic script in signals.py:
  * discovery found both sensors by name with their public addresses; during the HR dropout
    only the footpod; after it, the HR again;
  * the advertising reports carry flags, the service UUID, name, appearance and TX power;
  * the GATT databases hold the services, characteristics, CCCDs and values peripherals.py
    defines;
  * every notification the guest received is one the host sent, byte for byte and in order;
    well-formed ones equal signals.measurement(n); n continues across the reconnection;
    the three malformed HR payloads arrived as sent;
  * the dropout reached the guest's kernel as a link loss with HCI reason 0x08 (Disconnection
    Complete in the trace) and the ATT socket saw ETIMEDOUT;
  * guest timestamps are consistent with the host's (clock taken from the host at boot).
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btsnoop  # noqa: E402
import signals  # noqa: E402

from verdict import RESULTS, check, finish, load_json, read_text  # noqa: E402


def sent_log() -> list[dict]:
    with open(os.path.join(RESULTS, "sent.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def found(text: str, name: str, address: str) -> bool:
    # btmgmt prints "dev_found: ADDR type LE Public …" then the AD lines, "name NAME" among them
    blocks = text.split("dev_found: ")[1:]
    return any(b.startswith(address + " type LE Public") and f"name {name}\n" in b + "\n" for b in blocks)


def characteristic(att: dict, service: str, uuid: str) -> dict | None:
    for s in att.get("services", []):
        if s["uuid"] == service:
            for c in s["characteristics"]:
                if c["uuid"] == uuid:
                    return c
    return None


def main() -> int:
    sent = sent_log()
    hr_addr, fp_addr = signals.HR_ADDRESS, signals.FOOTPOD_ADDRESS

    # --- Discovery -------------------------------------------------------------------------
    find1, find2, find3 = (read_text(f"find-{i}.txt") for i in (1, 2, 3))
    check(found(find1, "Handoff HR", hr_addr), "find-1: Handoff HR at F0:F0:F0:00:00:01 (LE Public)")
    check(found(find1, "Handoff Footpod", fp_addr), "find-1: Handoff Footpod at F0:F0:F0:00:00:02 (LE Public)")
    check(found(find2, "Handoff Footpod", fp_addr), "find-2 (HR out of range): the footpod")
    check(not found(find2, "Handoff HR", hr_addr), "find-2 (HR out of range): no Handoff HR")
    check(found(find3, "Handoff HR", hr_addr), "find-3 (HR back): Handoff HR")

    # --- HCI trace ---------------------------------------------------------------------------
    records = btsnoop.read(os.path.join(RESULTS, "hci.btsnoop"))
    check(len(records) > 100, f"hci.btsnoop has the trace ({len(records)} records)")
    reports = btsnoop.advertising_reports(records)
    expected_ad = {
        hr_addr: {0x01: b"\x06", 0x02: b"\x0d\x18", 0x09: b"Handoff HR", 0x19: b"\x41\x03", 0x0A: b"\x04"},
        fp_addr: {0x01: b"\x06", 0x03: b"\x14\x18", 0x09: b"Handoff Footpod", 0x19: b"\x41\x04", 0x0A: b"\x00"},
    }
    for address, want in expected_ad.items():
        ads = [btsnoop.ad_structures(r["data"]) for r in reports if r["address"] == address and r["data"]]
        check(bool(ads) and all(ad == want for ad in ads),
              f"advertising data of {address}: flags, UUID, name, appearance, TX power ({len(ads)} reports)")
    kinds = sorted({r["kind"] for r in reports})
    print(f"info advertising reports the kernel received: {kinds} (the scan commands it chose)")
    disconnects = btsnoop.disconnections(records)
    conns = btsnoop.connections(records)
    hr_handles = {c["handle"] for c in conns if c["peer"] == hr_addr and c["status"] == 0}
    timeouts = [d for d in disconnects if d["reason"] == 0x08 and d["handle"] in hr_handles]
    check(len(timeouts) == 1, "the HR dropout reached the kernel as Disconnection Complete, reason 0x08")
    print(f"info connections: {[(c['peer'], c['handle'], 'enhanced' if c['enhanced'] else 'legacy') for c in conns]}")
    print(f"info disconnections: {[(d['handle'], hex(d['reason'])) for d in disconnects]}")

    # --- Host events -----------------------------------------------------------------------------
    hr_events = [e for e in sent if e.get("device") == "hr" and "event" in e]
    starts = [e for e in hr_events if e["event"] == "dropout_start"]
    ends = [e for e in hr_events if e["event"] == "dropout_end"]
    lost = [e for e in hr_events if e["event"] == "disconnected" and e.get("reason") == 8]
    if check(len(starts) == 1 and len(ends) == 1 and len(lost) == 1,
             "sent.jsonl: one HR dropout (start, end) and one link loss with reason 8 on the host side"):
        delay = lost[0]["t"] - starts[0]["t"]
        check(0.3 <= delay <= 2.0, f"the link timed out {delay:.2f} s after the radio vanished (supervision timeout)")
        check(7.5 <= ends[0]["t"] - starts[0]["t"] <= 9.5, "the dropout lasted ~8 s")
        if timeouts:
            skew = timeouts[0]["t"] - lost[0]["t"]
            check(abs(skew) < 0.1, f"guest and host clocks agree on the link loss ({skew * 1000:+.0f} ms)")

    # --- GATT ---------------------------------------------------------------------------------
    hr1, hr2, fp = load_json("att-hr-1.json"), load_json("att-hr-2.json"), load_json("att-footpod.json")
    if None in (hr1, hr2, fp):
        return finish()
    for name, att in (("att-hr-1", hr1), ("att-hr-2", hr2), ("att-footpod", fp)):
        check(att.get("ok") is True, f"{name}: completed ({att.get('error', 'no error')})")
    expect_values = {
        ("hr", "1800", "2a00"): b"Handoff HR".hex(), ("hr", "1800", "2a01"): "4103",
        ("hr", "180d", "2a38"): "01", ("hr", "180f", "2a19"): "57",
        ("hr", "180a", "2a29"): b"Handoff Test".hex(), ("hr", "180a", "2a24"): b"HR-1".hex(),
        ("hr", "180a", "2a25"): b"HR-0001".hex(), ("hr", "180a", "2a26"): b"1.0.0".hex(),
        ("fp", "1800", "2a00"): b"Handoff Footpod".hex(), ("fp", "1800", "2a01"): "4104",
        ("fp", "1814", "2a54"): "0300", ("fp", "180f", "2a19"): "49",
        ("fp", "180a", "2a24"): b"FP-1".hex(), ("fp", "180a", "2a25"): b"FP-0001".hex(),
    }
    for (dev, service, uuid), value in expect_values.items():
        c = characteristic(hr1 if dev == "hr" else fp, service, uuid)
        check(c is not None and c.get("value_hex") == value, f"{dev} {service}/{uuid} reads {value}")
    for dev, att, service, uuid in (("hr", hr1, "180d", "2a37"), ("fp", fp, "1814", "2a53"),
                                    ("hr", hr1, "180f", "2a19")):
        c = characteristic(att, service, uuid)
        check(c is not None and c["properties"] & 0x10 and any(d["uuid"] == "2902" for d in c["descriptors"]),
              f"{dev} {service}/{uuid} notifies and has a CCCD")

    # --- Notifications ------------------------------------------------------------------------
    pairs_by_file: dict[str, list] = {}
    for device, files in (("hr", [("att-hr-1", hr1), ("att-hr-2", hr2)]), ("footpod", [("att-footpod", fp)])):
        sent_payloads = [e for e in sent if e.get("device") == device and "hex" in e]
        # Every received notification, in order, is a sent one (a sent one goes unreceived
        # only when no client was reading).
        cursor, ok, count, latencies = 0, True, 0, []
        for name, att in files:
            pairs_by_file[name] = []
            for note in att.get("notifications", []):
                count += 1
                while cursor < len(sent_payloads) and sent_payloads[cursor]["hex"] != note["hex"]:
                    cursor += 1
                if cursor == len(sent_payloads):
                    ok = False
                    break
                pairs_by_file[name].append((note, sent_payloads[cursor]))
                latencies.append(note["t"] - sent_payloads[cursor]["t"])
                cursor += 1
        check(ok and count > 0, f"{device}: all {count} received notifications were sent, in order")
        pairs = [p for name, _ in files for p in pairs_by_file[name]]
        check(all(bytes.fromhex(s["hex"]) == signals.measurement(device, s["n"])
                  for _, s in pairs if s["malformed"] is False),
              f"{device}: well-formed payloads equal signals.measurement(n)")
        if latencies:
            check(min(latencies) > -0.05 and max(latencies) < 1.0,
                  f"{device}: host send → guest receive {min(latencies) * 1000:.0f}…{max(latencies) * 1000:.0f} ms")
    n1 = [s["n"] for _, s in pairs_by_file["att-hr-1"]]
    n2 = [s["n"] for _, s in pairs_by_file["att-hr-2"] if s["n"] is not None]
    check(n1 == list(range(len(n1))), f"hr: the first connection got n = {n1}")
    check(bool(n2) and n2[0] == n1[-1] + 1 and n2 == list(range(n2[0], n2[0] + len(n2))),
          f"hr: after the dropout the sequence continues: n = {n2}")
    n_fp = [s["n"] for _, s in pairs_by_file["att-footpod"]]
    check(n_fp == list(range(len(n_fp))), f"footpod: n = {n_fp}")
    malformed = [s["malformed"] for _, s in pairs_by_file["att-hr-2"] if s["malformed"]]
    check(malformed == ["truncated", "flags_overrun", "empty"],
          f"hr: the malformed notifications arrived as sent ({malformed})")
    link_lost = hr1.get("link_lost") or {}
    check(link_lost.get("name") == "ETIMEDOUT", f"the ATT socket saw the dropout as {link_lost.get('name')} (ETIMEDOUT = reason 0x08)")
    return finish("check_smoke")


if __name__ == "__main__":
    sys.exit(main())
