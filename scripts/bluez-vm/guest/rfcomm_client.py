#!/usr/bin/python3
"""scripts/bluez-vm/guest/rfcomm_client.py — a classic (BR/EDR) strap client on the kernel's own
sockets: mgmt pairing answers, SDP, RFCOMM, a dropout and a reconnection.

Runs in the VM under Debian's /usr/bin/python3 (its socket module has AF_BLUETOOTH; pyenv's
does not). No bluetoothd: this is the kernel path the project's binaries use.

* Pairing: a thread on the mgmt control socket (BTPROTO_HCI bound to HCI_DEV_NONE, channel
  HCI_CHANNEL_CONTROL — through ctypes, since Python 3.11's HCI address has no channel) answers
  PIN Code Request (event 0x000E) with PIN Code Reply (0x0016, --pin) and User Confirmation
  Request (0x000F) with User Confirmation Reply (0x001C), and records every mgmt event.
* SDP: our own Service Search Attribute Request for a UUID-16 (default 0x1101 Serial Port) over
  an L2CAP SOCK_SEQPACKET socket on PSM 1, continuations followed, data elements parsed; the
  RFCOMM channel comes from the Protocol Descriptor List, the name from attribute 0x0100.
* RFCOMM: SOCK_STREAM to that channel with BT_SECURITY --security (medium: the kernel
  authenticates — legacy PIN here — and encrypts before it opens the DLC). Received bytes are
  framed as Zephyr HxM packets (02 26 37 … CRC 03, resynchronising after garbage).
* Optionally sets the ACL's link supervision timeout (--lsto-ms: HCI Write Link Supervision
  Timeout on a raw HCI socket, handle from HCIGETCONNINFO; the guest is the link's central).
  The default, 20 s, would outlast a short dropout: the stream would stall, not break.
* After --first-seconds it asks the host for a dropout (--dropout S, via $RESULTS/control),
  reads until the socket fails (ETIMEDOUT for a supervision timeout; beware: Python raises
  TimeoutError for it, the class of its own read timeouts), then pages the strap with HCI
  Remote Name Requests until it answers (0x04 Page Timeout meanwhile) and only then
  reconnects: in Debian's 6.1.0-56 kernel a BR/EDR connect() that fails with Page Timeout
  crashes the kernel when its socket is released (see wait_present). Then it reads
  --then-seconds more and closes.

Writes one JSON object to --out: address, sdp {channel, name, records, pdus, seconds},
links [{connect_started, connected_at, connect_seconds, attempts [{t, errno, name}], lsto,
chunks, bytes, frames [{t, hex}], garbage, end {t, errno, name}, closed_at}],
dropout_requested_at, presence_probes [{t, status, name, seconds}], mgmt [{t, event, code,
hex, …}], ok, error.

Usage: rfcomm_client.py ADDRESS --out FILE [--uuid 0x1101] [--pin 1234] [--security medium]
           [--first-seconds 20] [--dropout 10] [--then-seconds 10] [--lsto-ms 4000]
           [--device hxm] [--control DIR]
"""

import argparse
import ctypes
import errno
import fcntl
import json
import os
import socket
import struct
import sys
import threading
import time

BTPROTO_L2CAP, BTPROTO_HCI, BTPROTO_RFCOMM = 0, 1, 3
SOL_BLUETOOTH, BT_SECURITY = 274, 4
SECURITY_LEVELS = {"sdp": 0, "low": 1, "medium": 2, "high": 3, "fips": 4}
HCI_DEV_NONE, HCI_CHANNEL_CONTROL = 0xFFFF, 3
SOL_HCI, HCI_FILTER = 0, 2
HCIGETCONNINFO = 0x800448D5  # _IOR('H', 213, int)
ACL_LINK = 1

MGMT_EVENTS = {
    0x0001: "command_complete", 0x0002: "command_status", 0x0009: "new_link_key",
    0x000B: "device_connected", 0x000C: "device_disconnected", 0x000D: "connect_failed",
    0x000E: "pin_code_request", 0x000F: "user_confirm_request", 0x0010: "user_passkey_request",
    0x0011: "auth_failed", 0x0012: "device_found",
}
PIN_CODE_REPLY, USER_CONFIRM_REPLY = 0x0016, 0x001C

libc = ctypes.CDLL(None, use_errno=True)


def now() -> float:
    return round(time.time(), 6)


def say(text: str) -> None:
    print(f"[rfcomm_client {time.strftime('%H:%M:%S')}.{int(time.time() * 1000) % 1000:03d}] {text}",
          file=sys.stderr, flush=True)


