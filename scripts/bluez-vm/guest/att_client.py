#!/usr/bin/python3
"""scripts/bluez-vm/guest/att_client.py — a minimal GATT client over the kernel's L2CAP ATT socket.

Runs in the VM under Debian's /usr/bin/python3 (its socket module has AF_BLUETOOTH; pyenv's
does not). Python's L2CAP address tuple has no CID or LE address type, so bind() and
connect() are called through ctypes with a struct sockaddr_l2 (CID 4 = ATT, address type
LE public or random) on a socket Python created. No bluetoothd is involved: this is the same
kernel path the project's own binaries use.

It connects, exchanges the MTU, discovers all primary services, their characteristics and
descriptors, reads every readable value, subscribes (CCCD = 0x0001) to the measurement
characteristic (Heart Rate 0x2A37 or RSC 0x2A53), and records notifications. Optionally, after
K notifications it asks the host to simulate a dropout (then waits for the kernel to report the
link loss, recording the errno: a supervision timeout, HCI reason 0x08, reaches the socket as
ETIMEDOUT) or to send malformed notifications (then keeps collecting).

Writes one JSON object to --out: address, connect_seconds, mtu, services (uuid, start, end,
characteristics with uuid, properties, handles, descriptors and value hex), subscribed handle,
notifications [{t, handle, hex}], and link_lost {errno, name, t} when the link went away.

Usage: att_client.py ADDRESS [--random] --out FILE [--notifications N] [--then-dropout S]
                     [--then-malformed] [--extra N] [--control DIR] [--timeout S]
"""

import argparse
import ctypes
import errno
import json
import os
import socket
import struct
import sys
import time

BTPROTO_L2CAP = 0
ATT_CID = 4
BDADDR_LE_PUBLIC = 1
BDADDR_LE_RANDOM = 2

# ATT opcodes
ERROR_RSP, MTU_REQ, MTU_RSP = 0x01, 0x02, 0x03
FIND_INFO_REQ, FIND_INFO_RSP = 0x04, 0x05
READ_BY_TYPE_REQ, READ_BY_TYPE_RSP = 0x08, 0x09
READ_REQ, READ_RSP = 0x0A, 0x0B
READ_BY_GROUP_REQ, READ_BY_GROUP_RSP = 0x10, 0x11
WRITE_REQ, WRITE_RSP = 0x12, 0x13
NOTIFICATION = 0x1B
ATTRIBUTE_NOT_FOUND = 0x0A

MEASUREMENTS = {"2a37", "2a53"}  # Heart Rate Measurement, RSC Measurement


class SockaddrL2(ctypes.Structure):
    _fields_ = [
        ("l2_family", ctypes.c_ushort),
        ("l2_psm", ctypes.c_ushort),
        ("l2_bdaddr", ctypes.c_ubyte * 6),
        ("l2_cid", ctypes.c_ushort),
        ("l2_bdaddr_type", ctypes.c_ubyte),
    ]


libc = ctypes.CDLL(None, use_errno=True)


def sockaddr(address: str, address_type: int) -> SockaddrL2:
    sa = SockaddrL2()
    sa.l2_family = socket.AF_BLUETOOTH
    sa.l2_psm = 0
    # bdaddr_t is little-endian: reverse the printed order.
    for i, byte in enumerate(reversed(bytes.fromhex(address.replace(":", "")))):
        sa.l2_bdaddr[i] = byte
    sa.l2_cid = ATT_CID  # little-endian host: htobs is a no-op on x86
    sa.l2_bdaddr_type = address_type
    return sa


def check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def uuid_str(raw: bytes) -> str:
    if len(raw) == 2:
        return f"{struct.unpack('<H', raw)[0]:04x}"
    return raw[::-1].hex()


class AttError(Exception):
    def __init__(self, request: int, handle: int, code: int) -> None:
        super().__init__(f"ATT error 0x{code:02X} for request 0x{request:02X} handle 0x{handle:04X}")
        self.code = code


