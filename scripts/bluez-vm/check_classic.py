#!/usr/bin/env python3
"""scripts/bluez-vm/check_classic.py — host-side verdict on the classic scenario's results.

Usage: check_classic.py RESULTS_DIR   (run by `run classic`; exit status 0 = pass)

Compares what the guest saw (inquiry.txt from hcitool, sdptool.txt, rfcomm.json from
guest/rfcomm_client.py, the HCI trace hci.btsnoop) with what the virtual Zephyr HxM did
(sent.jsonl) and with the deterministic script in signals.py:
  * the inquiry found HXM026001 at F0:F0:F0:00:00:03 with class of device 0x000918;
  * SDP (BlueZ's sdptool and our own Service Search Attribute client) found the Serial Port
    record: service class 0x1101, L2CAP + RFCOMM channel 5, "Bluetooth Serial Port";
  * pairing was legacy: one mgmt PIN Code Request answered with 1234, a combination key
    (type 0) stored, no SSP confirmation; the reconnection authenticated with the stored key
    (Link Key Request Reply, no second PIN); both links were E0-encrypted;
  * every frame the guest received has a valid CRC, is one the strap sent, in order, equals
    signals.hxm_frame(n) and decodes to signals.hxm_expected(n); n continues across the
    reconnection; no frame sent while a link was up went missing; beat numbers, beat
    timestamps, strides and distance wrapped during the run and stayed consistent;
  * the dropout reached the kernel as Disconnection Complete reason 0x08 one link supervision
    timeout (4 s, set by the client) after the radio vanished, on both sides, and the RFCOMM
    socket failed with ETIMEDOUT; the client reconnected as soon as the strap answered a
    page again, without a failed connect();
  * the guest kernel did not oops (see the kernel bug workaround in guest/rfcomm_client.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btsnoop  # noqa: E402
import signals  # noqa: E402

from verdict import RESULTS, check, finish, load_json, load_lines, read_text  # noqa: E402

HXM = signals.HXM_ADDRESS
LSTO_S = 4.0  # what classic.sh asks rfcomm_client.py to set


def main() -> int:
    sent = load_lines("sent.jsonl")
    rf = load_json("rfcomm.json") or {}
    hxm_events = [e for e in sent if e.get("device") == "hxm" and "event" in e]
    sent_frames = [e for e in sent if e.get("device") == "hxm" and "hex" in e]

    def host_events(name: str) -> list[dict]:
        return [e for e in hxm_events if e["event"] == name]

    check(rf.get("ok") is True, f"rfcomm_client completed ({rf.get('error', 'no error')})")

    # --- Inquiry -------------------------------------------------------------------------------
    inquiry = read_text("inquiry.txt")
    check(f"BD Address:\t{HXM}" in inquiry and f"Device name:\t{signals.HXM_NAME}" in inquiry
          and "(0x000918)" in inquiry, f"hcitool scan: {signals.HXM_NAME} at {HXM}, class 0x000918")
    records = btsnoop.read(os.path.join(RESULTS, "hci.btsnoop"))
    check(len(records) > 100, f"hci.btsnoop has the trace ({len(records)} records)")
    results = [r for r in btsnoop.inquiry_results(records) if r["address"] == HXM]
    check(bool(results) and all(r["class"] == 0x000918 for r in results),
          f"the trace has the strap's inquiry result(s), class 0x000918 ({len(results)})")

    # --- SDP -----------------------------------------------------------------------------------
    sdptool = read_text("sdptool.txt")
    check(all(s in sdptool for s in ("Service Name: Bluetooth Serial Port", '"Serial Port" (0x1101)',
                                     '"L2CAP" (0x0100)', '"RFCOMM" (0x0003)', "Channel: 5")),
          "sdptool browse: Serial Port record, L2CAP + RFCOMM channel 5, 'Bluetooth Serial Port'")
    sdp = rf.get("sdp") or {}
    record = (sdp.get("records") or [{}])[0]
    check(sdp.get("channel") == signals.HXM_RFCOMM_CHANNEL,
          f"our SDP client found RFCOMM channel {sdp.get('channel')} (expected {signals.HXM_RFCOMM_CHANNEL})")
    check(len(sdp.get("records", [])) == 1 and record.get("classes") == [0x1101]
          and record.get("protocols") == [[0x0100], [0x0003, signals.HXM_RFCOMM_CHANNEL]]
          and record.get("profiles") == [[0x1101, 0x0100]] and record.get("name") == "Bluetooth Serial Port",
          f"the SDP record: classes, protocols, profile, name ({record.get('name')!r})")
    print(f"info SDP: {sdp.get('seconds')} s ({sdp.get('pdus')} PDU), L2CAP connect {sdp.get('connect_seconds')} s")

    # --- Pairing -------------------------------------------------------------------------------
    mgmt = rf.get("mgmt") or []
    pin_requests = [e for e in mgmt if e["event"] == "pin_code_request"]
    check(len(pin_requests) == 1 and pin_requests[0].get("address") == HXM and pin_requests[0].get("secure") == 0
          and "1234" in pin_requests[0].get("reply", ""),
          f"one mgmt PIN Code Request (0x000E) for the strap, answered with PIN Code Reply 0x0016 ({len(pin_requests)})")
    replies = [e for e in mgmt if e["event"] == "command_complete" and e.get("opcode") == 0x0016]
    check(len(replies) == 1 and replies[0].get("status") == 0, "the kernel accepted the PIN Code Reply (status 0)")
    keys = [e for e in mgmt if e["event"] == "new_link_key"]
    # (Its PIN length field is 0: this kernel passes 0 to hci_add_link_key for every key.)
    check(len(keys) == 1 and keys[0].get("key_type") == 0 and keys[0].get("store_hint") == 1,
          f"mgmt New Link Key: a combination key (type 0), to be stored ({len(keys)})")
    check(not [e for e in mgmt if e["event"] in ("user_confirm_request", "user_passkey_request", "auth_failed")],
          "no SSP confirmation or passkey request, no authentication failure")
    count = lambda code: len(btsnoop.events(records, code))  # noqa: E731
    n_cmd = lambda op: len(btsnoop.commands(records, op))  # noqa: E731
    pin_cmds = btsnoop.commands(records, 0x040D)
    # PIN Code Request Reply: opcode, length, BD_ADDR, PIN length, PIN (16 bytes)
    check(count(0x16) == 1 and len(pin_cmds) == 1 and pin_cmds[0].data[9] == 4 and pin_cmds[0].data[10:14] == b"1234",
          "HCI: one PIN Code Request, answered with PIN Code Request Reply '1234'")
    check(count(0x17) == 2 and n_cmd(0x040C) == 1 and n_cmd(0x040B) == 1,
          "HCI: Link Key Request twice — negative reply (first pairing), then the stored key (reconnection)")
    notifications = btsnoop.events(records, 0x18)
    check(len(notifications) == 1 and notifications[0].data[2 + 6 + 16] == 0,
          "HCI: one Link Key Notification, combination key (type 0)")
    auth = btsnoop.events(records, 0x06)
    check(len(auth) == 2 and all(a.data[2] == 0 for a in auth), "HCI: Authentication Complete, success, on both links")
    encryption = btsnoop.events(records, 0x08)
    check(len(encryption) == 2 and all(e.data[2] == 0 and e.data[5] == 0x01 for e in encryption),
          "HCI: Encryption Change on both links: E0 (0x01), as a legacy link key gives")
    check(len(host_events("pin_requested")) == 1 and len(host_events("link_key")) == 1
          and [e.get("mode") for e in host_events("encryption")] == [1, 1],
          "the strap: asked for its PIN once, stored one link key, saw E0 encryption twice")

    # --- Links, dropout, reconnection -------------------------------------------------------
    links = rf.get("links") or []
    if not check(len(links) == 2, f"two RFCOMM links (before and after the dropout): {len(links)}"):
        return finish("check_classic")
    link1, link2 = links
    check(all((link.get("lsto") or {}).get("status") == 0 and (link.get("lsto") or {}).get("seconds") == LSTO_S
              for link in links), f"HCI Write Link Supervision Timeout {LSTO_S} s accepted on both links")
    check(not link1["attempts"] and not link2["attempts"],
          "no connect() failed (a failed BR/EDR connect crashes this guest kernel)")
    print(f"info connect() (page, features, name, auth, encryption, RFCOMM): link 1 "
          f"{link1.get('connect_seconds')} s, link 2 {link2.get('connect_seconds')} s")
    starts, ends = host_events("dropout_start"), host_events("dropout_end")
    lost = [e for e in host_events("disconnected") if e.get("reason") == 8]
    timeouts = [d for d in btsnoop.disconnections(records) if d["reason"] == 0x08]
    conns = [c for c in btsnoop.classic_connections(records) if c["peer"] == HXM and c["status"] == 0]
    check(len(conns) >= 2, f"HCI: Connection Complete to the strap for each link ({len(conns)})")
    strap_timeout = [d for d in timeouts if any(c["handle"] == d["handle"] and c["t"] < d["t"] for c in conns)]
    check(len(strap_timeout) == 1, "HCI: the dropout reached the kernel as Disconnection Complete, reason 0x08")
    if check(len(starts) == 1 and len(ends) == 1 and len(lost) == 1,
             "sent.jsonl: one dropout (start, end) and one link loss with reason 8 on the strap's side"):
        delay = lost[0]["t"] - starts[0]["t"]
        check(LSTO_S - 0.2 <= delay <= LSTO_S + 0.5,
              f"the link timed out {delay:.2f} s after the radio vanished (supervision timeout {LSTO_S} s)")
        check(9.5 <= ends[0]["t"] - starts[0]["t"] <= 11, "the dropout lasted ~10 s")
        if strap_timeout:
            skew = strap_timeout[0]["t"] - lost[0]["t"]
            check(abs(skew) < 0.1, f"guest and host clocks agree on the link loss ({skew * 1000:+.0f} ms)")
        end1 = link1.get("end") or {}
        check(end1.get("name") == "ETIMEDOUT" and abs(end1.get("t", 0) - lost[0]["t"]) < 0.5,
              f"the RFCOMM socket failed with {end1.get('name')} ({end1.get('errno')}) at the link loss")
        probes = rf.get("presence_probes") or []
        check(bool(probes) and probes[-1].get("status") == 0 and probes[-1].get("name") == signals.HXM_NAME
              and all(p.get("status") == 0x04 for p in probes[:-1]),
              f"presence probes (Remote Name Request): page timeouts 0x04, then {signals.HXM_NAME} "
              f"({[hex(p.get('status')) for p in probes]})")
        back = link2.get("connected_at", 0) - ends[0]["t"]
        check(0 <= back <= 3, f"reconnected {back:.2f} s after the strap came back")
    # Other links ended when the kernel dropped an idle ACL (after sdptool, perhaps after the
    # client's SDP, and at the end): 0x16 here, 0x13 Remote User Terminated at the strap.
    others = [d["reason"] for d in btsnoop.disconnections(records) if d["reason"] != 0x08]
    strap_others = [e.get("reason") for e in host_events("disconnected") if e.get("reason") != 8]
    check(bool(others) and set(others) == {0x16} and len(strap_others) == len(others)
          and set(strap_others) == {0x13} and host_events("disconnected")[-1].get("reason") == 0x13,
          f"idle ACLs dropped by the kernel: 0x16 locally, 0x13 at the strap ({len(others)}, the last at the end)")

    # --- Frames -----------------------------------------------------------------------------------
    sent_hex = [e["hex"] for e in sent_frames]
    check(all(bytes.fromhex(e["hex"]) == signals.hxm_frame(e["n"]) for e in sent_frames),
          f"the strap's {len(sent_frames)} frames equal signals.hxm_frame(n)")
    received = [(i, f) for i, link in enumerate(links) for f in link["frames"]]
    cursor, in_order, matched = 0, True, []
    for i, frame in received:
        while cursor < len(sent_hex) and sent_hex[cursor] != frame["hex"]:
            cursor += 1
        if cursor == len(sent_hex):
            in_order = False
            break
        matched.append((i, frame, sent_frames[cursor]))
        cursor += 1
    check(in_order and len(matched) == len(received),
          f"all {len(received)} received frames were sent, in order, none doubled")
    decoded_ok = True
    for _, frame, s in matched:
        try:
            parsed = signals.hxm_parse(bytes.fromhex(frame["hex"]))
        except ValueError:
            decoded_ok = False
            break
        reserved = parsed.pop("reserved_zero")
        decoded_ok &= reserved and parsed == signals.hxm_expected(s["n"])
    check(decoded_ok and bool(matched), "every received frame has a valid CRC and decodes to signals.hxm_expected(n)")
    n1 = [s["n"] for i, _, s in matched if i == 0]
    n2 = [s["n"] for i, _, s in matched if i == 1]
    check(n1 == list(range(len(n1))) and len(n1) >= 18, f"link 1: n = 0…{n1[-1] if n1 else None} ({len(n1)} frames)")
    check(bool(n2) and n1 and n2[0] == n1[-1] + 1 and n2 == list(range(n2[0], n2[0] + len(n2))) and len(n2) >= 8,
          f"link 2 continues the sequence: n = {n2[0] if n2 else None}…{n2[-1] if n2 else None} ({len(n2)} frames)")
    if starts and n1:
        before = [e["n"] for e in sent_frames if e["t"] < starts[0]["t"]]
        check(before == n1, "every frame sent before the dropout reached link 1")
    if n2:
        closed = link2.get("closed_at", float("inf"))
        after = [e["n"] for e in sent_frames if e["n"] >= n2[0] and e["t"] < closed - 0.3]
        check(n2[:len(after)] == after, "every frame sent on link 2 while the client read arrived")
    latencies = [f["t"] - s["t"] for _, f, s in matched]
    if latencies:
        check(min(latencies) > -0.05 and max(latencies) < 1.0,
              f"strap send → guest receive {min(latencies) * 1000:.0f}…{max(latencies) * 1000:.0f} ms")
    # The stream's counters: consecutive received frames carry 2-3 new beats whose timestamps
    # follow the previous frame's, at 60000/hr ms; each counter wrapped at least once.
    values = [(s["n"], signals.hxm_parse(bytes.fromhex(f["hex"]))) for _, f, s in matched]
    consistent, wraps = True, {"beat_number": 0, "timestamps": 0, "strides": 0, "distance": 0}
    for (na, a), (nb, b) in zip(values, values[1:]):
        if nb != na + 1:
            continue
        new = (b["beat_number"] - a["beat_number"]) % 256
        consistent &= new in (2, 3) and b["timestamps"][new] == a["timestamps"][0]
        consistent &= all(abs((b["timestamps"][k] - b["timestamps"][k + 1]) % 65536 - 60000 / b["hr"]) <= 8
                          for k in range(new))
        for key in ("beat_number", "strides", "distance"):
            wraps[key] += b[key] < a[key]
        wraps["timestamps"] += b["timestamps"][0] < a["timestamps"][0]
    check(consistent, "consecutive frames: 2–3 new beats a second, timestamps continuing, intervals = 60000/hr ms")
    check(all(wraps.values()), f"the run crossed every counter's wrap: {wraps}")
    hrs = [v["hr"] for _, v in values]
    print(f"info heart rate {min(hrs, default=0)}…{max(hrs, default=0)} bpm; chunks per link "
          f"{[link['chunks'] for link in links]}, garbage bytes {[link['garbage'] for link in links]}")

    # --- Kernel health --------------------------------------------------------------------------
    kernel = read_text("console.log") + read_text("dmesg.txt")
    bad = [s for s in ("kernel BUG", "list_del corruption", "Oops", "general protection fault", "WARNING: CPU")
           if s in kernel]
    check(not bad, f"the guest kernel did not oops ({bad or 'clean'})")
    return finish("check_classic")


if __name__ == "__main__":
    sys.exit(main())