def bdaddr(address: str) -> bytes:
    """bdaddr_t: little-endian, the printed order reversed."""
    return bytes(reversed(bytes.fromhex(address.replace(":", ""))))


def printed(raw: bytes) -> str:
    return ":".join(f"{b:02X}" for b in reversed(raw))


# --- mgmt: the pairing answers ------------------------------------------------------------------
class SockaddrHci(ctypes.Structure):
    _fields_ = [("hci_family", ctypes.c_ushort), ("hci_dev", ctypes.c_ushort), ("hci_channel", ctypes.c_ushort)]


class Mgmt(threading.Thread):
    def __init__(self, pin: str) -> None:
        super().__init__(daemon=True)
        self.pin = pin.encode()
        self.events: list[dict] = []
        self.sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW | socket.SOCK_CLOEXEC, BTPROTO_HCI)
        address = SockaddrHci(socket.AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_CONTROL)
        if libc.bind(self.sock.fileno(), ctypes.byref(address), ctypes.sizeof(address)) != 0:
            code = ctypes.get_errno()
            raise OSError(code, f"bind mgmt control channel: {os.strerror(code)}")

    def send(self, opcode: int, index: int, params: bytes) -> None:
        self.sock.send(struct.pack("<HHH", opcode, index, len(params)) + params)

    def run(self) -> None:
        while True:
            try:
                data = self.sock.recv(1024)
            except OSError:
                return
            if len(data) < 6:
                continue
            code, index, length = struct.unpack_from("<HHH", data)
            params = data[6:6 + length]
            event = {"t": now(), "event": MGMT_EVENTS.get(code, f"0x{code:04X}"), "code": code,
                     "index": index, "hex": params.hex()}
            if code in (0x0001, 0x0002) and len(params) >= 3:
                event["opcode"], event["status"] = struct.unpack_from("<HB", params)
            elif code == 0x000E:     # PIN Code Request: address, type, secure
                event.update(address=printed(params[:6]), address_type=params[6], secure=params[7])
                reply = params[:7] + bytes([len(self.pin)]) + self.pin.ljust(16, b"\0")
                self.send(PIN_CODE_REPLY, index, reply)
                event["reply"] = f"PIN Code Reply 0x{PIN_CODE_REPLY:04X} ({self.pin.decode()})"
            elif code == 0x000F:     # User Confirmation Request: address, type, hint, value
                event.update(address=printed(params[:6]), address_type=params[6], confirm_hint=params[7],
                             value=struct.unpack_from("<I", params, 8)[0])
                self.send(USER_CONFIRM_REPLY, index, params[:7])
                event["reply"] = f"User Confirmation Reply 0x{USER_CONFIRM_REPLY:04X}"
            elif code == 0x0009:     # New Link Key: store hint, address, type, key type, key, PIN length
                event.update(store_hint=params[0], address=printed(params[1:7]), key_type=params[8],
                             pin_length=params[25])
            elif code in (0x000C, 0x000D, 0x0011):  # reason / status after the address
                event.update(address=printed(params[:6]), status_or_reason=params[7])
            elif code == 0x000B:
                event.update(address=printed(params[:6]))
            self.events.append(event)
            if code not in (0x0012,):
                say(f"mgmt {event['event']} {event.get('address', '')} {event.get('reply', '')}".rstrip())


# --- SDP ---------------------------------------------------------------------------------------
def data_element(buf: bytes, pos: int):
    """One SDP data element at pos: (value, next pos). Sequences become lists, UUIDs ints
    (16/32-bit) or hex strings (128-bit), text bytes → str."""
    header = buf[pos]
    kind, size_index = header >> 3, header & 7
    pos += 1
    if size_index < 5:
        size = 0 if kind == 0 else (1, 2, 4, 8, 16)[size_index]
    else:
        width = (1, 2, 4)[size_index - 5]
        size = int.from_bytes(buf[pos:pos + width], "big")
        pos += width
    body = buf[pos:pos + size]
    if len(body) != size:
        raise ValueError(f"SDP data element at {pos} runs past the end")
    end = pos + size
    if kind == 0:
        return None, end
    if kind in (1, 2):
        return int.from_bytes(body, "big", signed=kind == 2), end
    if kind == 3:
        return (int.from_bytes(body, "big") if size in (2, 4) else body.hex()), end
    if kind in (4, 8):
        return body.decode("utf-8", "replace").rstrip("\0"), end
    if kind == 5:
        return bool(body[0]), end
    if kind in (6, 7):
        items, p = [], pos
        while p < end:
            item, p = data_element(buf, p)
            items.append(item)
        return items, end
    raise ValueError(f"SDP data element type {kind}")


