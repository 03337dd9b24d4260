"""scripts/bluez-vm/btsnoop.py — read the BTSnoop files `btmon -w` writes in the VM.

Used by the checkers (host side, no Bumble needed). btmon writes the monitor format
(datalink 2001): each record's flags field is (controller index << 16) | opcode, where opcode
2 = HCI command, 3 = HCI event, 4 = ACL sent, 5 = ACL received; index 0xFFFF records are
notes and mgmt traffic. (`btmon -r` 5.66 segfaults on some of these files; the guest also saves
btmon's live decoding as hci.txt.)

    python3 btsnoop.py FILE   prints the HCI events and commands, one line each.
"""

import struct
import sys
from dataclasses import dataclass

COMMAND, EVENT, ACL_TX, ACL_RX = 2, 3, 4, 5
EPOCH_DELTA_US = 0x00DCDDB30F2F8000  # BTSnoop timestamps count µs from year 0


@dataclass
class Record:
    index: int
    opcode: int
    time: float  # unix seconds
    data: bytes


def read(path: str) -> list[Record]:
    with open(path, "rb") as f:
        blob = f.read()
    if blob[:8] != b"btsnoop\0":
        raise ValueError(f"{path}: not a BTSnoop file")
    version, datalink = struct.unpack(">II", blob[8:16])
    if datalink != 2001:
        raise ValueError(f"{path}: datalink {datalink}, expected 2001 (btmon monitor format)")
    records, offset = [], 16
    while offset + 24 <= len(blob):
        _orig, incl, flags, _drops, ts = struct.unpack(">IIIIq", blob[offset:offset + 24])
        data = blob[offset + 24:offset + 24 + incl]
        if len(data) < incl:
            break  # a record cut short: stop there
        records.append(Record(flags >> 16, flags & 0xFFFF, (ts - EPOCH_DELTA_US) / 1e6, data))
        offset += 24 + incl
    return records


def events(records: list[Record], code: int | None = None) -> list[Record]:
    return [r for r in records if r.opcode == EVENT and r.data and (code is None or r.data[0] == code)]


def disconnections(records: list[Record]) -> list[dict]:
    """Disconnection Complete events: status, handle, reason, time."""
    out = []
    for r in events(records, 0x05):
        status, handle, reason = struct.unpack_from("<BHB", r.data, 2)
        out.append({"status": status, "handle": handle, "reason": reason, "t": r.time})
    return out


def connections(records: list[Record]) -> list[dict]:
    """LE (Enhanced) Connection Complete events: status, handle, role, peer address + type."""
    out = []
    for r in events(records, 0x3E):
        sub = r.data[2]
        if sub in (0x01, 0x0A):
            status, handle, role, peer_type = struct.unpack_from("<BHBB", r.data, 3)
            peer = ":".join(f"{b:02X}" for b in reversed(r.data[8:14]))
            out.append({"status": status, "handle": handle, "role": role, "peer": peer,
                        "peer_type": peer_type, "enhanced": sub == 0x0A, "t": r.time})
    return out


def commands(records: list[Record], opcode: int | None = None) -> list[Record]:
    """HCI commands the host sent (data: opcode u16, length, parameters)."""
    return [r for r in records if r.opcode == COMMAND and len(r.data) >= 3
            and (opcode is None or struct.unpack_from("<H", r.data)[0] == opcode)]


def address_at(data: bytes, offset: int) -> str:
    return ":".join(f"{b:02X}" for b in reversed(data[offset:offset + 6]))


def classic_connections(records: list[Record]) -> list[dict]:
    """BR/EDR Connection Complete events: status, handle, peer, link type, encryption."""
    out = []
    for r in events(records, 0x03):
        status, handle = struct.unpack_from("<BH", r.data, 2)
        out.append({"status": status, "handle": handle, "peer": address_at(r.data, 5),
                    "link_type": r.data[11], "encryption": r.data[12], "t": r.time})
    return out


def inquiry_results(records: list[Record]) -> list[dict]:
    """Inquiry Result (0x02), with RSSI (0x22) and Extended (0x2F): address, class of device,
    RSSI. The first two carry each field as an array over the responses, field after field."""
    out = []
    for r in events(records):
        code, p = r.data[0], r.data[2:]
        if code in (0x02, 0x22):
            n = p[0]
            fields = ([("addr", 6), ("psrm", 1), ("res0", 1), ("res1", 1), ("cod", 3), ("clk", 2)]
                      if code == 0x02 else
                      [("addr", 6), ("psrm", 1), ("res0", 1), ("cod", 3), ("clk", 2), ("rssi", 1)])
            pos, columns = 1, {}
            for name, size in fields:
                columns[name] = [p[pos + i * size:pos + (i + 1) * size] for i in range(n)]
                pos += n * size
            for i in range(n):
                rssi = columns.get("rssi")
                out.append({"kind": code, "address": address_at(columns["addr"][i], 0),
                            "class": int.from_bytes(columns["cod"][i], "little"),
                            "rssi": struct.unpack("<b", rssi[i])[0] if rssi else None, "t": r.time})
        elif code == 0x2F:
            out.append({"kind": code, "address": address_at(p, 1), "class": int.from_bytes(p[9:12], "little"),
                        "rssi": struct.unpack_from("<b", p, 14)[0], "eir": p[15:], "t": r.time})
    return out


def advertising_reports(records: list[Record]) -> list[dict]:
    """Legacy (subevent 0x02) and extended (0x0D) advertising reports, one dict per report."""
    out = []
    for r in events(records, 0x3E):
        sub, data = r.data[2], r.data
        if sub == 0x02:
            count, pos = data[3], 4
            for _ in range(count):
                event_type, addr_type = data[pos], data[pos + 1]
                address = ":".join(f"{b:02X}" for b in reversed(data[pos + 2:pos + 8]))
                length = data[pos + 8]
                ad = data[pos + 9:pos + 9 + length]
                rssi = struct.unpack_from("<b", data, pos + 9 + length)[0]
                out.append({"kind": "legacy", "event_type": event_type, "address": address,
                            "address_type": addr_type, "data": ad, "rssi": rssi, "t": r.time})
                pos += 10 + length
        elif sub == 0x0D:
            count, pos = data[3], 4
            for _ in range(count):
                event_type, addr_type = struct.unpack_from("<HB", data, pos)
                address = ":".join(f"{b:02X}" for b in reversed(data[pos + 3:pos + 9]))
                rssi = struct.unpack_from("<b", data, pos + 13)[0]
                length = data[pos + 23]
                ad = data[pos + 24:pos + 24 + length]
                out.append({"kind": "extended", "event_type": event_type, "address": address,
                            "address_type": addr_type, "data": ad, "rssi": rssi, "t": r.time})
                pos += 24 + length
    return out


def ad_structures(ad: bytes) -> dict[int, bytes]:
    out, pos = {}, 0
    while pos < len(ad) and ad[pos]:
        length = ad[pos]
        out[ad[pos + 1]] = ad[pos + 2:pos + 1 + length]
        pos += 1 + length
    return out


if __name__ == "__main__":
    for record in read(sys.argv[1]):
        kind = {COMMAND: "CMD", EVENT: "EVT", ACL_TX: "ACL>", ACL_RX: "ACL<"}.get(record.opcode)
        if kind:
            print(f"{record.time:.6f} hci{record.index} {kind} {record.data.hex()}")