class Client:
    def __init__(self, address: str, address_type: int, timeout: float) -> None:
        self.sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_SEQPACKET, BTPROTO_L2CAP)
        local = sockaddr("00:00:00:00:00:00", BDADDR_LE_PUBLIC)
        check(libc.bind(self.sock.fileno(), ctypes.byref(local), ctypes.sizeof(local)), "bind")
        remote = sockaddr(address, address_type)
        start = time.monotonic()
        # Blocking connect: the kernel scans for the device, connects, and returns once the
        # LE link is up (or fails after its connection timeout).
        check(libc.connect(self.sock.fileno(), ctypes.byref(remote), ctypes.sizeof(remote)), "connect")
        self.connect_seconds = round(time.monotonic() - start, 3)
        self.sock.settimeout(timeout)
        self.notifications = []
        self.mtu = 23

    def pdu(self) -> bytes:
        data = self.sock.recv(1024)
        if data and data[0] == NOTIFICATION:
            self.notifications.append({
                "t": round(time.time(), 6),
                "handle": struct.unpack_from("<H", data, 1)[0],
                "hex": data[3:].hex(),
            })
        return data

    def request(self, pdu: bytes, expect: int) -> bytes:
        self.sock.send(pdu)
        while True:
            data = self.pdu()
            if not data:
                raise OSError(errno.ECONNRESET, "link closed")
            if data[0] == expect:
                return data
            if data[0] == ERROR_RSP:
                request, handle, code = struct.unpack_from("<BHB", data, 1)
                raise AttError(request, handle, code)
            # a notification (recorded by pdu()) or something unexpected: keep reading

    def exchange_mtu(self, mtu: int) -> None:
        rsp = self.request(struct.pack("<BH", MTU_REQ, mtu), MTU_RSP)
        self.mtu = min(mtu, struct.unpack_from("<H", rsp, 1)[0])

    def read_by_group(self, start: int, end: int, group_type: int) -> list:
        out = []
        while start <= end:
            try:
                rsp = self.request(struct.pack("<BHHH", READ_BY_GROUP_REQ, start, end, group_type), READ_BY_GROUP_RSP)
            except AttError as error:
                if error.code == ATTRIBUTE_NOT_FOUND:
                    break
                raise
            length = rsp[1]
            last_end = start
            for i in range(2, len(rsp) - length + 1, length):
                handle, group_end = struct.unpack_from("<HH", rsp, i)
                out.append((handle, group_end, uuid_str(rsp[i + 4:i + length])))
                last_end = group_end
            if last_end >= end or last_end == 0xFFFF:
                break
            start = last_end + 1
        return out

    def read_by_type(self, start: int, end: int, attr_type: int) -> list:
        out = []
        while start <= end:
            try:
                rsp = self.request(struct.pack("<BHHH", READ_BY_TYPE_REQ, start, end, attr_type), READ_BY_TYPE_RSP)
            except AttError as error:
                if error.code == ATTRIBUTE_NOT_FOUND:
                    break
                raise
            length = rsp[1]
            last = start
            for i in range(2, len(rsp) - length + 1, length):
                handle = struct.unpack_from("<H", rsp, i)[0]
                out.append((handle, rsp[i + 2:i + length]))
                last = handle
            start = last + 1
        return out

    def find_information(self, start: int, end: int) -> list:
        out = []
        while start <= end:
            try:
                rsp = self.request(struct.pack("<BHH", FIND_INFO_REQ, start, end), FIND_INFO_RSP)
            except AttError as error:
                if error.code == ATTRIBUTE_NOT_FOUND:
                    break
                raise
            size = 2 if rsp[1] == 1 else 16
            last = start
            for i in range(2, len(rsp) - (2 + size) + 1, 2 + size):
                handle = struct.unpack_from("<H", rsp, i)[0]
                out.append((handle, uuid_str(rsp[i + 2:i + 2 + size])))
                last = handle
            start = last + 1
        return out

    def read(self, handle: int) -> bytes:
        return self.request(struct.pack("<BH", READ_REQ, handle), READ_RSP)[1:]

    def write(self, handle: int, value: bytes) -> None:
        self.request(struct.pack("<BH", WRITE_REQ, handle) + value, WRITE_RSP)

    def discover(self) -> list:
        services = []
        for start, end, uuid in self.read_by_group(0x0001, 0xFFFF, 0x2800):
            service = {"uuid": uuid, "start": start, "end": end, "characteristics": []}
            declarations = self.read_by_type(start, end, 0x2803)
            for index, (decl_handle, value) in enumerate(declarations):
                properties, value_handle = struct.unpack_from("<BH", value, 0)
                char = {
                    "uuid": uuid_str(value[3:]),
                    "properties": properties,
                    "declaration_handle": decl_handle,
                    "value_handle": value_handle,
                    "descriptors": [],
                }
                last = declarations[index + 1][0] - 1 if index + 1 < len(declarations) else end
                if value_handle < last:
                    for handle, d_uuid in self.find_information(value_handle + 1, last):
                        char["descriptors"].append({"uuid": d_uuid, "handle": handle})
                if properties & 0x02:  # readable
                    try:
                        char["value_hex"] = self.read(value_handle).hex()
                    except AttError as error:
                        char["read_error"] = error.code
                service["characteristics"].append(char)
            services.append(service)
        return services