def sdp_search(address: str, uuid16: int, timeout: float = 15.0) -> dict:
    started = time.monotonic()
    sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_SEQPACKET, BTPROTO_L2CAP)
    sock.settimeout(timeout)
    try:
        sock.connect((address, 1))
        connected = time.monotonic()
        pattern = bytes([0x35, 0x03, 0x19]) + uuid16.to_bytes(2, "big")
        attributes = bytes([0x35, 0x05, 0x0A, 0x00, 0x00, 0xFF, 0xFF])  # all: 0x0000-0xFFFF
        lists, continuation, transaction, pdus = b"", b"\0", 0, 0
        while True:
            transaction += 1
            params = pattern + struct.pack(">H", 0x0200) + attributes + continuation
            sock.send(struct.pack(">BHH", 0x06, transaction, len(params)) + params)
            rsp = sock.recv(4096)
            pdus += 1
            pdu_id, tid, length = struct.unpack_from(">BHH", rsp)
            if pdu_id == 0x01:
                raise OSError(errno.EPROTO, f"SDP error response 0x{struct.unpack_from('>H', rsp, 5)[0]:04X}")
            if pdu_id != 0x07 or tid != transaction or length != len(rsp) - 5:
                raise OSError(errno.EPROTO, f"unexpected SDP PDU {rsp.hex()}")
            count = struct.unpack_from(">H", rsp, 5)[0]
            lists += rsp[7:7 + count]
            cont_len = rsp[7 + count]
            continuation = rsp[7 + count:8 + count + cont_len]
            if cont_len == 0:
                break
    finally:
        sock.close()
    records, _ = data_element(lists, 0)
    parsed = []
    for record in records:
        attrs = {record[i]: record[i + 1] for i in range(0, len(record) - 1, 2)}
        channel = None
        for protocol in attrs.get(0x0004) or []:
            if protocol and protocol[0] == 0x0003 and len(protocol) > 1:
                channel = protocol[1]
        parsed.append({"handle": attrs.get(0x0000), "classes": attrs.get(0x0001),
                       "protocols": attrs.get(0x0004), "profiles": attrs.get(0x0009),
                       "name": attrs.get(0x0100), "channel": channel,
                       "attribute_ids": sorted(attrs)})
    return {"records": parsed, "pdus": pdus, "raw_hex": lists.hex(),
            "connect_seconds": round(connected - started, 3),
            "seconds": round(time.monotonic() - started, 3)}


# --- Link supervision timeout --------------------------------------------------------------------
def acl_handle(hci_sock: socket.socket, address: str) -> int:
    # struct hci_conn_info_req {bdaddr, type} is padded to 8 bytes; struct hci_conn_info
    # {u16 handle, bdaddr, type, out, u16 state, u32 link_mode} follows it.
    request = bytearray(bdaddr(address) + bytes([ACL_LINK, 0]) + bytes(16))
    fcntl.ioctl(hci_sock.fileno(), HCIGETCONNINFO, request, True)
    return struct.unpack_from("<H", request, 8)[0]


def write_lsto(address: str, slots: int) -> dict:
    """HCI Write Link Supervision Timeout on hci0's raw socket; returns handle + status."""
    sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW, BTPROTO_HCI)
    try:
        sock.bind((0,))
        # Events only, Command Complete (0x0E) only.
        sock.setsockopt(SOL_HCI, HCI_FILTER, struct.pack("<IIIH2x", 1 << 4, 1 << 0x0E, 0, 0))
        handle = acl_handle(sock, address)
        sock.send(bytes([0x01]) + struct.pack("<HBHH", 0x0C37, 4, handle, slots))
        sock.settimeout(3)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            event = sock.recv(260)
            if event[0] == 0x04 and event[1] == 0x0E and struct.unpack_from("<H", event, 4)[0] == 0x0C37:
                return {"handle": handle, "slots": slots, "seconds": slots * 0.000625, "status": event[6]}
        return {"handle": handle, "slots": slots, "status": None}
    finally:
        sock.close()