def write_control(folder: str, command: dict) -> str:
    """Atomically drop a command for the host (temporary name, then rename)."""
    os.makedirs(folder, exist_ok=True)
    name = f"{time.strftime('%H%M%S')}-{int(time.time() * 1000) % 1000:03d}-{command['device']}-{command['action']}.json"
    tmp = os.path.join(folder, "." + name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(command, f)
    os.rename(tmp, os.path.join(folder, name))
    return name


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("address")
    parser.add_argument("--random", action="store_true", help="the peer's address is LE random")
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default=None, help="hr|footpod (for control commands)")
    parser.add_argument("--notifications", type=int, default=3, help="well-formed ones to collect first")
    parser.add_argument("--then-dropout", type=float, default=None, metavar="S",
                        help="then ask the host to drop the device for S seconds and wait for the link loss")
    parser.add_argument("--then-malformed", action="store_true",
                        help="then ask the host for malformed notifications and collect them")
    parser.add_argument("--extra", type=int, default=2, help="well-formed notifications to collect after the malformed ones")
    parser.add_argument("--control", default=os.path.join(os.environ.get("RESULTS", "."), "control"))
    parser.add_argument("--timeout", type=float, default=15.0, help="per-receive timeout")
    args = parser.parse_args()

    result = {"address": args.address, "ok": False}

    def save() -> None:
        with open(args.out + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(args.out + ".tmp", args.out)

    try:
        client = Client(args.address, BDADDR_LE_RANDOM if args.random else BDADDR_LE_PUBLIC, args.timeout)
        result["connect_seconds"] = client.connect_seconds
        result["connected_at"] = round(time.time(), 6)
        client.exchange_mtu(185)
        result["mtu"] = client.mtu
        services = client.discover()
        result["services"] = services
        measurement = next(
            (c for s in services for c in s["characteristics"] if c["uuid"] in MEASUREMENTS), None
        )
        if measurement is None:
            raise RuntimeError("no Heart Rate / RSC measurement characteristic")
        cccd = next((d for d in measurement["descriptors"] if d["uuid"] == "2902"), None)
        if cccd is None:
            raise RuntimeError("the measurement characteristic has no CCCD")
        client.write(cccd["handle"], struct.pack("<H", 1))
        result["subscribed_handle"] = measurement["value_handle"]
        result["notifications"] = client.notifications

        def collect(count: int) -> None:
            target = len(client.notifications) + count
            while len(client.notifications) < target:
                if not client.pdu():
                    raise OSError(errno.ECONNRESET, "link closed")

        collect(args.notifications)
        if args.then_malformed:
            name = write_control(args.control, {"device": args.device, "action": "malformed",
                                                "kinds": ["truncated", "flags_overrun", "empty"]})
            result["control"] = name
            collect(3 + args.extra)
        if args.then_dropout is not None:
            name = write_control(args.control, {"device": args.device, "action": "dropout",
                                                "seconds": args.then_dropout})
            result["control"] = name
            result["dropout_requested_at"] = round(time.time(), 6)
            client.sock.settimeout(args.then_dropout + 10)
            try:
                while client.pdu():
                    pass
                result["link_lost"] = {"errno": 0, "name": "EOF", "t": round(time.time(), 6)}
            except OSError as error:
                result["link_lost"] = {
                    "errno": error.errno,
                    "name": errno.errorcode.get(error.errno, str(error.errno)),
                    "t": round(time.time(), 6),
                }
        result["ok"] = True
        return_code = 0
    except Exception as error:  # record what happened, for the checker and the log
        result["error"] = f"{type(error).__name__}: {error}"
        return_code = 1
    save()
    print(json.dumps({k: v for k, v in result.items() if k not in ("services", "notifications")}))
    return return_code


if __name__ == "__main__":
    sys.exit(main())