def remote_name(address: str, timeout: float = 15) -> dict:
    """HCI Remote Name Request on hci0's raw socket: the strap's name, or the status of a
    page that found nobody (0x04 Page Timeout). Unlike connect(), it creates no L2CAP
    connection — see wait_present."""
    sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW, BTPROTO_HCI)
    started = time.monotonic()
    try:
        sock.bind((0,))
        # Events: Command Status (0x0F) and Remote Name Request Complete (0x07).
        sock.setsockopt(SOL_HCI, HCI_FILTER, struct.pack("<IIIH2x", 1 << 4, (1 << 0x0F) | (1 << 0x07), 0, 0))
        # BD_ADDR, page scan repetition mode R2, reserved, clock offset 0
        sock.send(bytes([0x01]) + struct.pack("<HB", 0x0419, 10) + bdaddr(address) + bytes([0x02, 0, 0, 0]))
        sock.settimeout(timeout)
        while True:
            event = sock.recv(260)
            if event[1] == 0x0F and struct.unpack_from("<H", event, 5)[0] == 0x0419 and event[3] != 0:
                return {"t": now(), "status": event[3], "name": None, "seconds": round(time.monotonic() - started, 3)}
            if event[1] == 0x07 and event[4:10] == bdaddr(address):
                name = event[10:].split(b"\0", 1)[0].decode("utf-8", "replace") if event[3] == 0 else None
                return {"t": now(), "status": event[3], "name": name, "seconds": round(time.monotonic() - started, 3)}
    finally:
        sock.close()


def wait_present(address: str, deadline: float, probes: list) -> bool:
    """Pages the strap with Remote Name Requests until it answers. The reconnection then
    connects only to a strap that is there: in Debian's 6.1.0-56 kernel (6.1.192-2) a BR/EDR
    L2CAP or RFCOMM connect() that fails with Page Timeout double-frees the ACL's hci_chan
    when its socket is released (list_del corruption, kernel BUG in hci_chan_del)."""
    while time.monotonic() < deadline:
        probe = remote_name(address)
        probes.append(probe)
        say(f"remote name request: status 0x{probe['status']:02X} {probe['name'] or ''} ({probe['seconds']} s)")
        if probe["status"] == 0:
            return True
        time.sleep(0.2)
    return False


# --- RFCOMM and HxM framing ----------------------------------------------------------------------
def crc8(payload: bytes) -> int:
    crc = 0
    for b in payload:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8C if crc & 1 else crc >> 1
    return crc


class Framer:
    def __init__(self) -> None:
        self.buffer = b""
        self.garbage = 0

    def feed(self, data: bytes) -> list[bytes]:
        self.buffer += data
        frames = []
        while True:
            start = self.buffer.find(b"\x02")
            if start < 0:
                self.garbage += len(self.buffer)
                self.buffer = b""
                return frames
            self.garbage += start
            self.buffer = self.buffer[start:]
            if len(self.buffer) < 3:
                return frames
            size = self.buffer[2] + 5
            if len(self.buffer) < size:
                return frames
            frame = self.buffer[:size]
            if frame[-1] == 0x03 and crc8(frame[3:-2]) == frame[-2]:
                frames.append(frame)
                self.buffer = self.buffer[size:]
            else:
                self.garbage += 1
                self.buffer = self.buffer[1:]


def rfcomm_connect(address: str, channel: int, security: str, timeout: float) -> socket.socket:
    sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_STREAM, BTPROTO_RFCOMM)
    sock.setsockopt(SOL_BLUETOOTH, BT_SECURITY, struct.pack("BB", SECURITY_LEVELS[security], 0))
    sock.settimeout(timeout)
    try:
        sock.connect((address, channel))
    except BaseException:
        sock.close()
        raise
    return sock


def error_record(error: OSError) -> dict:
    code = error.errno or 0
    return {"t": now(), "errno": code, "name": errno.errorcode.get(code, str(error))}


def read_frames(sock: socket.socket, link: dict, framer: Framer, seconds: float | None,
                loss_within: float = 60) -> None:
    """Reads for `seconds` (None: until the socket fails, at most `loss_within` s); records
    frames and the end. One framer per link: a frame may straddle two calls."""
    until_loss = seconds is None
    deadline = time.monotonic() + (loss_within if until_loss else seconds)
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, min(5.0, deadline - time.monotonic())))
        try:
            data = sock.recv(1024)
        except OSError as error:
            # Python 3.10+ raises TimeoutError both for its own read timeout (errno None) and
            # for the kernel's ETIMEDOUT, which is how a supervision timeout (HCI reason 0x08)
            # reaches the socket: tell them apart by errno.
            if isinstance(error, TimeoutError) and error.errno is None:
                continue
            link["end"] = error_record(error)
            say(f"socket error {link['end']['name']} ({link['end']['errno']})")
            return
        if not data:
            link["end"] = {"t": now(), "errno": 0, "name": "EOF"}
            say("socket EOF")
            return
        link["chunks"] += 1
        link["bytes"] += len(data)
        for frame in framer.feed(data):
            link["frames"].append({"t": now(), "hex": frame.hex()})
        link["garbage"] = framer.garbage
    if until_loss:
        link["end"] = {"t": now(), "errno": None, "name": f"no link loss within {loss_within} s"}
        say(link["end"]["name"])


def write_control(folder: str, command: dict) -> str:
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
    parser.add_argument("--out", required=True)
    parser.add_argument("--uuid", default="0x1101", help="service class UUID-16 to look up")
    parser.add_argument("--pin", default="1234")
    parser.add_argument("--security", default="medium", choices=sorted(SECURITY_LEVELS))
    parser.add_argument("--first-seconds", type=float, default=20)
    parser.add_argument("--dropout", type=float, default=None, metavar="S")
    parser.add_argument("--then-seconds", type=float, default=10)
    parser.add_argument("--lsto-ms", type=int, default=0, help="link supervision timeout to set (0: keep 20 s)")
    parser.add_argument("--reconnect-within", type=float, default=40)
    parser.add_argument("--device", default="hxm")
    parser.add_argument("--control", default=os.path.join(os.environ.get("RESULTS", "."), "control"))
    args = parser.parse_args()

    result: dict = {"address": args.address, "ok": False, "links": []}
    mgmt = Mgmt(args.pin)
    mgmt.start()
    result["mgmt"] = mgmt.events

    def save() -> None:
        with open(args.out + ".tmp", "w") as f:
            json.dump(result, f, indent=1)
        os.replace(args.out + ".tmp", args.out)

    def connect_link(deadline: float) -> tuple[socket.socket, dict]:
        link = {"connect_started": now(), "attempts": [], "frames": [], "chunks": 0, "bytes": 0, "garbage": 0}
        result["links"].append(link)
        start = time.monotonic()
        while True:
            try:
                sock = rfcomm_connect(args.address, channel, args.security, timeout=30)
                break
            except OSError as error:
                attempt = error_record(error)
                link["attempts"].append(attempt)
                say(f"connect failed: {attempt['name']} ({attempt['errno']})")
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        link["connected_at"] = now()
        link["connect_seconds"] = round(time.monotonic() - start, 3)
        say(f"RFCOMM channel {channel} connected in {link['connect_seconds']} s "
            f"({len(link['attempts'])} failed attempts)")
        if args.lsto_ms:
            try:
                link["lsto"] = write_lsto(args.address, round(args.lsto_ms / 0.625))
                say(f"link supervision timeout: {link['lsto']}")
            except OSError as error:
                link["lsto"] = {"error": error_record(error)}
        return sock, link

    try:
        say(f"SDP search for 0x{int(args.uuid, 16):04X} on {args.address}")
        result["sdp"] = sdp_search(args.address, int(args.uuid, 16))
        channels = [r["channel"] for r in result["sdp"]["records"] if r["channel"]]
        if not channels:
            raise RuntimeError(f"no RFCOMM channel in the SDP records: {result['sdp']['records']}")
        channel = result["sdp"]["channel"] = channels[0]
        result["sdp"]["name"] = result["sdp"]["records"][0]["name"]
        say(f"SDP: channel {channel}, '{result['sdp']['name']}' in {result['sdp']['seconds']} s")

        sock, link = connect_link(time.monotonic() + 30)
        framer = Framer()
        read_frames(sock, link, framer, args.first_seconds)
        say(f"link 1: {len(link['frames'])} frames")
        if args.dropout is not None:
            result["control"] = write_control(args.control, {"device": args.device, "action": "dropout",
                                                             "seconds": args.dropout})
            result["dropout_requested_at"] = now()
            read_frames(sock, link, framer, None, loss_within=args.dropout + 20)
            if link["end"]["errno"] is None:
                raise RuntimeError(link["end"]["name"])
            sock.close()
            deadline = time.monotonic() + args.reconnect_within
            result["presence_probes"] = []
            if not wait_present(args.address, deadline, result["presence_probes"]):
                raise RuntimeError(f"the strap did not come back within {args.reconnect_within} s")
            sock, link = connect_link(deadline)
            read_frames(sock, link, Framer(), args.then_seconds)
            say(f"link 2: {len(link['frames'])} frames")
        link["closed_at"] = now()
        sock.close()
        result["ok"] = True
        code = 0
    except Exception as error:
        result["error"] = f"{type(error).__name__}: {error}"
        say(f"FAILED: {result['error']}")
        code = 1
    time.sleep(0.3)  # the last mgmt events
    save()
    return code


if __name__ == "__main__":
    sys.exit(main())
