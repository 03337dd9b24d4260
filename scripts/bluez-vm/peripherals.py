#!/usr/bin/env python3
"""scripts/bluez-vm/peripherals.py — the host side of the BlueZ test VM.

Run by `run` on the host (pyenv Python with Bumble 0.0.236). It puts three Bumble controllers
on one simulated radio (a LocalLink subclass, RadioLink):

* "guest": the controller the VM's kernel drives. It serves H4 on a Unix socket; QEMU joins
  the guest's /dev/ttyS1 to it and `btattach` in the guest turns it into hci0. It has a public
  address (signals.GUEST_CONTROLLER_ADDRESS) and presents itself as dual mode, like the Pi's.
* "hr": a heart-rate strap, "Handoff HR", public address F0:F0:F0:00:00:01 — Heart Rate 0x180D
  (Measurement 0x2A37 notify, Body Sensor Location 0x2A38 = 1 chest), Battery 0x180F (0x2A19
  read+notify = 87), Device Information 0x180A (0x2A29 "Handoff Test", 0x2A24 "HR-1",
  0x2A26 "1.0.0", 0x2A25 "HR-0001"). Appearance 0x0341 (heart-rate belt), TX power +4 dBm.
* "footpod": "Handoff Footpod", public address F0:F0:F0:00:00:02 — Running Speed and Cadence
  0x1814 (Measurement 0x2A53 notify, Feature 0x2A54 = 0x0003 stride + distance), Battery (73),
  Device Information (model "FP-1", serial "FP-0001"). Appearance 0x0441 (Running Walking Sensor: In-Shoe; 0x0443 would be On-Hip), TX power 0 dBm.

* "hxm": a classic (BR/EDR only) Zephyr HxM, "HXM026001", public address F0:F0:F0:00:00:03,
  class of device 0x000918 (major Health 0x09, minor heart/pulse rate monitor 0x06: bits 12-8
  and 7-2), page + inquiry scan on, a Bluetooth 2.0 + EDR controller (no SSP, no EIR). SDP:
  one Serial Port record (handle 0x10000, class 0x1101, L2CAP + RFCOMM channel 5 — not 1, so
  a client must look it up —, profile 0x1101 v1.0, name "Bluetooth Serial Port"). Its RFCOMM
  channel needs an authenticated link: legacy pairing with PIN 1234 (if the client does not
  authenticate, the strap does, and refuses the DLC when that fails). While a client holds
  the DLC it sends one 60-byte General Data Packet a second (signals.hxm_frame(n)).

The BLE sensors advertise every 100 ms (legacy ADV_IND, own address public) with flags, their
16-bit service UUID, complete local name, appearance and TX power, all in the advertising data.
While a central is subscribed each sends one measurement a second (signals.py has the
deterministic script; the sequence n continues across reconnections, for the HxM too).

Every notification sent and every link event is one JSON line in $RESULTS/sent.jsonl:
  {"t": unix time, "device": "hr"|"footpod", "n": seq|null, "hex": payload,
   "malformed": false|"truncated"|"flags_overrun"|"empty"}
  {"t": …, "device": "hxm", "n": seq, "hex": frame}   (+ "waiting_for_credits": bytes when
   the client's RFCOMM credits ran out and Bumble holds the frame)
  {"t": …, "device": …, "event": "connected"|"disconnected"|"subscribed"|"unsubscribed"|
   "advertising"|"dropout_start"|"dropout_end"|"command"|…, …details}
  hxm events: ready, connected {peer, handle}, disconnected {reason}, auth_required (a DLC
  asked for on an unauthenticated link), pin_requested {pin}, link_key {peer, key_type},
  authenticated, authentication_failed {status}, auth_failed, encryption {mode: 1 E0, 2
  AES-CCM}, dlc_open {channel, dlci, mtu}, dlc_closed, dropout_start {seconds, links,
  supervision_timeout_s}, dropout_end.

Commands from the guest arrive as JSON files in $RESULTS/control/, executed once each in name
order (polled every 100 ms):
  {"device": "hr", "action": "dropout", "seconds": 20}
      The sensor goes out of range: it stops advertising and the radio drops everything it
      sends or should receive. After the connection's supervision timeout both controllers
      report Disconnection Complete with reason 0x08 (Connection Timeout), as a real link loss
      does — no LL_TERMINATE_IND is exchanged. After `seconds` it advertises again.
  {"device": "hr", "action": "malformed", "kinds": ["truncated", "flags_overrun", "empty"]}
      While subscribed, sends those payloads (signals.MALFORMED), logged with "n": null.
  {"device": "hxm", "action": "dropout", "seconds": 10}
      The classic strap goes out of range: no page or inquiry answers, no frames, the data
      either side sends is held (the baseband retries it). After the link supervision timeout
      (default 20 s; the central sets it with HCI Write Link Supervision Timeout) both
      controllers report Disconnection Complete reason 0x08 and the held data is dropped; a
      strap back before that keeps its link, and the held data goes through. Pages (Create
      Connection, Remote Name Request) meanwhile end with 0x04 Page Timeout after the page
      timeout (5.12 s), or succeed the moment the strap is back.

Bumble 0.0.236 pitfalls handled here: the controller claims "BR/EDR not supported" (set to dual
mode); commands it does not implement get no reply or a bad one (answered here: success with
zeroed values for the reads the kernel's init needs, an error status otherwise); LocalLink
routes LE data by the sender's *random* address (routed by the connection's own address here);
LE Create Connection Cancel neither clears the pending connection nor reports it (fixed);
LE Connection Complete is sent even when the host asked for the enhanced event (fixed);
scan reports are always extended, without the legacy bit, with the advertising data repeated
as scan response, and no duplicate filtering (reports here follow the scan commands the host
used, carry the real scan response, and honour duplicate filtering); HCI_Reset leaves links
up (dropped here, the peer sees a supervision timeout).

BR/EDR (ClassicMixin, for the guest's controller and the strap's; details in its docstring):
Bumble 0.0.236 has no legacy PIN pairing at all (Authentication Requested always starts SSP and
never asks the host for a stored link key), no Set Connection Encryption (the kernel waited for
ever), no link supervision timeout, no Read Clock Offset, no inquiry, no page timeout (a page
to an absent device raised an exception in the link), forgets the class of device, leaves a
refused page's connection behind, and reports the host's own disconnect reason locally (0x16
here). Its RFCOMM DLC ignores DISC (answers UA, stays open: closed here). Its LocalLink routes
BR/EDR data fine, but RadioLink holds it while an end is out of range.

Usage: peripherals.py --socket PATH --results DIR [--debug]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
import signal
import sys
import time
from typing import Any

from bumble import hci, lmp, rfcomm, sdp
from bumble.controller import Connection as LinkConnection
from bumble.controller import Controller
from bumble.core import UUID, PhysicalTransport
from bumble.device import Device, DeviceConfiguration
from bumble.gatt import Characteristic, Service
from bumble.host import Host
from bumble.link import LocalLink
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport.common import AsyncPipeSink
from bumble.transport.unix import open_unix_server_transport

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import signals  # noqa: E402  (our deterministic measurement script)

log = logging.getLogger("peripherals")

CONNECTION_TIMEOUT = 0x08  # HCI error code: Connection Timeout (supervision timeout)
UNKNOWN_CONNECTION_ID = 0x02
UNKNOWN_COMMAND = 0x01
PAGE_TIMEOUT = 0x04
AUTHENTICATION_FAILURE = 0x05
PIN_OR_KEY_MISSING = 0x06
CONNECTION_ALREADY_EXISTS = 0x0B
COMMAND_DISALLOWED = 0x0C
LOCAL_HOST_TERMINATED = 0x16
SLOT_S = 0.000625              # BR/EDR baseband slot: page and supervision timeouts count these
DEFAULT_LSTO = 0x7D00          # default link supervision timeout: 32 000 slots = 20 s
DEFAULT_PAGE_TIMEOUT = 0x2000  # 8192 slots = 5.12 s
COMBINATION_KEY = 0x00         # legacy (PIN) link key type
P256_KEY_TYPES = (0x07, 0x08)  # SSP keys from P-256: the link is encrypted with AES-CCM
SSP_BOTH = (hci.LmpFeatureMask.SECURE_SIMPLE_PAIRING_CONTROLLER_SUPPORT
            | hci.LmpFeatureMask.SECURE_SIMPLE_PAIRING_HOST_SUPPORT)


# ---------------------------------------------------------------------------------------------
# The event log ($RESULTS/sent.jsonl)
# ---------------------------------------------------------------------------------------------
class EventLog:
    def __init__(self, path: str) -> None:
        self.file = open(path, "a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        record = {"t": round(time.time(), 6), **record}
        self.file.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.file.flush()


# ---------------------------------------------------------------------------------------------
# The radio
# ---------------------------------------------------------------------------------------------
class RadioLink(LocalLink):
    """LocalLink that routes LE data by the connections' own addresses and can take a
    controller out of range (everything it sends or should receive is lost)."""

    def __init__(self) -> None:
        super().__init__()
        self.out_of_range: set[Controller] = set()
        # BR/EDR data sent while an end is out of range: (sender, receiver, sender's
        # connection, data). The baseband retransmits until the link supervision timeout, so
        # it is delivered if the link survives the gap and dropped with it otherwise.
        self.held: list[tuple] = []
        # Classic links waiting for their supervision timeout: (controller, its connection,
        # peer, peer's connection, timer).
        self.classic_timers: list[tuple] = []

    def in_range(self, a, b) -> bool:
        return a is not None and b is not None and a not in self.out_of_range and b not in self.out_of_range

    def classic_reachable(self, sender, address):
        """The controller a page to `address` reaches now: it exists, is in range and its
        page scan is on (Write Scan Enable bit 1). Otherwise None: the page times out."""
        target = self.find_classic_controller(address)
        if target is None or target is sender or not self.in_range(sender, target):
            return None
        return target if target.classic_scan_enable & 0x02 else None

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if transport == PhysicalTransport.BR_EDR:
            destination = self.find_classic_controller(destination_address)
            if destination is None:
                log.warning("BR/EDR data for unknown %s dropped", destination_address)
                return
            connection = sender_controller.classic_connections.get(destination_address)
            if not self.in_range(sender_controller, destination):
                self.held.append((sender_controller, destination, connection, data))
                return
            asyncio.get_running_loop().call_soon(
                destination.on_link_acl_data, sender_controller.public_address, transport, data)
            return
        if transport != PhysicalTransport.LE:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        destination = self.find_le_controller(destination_address)
        if destination is None:
            log.warning("ACL data for unknown %s dropped", destination_address)
            return
        if sender_controller in self.out_of_range or destination in self.out_of_range:
            log.debug("ACL data %s -> %s lost (out of range)", sender_controller.name, destination.name)
            return
        # Bumble's LocalLink names the sender by its controller's random address; the receiver
        # looks its connection up by the peer address it connected to. Use the address this
        # connection really has on the sender's side.
        connection = sender_controller.le_connections.get(destination_address)
        source = connection.self_address if connection else sender_controller.random_address
        asyncio.get_running_loop().call_soon(destination.on_link_acl_data, source, transport, data)

    def send_advertising_pdu(self, sender_controller, packet):
        if sender_controller in self.out_of_range:
            return
        super().send_advertising_pdu(sender_controller, packet)

    def send_ll_control_pdu(self, sender_address, receiver_address, packet):
        sender = self.find_le_controller(sender_address)
        receiver = self.find_le_controller(receiver_address)
        if sender in self.out_of_range or receiver in self.out_of_range:
            log.debug("LL control PDU %s lost (out of range)", packet)
            return
        super().send_ll_control_pdu(sender_address, receiver_address, packet)

    def send_lmp_packet(self, sender_controller, receiver_address, packet):
        # Bumble raises for an unknown receiver; a radio just loses the packet (pages and
        # name requests that need an answer time out in ClassicMixin).
        receiver = self.find_classic_controller(receiver_address)
        if not self.in_range(sender_controller, receiver):
            log.debug("LMP %s %s -> %s lost", type(packet).__name__, sender_controller.name, receiver_address)
            return
        super().send_lmp_packet(sender_controller, receiver_address, packet)

    def send_security(self, sender, receiver_address, message: dict) -> None:
        """ClassicMixin's stand-in for the LMP security PDUs Bumble lacks (in_rand, au_rand,
        sres, comb_key, start_encryption_req, supervision_timeout)."""
        receiver = self.find_classic_controller(receiver_address)
        if not self.in_range(sender, receiver):
            log.debug("LMP security %s %s -> %s lost", message.get("op"), sender.name, receiver_address)
            return
        asyncio.get_running_loop().call_soon(receiver.on_security_message, sender.public_address, message)

    def go_out_of_range(self, controller: Controller) -> None:
        """The device's radio vanishes: after each link's supervision timeout, both ends
        report the loss with reason 0x08."""
        self.out_of_range.add(controller)
        loop = asyncio.get_running_loop()
        for connection in list(controller.le_connections.values()):
            timeout_s = getattr(connection, "supervision_timeout_s", 0.42)
            log.info("%s out of range: link to %s times out in %.2f s",
                     controller.name, connection.peer_address, timeout_s)
            loop.call_later(timeout_s, self.supervision_timeout, controller, connection)
        for connection in list(controller.classic_connections.values()):
            if not connection.handle:
                continue  # a page still in progress
            lsto = getattr(connection, "lsto", DEFAULT_LSTO)
            if lsto == 0:
                continue  # "no supervision timeout": the link waits for ever
            peer = self.find_classic_controller(connection.peer_address)
            peer_connection = peer.classic_connections.get(controller.public_address) if peer else None
            log.info("%s out of range: BR/EDR link to %s times out in %.2f s",
                     controller.name, connection.peer_address, lsto * SLOT_S)
            timer = loop.call_later(lsto * SLOT_S, self.classic_supervision_timeout,
                                    controller, connection, peer, peer_connection)
            self.classic_timers.append((controller, connection, peer, peer_connection, timer))

    def back_in_range(self, controller: Controller) -> None:
        self.out_of_range.discard(controller)
        # Classic links that both ends still hold survive the gap: the supervision timers stop
        # and the data the baseband kept retrying goes through.
        kept = []
        for entry in self.classic_timers:
            a, a_conn, b, b_conn, timer = entry
            alive = (self.in_range(a, b) and a.classic_connections.get(a_conn.peer_address) is a_conn
                     and b_conn is not None and b.classic_connections.get(a.public_address) is b_conn)
            if alive:
                timer.cancel()
                log.info("%s back in range before the BR/EDR link to %s timed out", a.name, b.name)
            else:
                kept.append(entry)  # the timer fires (it removes its own entry)
        self.classic_timers = kept
        held, self.held = self.held, []
        for sender, destination, connection, data in held:
            if not self.in_range(sender, destination):
                self.held.append((sender, destination, connection, data))
            elif connection is not None and sender.classic_connections.get(destination.public_address) is connection:
                asyncio.get_running_loop().call_soon(
                    destination.on_link_acl_data, sender.public_address, PhysicalTransport.BR_EDR, data)
        self.reachability_changed()

    def reachability_changed(self) -> None:
        """A device came back or turned page scan on: pages (connections, name requests)
        waiting for it succeed now."""
        for pager in list(self.controllers):
            for address, (command, timer) in list(getattr(pager, "pending_pages", {}).items()):
                if self.classic_reachable(pager, address):
                    timer.cancel()
                    del pager.pending_pages[address]
                    pager.page(command)
            for address, timer in list(getattr(pager, "pending_names", {}).items()):
                if self.classic_reachable(pager, address):
                    timer.cancel()
                    del pager.pending_names[address]
                    pager.send_lmp_packet(address, lmp.LmpNameReq(0))

    def classic_supervision_timeout(self, controller, connection, peer, peer_connection) -> None:
        self.classic_timers = [e for e in self.classic_timers if e[1] is not connection]
        if controller.classic_connections.get(connection.peer_address) is connection:
            controller.on_classic_disconnected(connection.peer_address, CONNECTION_TIMEOUT)
        if peer is not None and peer_connection is not None \
                and peer.classic_connections.get(controller.public_address) is peer_connection:
            peer.on_classic_disconnected(controller.public_address, CONNECTION_TIMEOUT)
        # What the baseband was still retrying on this link is gone with it.
        self.held = [h for h in self.held if h[2] is not connection and h[2] is not peer_connection]

    def supervision_timeout(self, controller: Controller, connection) -> None:
        if controller.le_connections.get(connection.peer_address) is not connection:
            return  # already gone
        peer = self.find_le_controller(connection.peer_address)
        controller.on_le_disconnected(connection, CONNECTION_TIMEOUT)
        if peer is not None and peer is not controller:
            peer_connection = peer.le_connections.get(connection.self_address)
            if peer_connection is not None:
                peer.on_le_disconnected(peer_connection, CONNECTION_TIMEOUT)

    def lose_all_links(self, controller: Controller) -> None:
        """The controller was reset: its peers see their links time out."""
        for connection in list(controller.le_connections.values()):
            peer = self.find_le_controller(connection.peer_address)
            if peer is not None and peer is not controller:
                peer_connection = peer.le_connections.get(connection.self_address)
                if peer_connection is not None:
                    peer.on_le_disconnected(peer_connection, CONNECTION_TIMEOUT)
        controller.le_connections.clear()
        for connection in list(controller.classic_connections.values()):
            peer = self.find_classic_controller(connection.peer_address)
            if peer is not None and peer is not controller \
                    and controller.public_address in peer.classic_connections:
                peer.on_classic_disconnected(controller.public_address, CONNECTION_TIMEOUT)
        controller.classic_connections.clear()
        for _command, timer in getattr(controller, "pending_pages", {}).values():
            timer.cancel()
        getattr(controller, "pending_pages", {}).clear()
        for timer in getattr(controller, "pending_names", {}).values():
            timer.cancel()
        getattr(controller, "pending_names", {}).clear()


class RawEvent:
    """An HCI event given as bytes (for replies Bumble has no class for)."""

    def __init__(self, raw: bytes, text: str) -> None:
        self.raw, self.text = raw, text

    def __bytes__(self) -> bytes:
        return self.raw

    def __str__(self) -> str:
        return self.text


def command_complete(op_code: int, status: int, params: bytes = b"") -> RawEvent:
    body = bytes([1, op_code & 0xFF, op_code >> 8, status]) + params
    return RawEvent(bytes([hci.HCI_EVENT_PACKET, 0x0E, len(body)]) + body,
                    f"Command_Complete(0x{op_code:04X}, status=0x{status:02X}, {params.hex()})")


def command_status(op_code: int, status: int) -> RawEvent:
    body = bytes([status, 1, op_code & 0xFF, op_code >> 8])
    return RawEvent(bytes([hci.HCI_EVENT_PACKET, 0x0F, len(body)]) + body,
                    f"Command_Status(0x{op_code:04X}, status=0x{status:02X})")


# ---------------------------------------------------------------------------------------------
# BR/EDR: what Bumble's controller lacks, for the guest's controller and the classic strap
# ---------------------------------------------------------------------------------------------
def legacy_link_key(pin: bytes, initiator: hci.Address, responder: hci.Address, nonce: bytes) -> bytes:
    """The combination key of a legacy pairing. Not E21/E22 (SAFER+): only both controllers of
    this simulation see it, and it must differ per pairing and depend on the PIN."""
    return hashlib.sha256(b"legacy" + pin + bytes(initiator) + bytes(responder) + nonce).digest()[:16]


class ClassicMixin:
    """BR/EDR behaviour for a Bumble controller (mixed in before Controller).

    * Pages obey the radio: Create Connection (and Remote Name Request) to a device that is out
      of range, unknown or not page-scanning ends after the page timeout (Write Page Timeout,
      default 5.12 s) with status 0x04 Page Timeout — Bumble raised an exception instead. A
      page still waiting when the device comes back succeeds at once. Create Connection
      Cancel works; a refused page leaves no stale connection behind.
    * Legacy (PIN) pairing, which Bumble does not implement at all (its Authentication
      Requested always starts SSP with an IO Capability Request and never asks for the link
      key): when either side lacks SSP (controller or host feature), the initiator's host gets
      Link Key Request; with a key, the responder's host is asked for its key (au_rand/sres)
      and a mismatch fails with 0x05, a missing key with 0x06; without one, both hosts get PIN
      Code Request (in_rand), equal PINs give both a Link Key Notification (combination key,
      type 0x00) and the initiator Authentication Complete; different PINs fail with 0x05.
      The responder's host gets no Authentication Complete, as on a real controller. The LMP
      exchange is simulated by RadioLink.send_security, the key is not E22.
    * Set Connection Encryption (unimplemented: the kernel waited for ever) answers Encryption
      Change on both ends: 0x01 (E0) for a legacy key, 0x02 (AES-CCM) for an SSP P-256 key
      (with E0 there the kernel drops the link).
    * Write/Read Link Supervision Timeout (central only; the peripheral's host gets Link
      Supervision Timeout Changed), used by RadioLink when a device goes out of range
      (default 20 s, as the spec's).
    * Read Clock Offset (the kernel sends it before disconnecting), Write/Read Page Timeout,
      Write/Read Class of Device (Bumble forgot the value), Write Extended Inquiry Response.
    * Inquiry (Bumble has none): devices in range with inquiry scan on answer with their class
      of device — Inquiry Result, Inquiry Result with RSSI, or Extended Inquiry Result when
      the device supports EIR, by the host's Write Inquiry Mode — then Inquiry Complete after
      inquiry_length × 1.28 s; Inquiry Cancel ends it silently.
    * Disconnect reports 0x16 (terminated by local host) locally, as a real controller does;
      Bumble reported the reason the host sent to the peer.
    """

    supports_eir = True
    GENERIC_OPS = {0x0C36, 0x0C17, 0x0C44}  # no Bumble class: see on_hci_command_packet

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.page_timeout_slots = DEFAULT_PAGE_TIMEOUT
        self.class_of_device = 0
        self.eir = b""
        self.pending_pages: dict = {}     # address -> (Create Connection command, timer)
        self.pending_names: dict = {}     # address -> timer (Remote Name Request paging)
        self.inquiry_mode = 0
        self.inquiry_timers: list = []

    # Helpers ------------------------------------------------------------------------------
    def later(self, packet) -> None:
        """Sends an event after the Command Complete of the command being handled."""
        asyncio.get_running_loop().call_soon(self.send_hci_packet, packet)

    def complete(self, op_code: int, status: int, params: bytes = b"") -> None:
        self.send_hci_packet(command_complete(op_code, status, params))

    def page_timeout_s(self) -> float:
        return self.page_timeout_slots * SLOT_S

    def ssp_link(self, connection) -> bool:
        peer = self.link.find_classic_controller(connection.peer_address)
        return (peer is not None and (self.lmp_features & SSP_BOTH) == SSP_BOTH
                and (peer.lmp_features & SSP_BOTH) == SSP_BOTH)

    def legacy_state(self, address):
        connection = self.classic_connections.get(address)
        return connection, (getattr(connection, "legacy", None) if connection is not None else None)

    # Commands that have no Bumble class arrive as generic commands: answered here by op code.
    def on_hci_command_packet(self, command) -> None:
        op = command.op_code
        params = bytes(command.parameters or b"")
        if op == 0x0C36:    # Read Link Supervision Timeout
            handle = int.from_bytes(params[:2], "little")
            connection = self.find_classic_connection_by_handle(handle)
            if connection is None:
                return self.complete(op, UNKNOWN_CONNECTION_ID, params[:2] + bytes(2))
            lsto = getattr(connection, "lsto", DEFAULT_LSTO)
            return self.complete(op, 0, params[:2] + lsto.to_bytes(2, "little"))
        if op == 0x0C17:    # Read Page Timeout
            return self.complete(op, 0, self.page_timeout_slots.to_bytes(2, "little"))
        if op == 0x0C44:    # Read Inquiry Mode
            return self.complete(op, 0, bytes([self.inquiry_mode]))
        return super().on_hci_command_packet(command)

    # Paging -------------------------------------------------------------------------------
    def on_hci_create_connection_command(self, command):
        address = command.bd_addr
        existing = self.classic_connections.get(address)
        if (existing is not None and existing.handle) or address in self.pending_pages:
            self._send_hci_command_status(CONNECTION_ALREADY_EXISTS, command.op_code)
            return None
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        if self.link.classic_reachable(self, address):
            self.page(command)
        else:
            log.info("%s: page to %s: no answer (out of range or not connectable)", self.name, address)
            timer = asyncio.get_running_loop().call_later(self.page_timeout_s(), self.page_timed_out, address)
            self.pending_pages[address] = (command, timer)
        return None

    def page(self, command) -> None:
        """Bumble's Create Connection, minus its Command Status (already sent)."""
        address = command.bd_addr
        self.classic_connections[address] = LinkConnection(
            controller=self, handle=0, role=hci.Role.CENTRAL, self_address=self.public_address,
            peer_address=address, link=self.link, transport=PhysicalTransport.BR_EDR,
            link_type=hci.HCI_Connection_Complete_Event.LinkType.ACL,
            classic_allow_role_switch=bool(command.allow_role_switch),
        )
        future = self.send_lmp_packet(address, lmp.LmpHostConnectionReq())
        future.add_done_callback(lambda f: self.on_classic_connection_complete(address, f.result()))

    def page_timed_out(self, address) -> None:
        if self.pending_pages.pop(address, None) is None:
            return
        self.send_hci_packet(hci.HCI_Connection_Complete_Event(
            status=PAGE_TIMEOUT, connection_handle=0, bd_addr=address, encryption_enabled=0,
            link_type=hci.HCI_Connection_Complete_Event.LinkType.ACL))

    def on_hci_create_connection_cancel_command(self, command):
        address = command.bd_addr
        pending = self.pending_pages.pop(address, None)
        if pending is None:
            status = CONNECTION_ALREADY_EXISTS if address in self.classic_connections else UNKNOWN_CONNECTION_ID
            return hci.HCI_StatusAndAddressReturnParameters(status=status, bd_addr=address)
        pending[1].cancel()
        self.later(hci.HCI_Connection_Complete_Event(
            status=UNKNOWN_CONNECTION_ID, connection_handle=0, bd_addr=address, encryption_enabled=0,
            link_type=hci.HCI_Connection_Complete_Event.LinkType.ACL))
        return hci.HCI_StatusAndAddressReturnParameters(status=hci.HCI_ErrorCode.SUCCESS, bd_addr=address)

    def on_classic_connection_complete(self, peer_address, status) -> None:
        if status != hci.HCI_ErrorCode.SUCCESS:
            self.classic_connections.pop(peer_address, None)  # Bumble left it behind
        super().on_classic_connection_complete(peer_address, status)

    def on_hci_remote_name_request_command(self, command):
        address = command.bd_addr
        peer = self.link.find_classic_controller(address)
        connected = address in self.classic_connections and self.link.in_range(self, peer)
        if connected or self.link.classic_reachable(self, address):
            return super().on_hci_remote_name_request_command(command)
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        if (previous := self.pending_names.pop(address, None)) is not None:
            previous.cancel()
        timer = asyncio.get_running_loop().call_later(self.page_timeout_s(), self.name_timed_out, address)
        self.pending_names[address] = timer
        return None

    def name_timed_out(self, address) -> None:
        if self.pending_names.pop(address, None) is not None:
            self.send_hci_packet(hci.HCI_Remote_Name_Request_Complete_Event(
                status=PAGE_TIMEOUT, bd_addr=address, remote_name=b""))

    def on_hci_write_scan_enable_command(self, command):
        result = super().on_hci_write_scan_enable_command(command)
        asyncio.get_running_loop().call_soon(self.link.reachability_changed)
        return result

    def on_hci_write_page_timeout_command(self, command):
        self.page_timeout_slots = command.page_timeout or DEFAULT_PAGE_TIMEOUT
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_disconnect_command(self, command):
        connection = self.find_classic_connection_by_handle(command.connection_handle)
        if connection is None:
            return super().on_hci_disconnect_command(command)
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        self.send_lmp_packet(connection.peer_address, lmp.LmpDetach(command.reason))
        self.on_classic_disconnected(connection.peer_address, LOCAL_HOST_TERMINATED)
        return None

    def on_hci_read_clock_offset_command(self, command):
        connection = self.find_classic_connection_by_handle(command.connection_handle)
        if connection is None:
            self._send_hci_command_status(UNKNOWN_CONNECTION_ID, command.op_code)
            return None
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        self.later(hci.HCI_Read_Clock_Offset_Complete_Event(
            status=0, connection_handle=connection.handle, clock_offset=0))
        return None

    # Device identity ----------------------------------------------------------------------
    def on_hci_write_class_of_device_command(self, command):
        self.class_of_device = command.class_of_device
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_read_class_of_device_command(self, _command):
        return hci.HCI_Read_Class_Of_Device_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, class_of_device=self.class_of_device)

    def on_hci_write_extended_inquiry_response_command(self, command):
        self.eir = bytes(command.extended_inquiry_response).rstrip(b"\0")
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    # Link supervision timeout ---------------------------------------------------------------
    def on_hci_write_link_supervision_timeout_command(self, command):
        RP = hci.HCI_Write_Link_Supervision_Timeout_ReturnParameters
        connection = self.find_classic_connection_by_handle(command.handle)
        if connection is None:
            return RP(status=UNKNOWN_CONNECTION_ID, handle=command.handle)
        if connection.role != hci.Role.CENTRAL:
            return RP(status=COMMAND_DISALLOWED, handle=command.handle)
        connection.lsto = command.link_supervision_timeout
        log.info("%s: link supervision timeout to %s = %.3f s", self.name, connection.peer_address,
                 connection.lsto * SLOT_S)
        self.link.send_security(self, connection.peer_address, {"op": "lsto", "value": connection.lsto})
        return RP(status=hci.HCI_ErrorCode.SUCCESS, handle=command.handle)

    # Legacy pairing and authentication -------------------------------------------------------
    def on_hci_authentication_requested_command(self, command):
        connection = self.find_classic_connection_by_handle(command.connection_handle)
        if connection is None or self.ssp_link(connection):
            return super().on_hci_authentication_requested_command(command)
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        connection.legacy = {"role": "initiator"}
        self.later(hci.HCI_Link_Key_Request_Event(bd_addr=connection.peer_address))
        return None

    def on_hci_link_key_request_reply_command(self, command):
        connection, state = self.legacy_state(command.bd_addr)
        if state is None:
            return super().on_hci_link_key_request_reply_command(command)
        key = bytes(command.link_key)
        if state["role"] == "initiator":
            state["key"] = key
            self.link.send_security(self, connection.peer_address, {"op": "au_rand", "key": key})
        else:
            ok = key == state["initiator_key"]
            if ok:
                connection.link_key, connection.key_type = key, getattr(connection, "key_type", COMBINATION_KEY)
            connection.legacy = None
            self.link.send_security(self, connection.peer_address,
                                    {"op": "result", "status": 0 if ok else AUTHENTICATION_FAILURE})
        return hci.HCI_StatusAndAddressReturnParameters(status=hci.HCI_ErrorCode.SUCCESS, bd_addr=command.bd_addr)

    def on_hci_link_key_request_negative_reply_command(self, command):
        connection, state = self.legacy_state(command.bd_addr)
        if state is None:
            return super().on_hci_link_key_request_negative_reply_command(command)
        if state["role"] == "initiator":
            self.later(hci.HCI_PIN_Code_Request_Event(bd_addr=connection.peer_address))
        else:
            connection.legacy = None
            self.link.send_security(self, connection.peer_address, {"op": "result", "status": PIN_OR_KEY_MISSING})
        return hci.HCI_StatusAndAddressReturnParameters(status=hci.HCI_ErrorCode.SUCCESS, bd_addr=command.bd_addr)

    def on_hci_pin_code_request_reply_command(self, command):
        connection, state = self.legacy_state(command.bd_addr)
        if state is None:
            return hci.HCI_StatusAndAddressReturnParameters(status=COMMAND_DISALLOWED, bd_addr=command.bd_addr)
        pin = bytes(command.pin_code)[:command.pin_code_length]
        if state["role"] == "initiator":
            self.link.send_security(self, connection.peer_address,
                                    {"op": "in_rand", "pin": pin, "nonce": os.urandom(16)})
        else:
            connection.legacy = None
            if pin == state["initiator_pin"]:
                key = legacy_link_key(pin, connection.peer_address, self.public_address, state["nonce"])
                connection.link_key, connection.key_type = key, COMBINATION_KEY
                self.later(hci.HCI_Link_Key_Notification_Event(
                    bd_addr=connection.peer_address, link_key=key, key_type=COMBINATION_KEY))
                self.link.send_security(self, connection.peer_address, {"op": "result", "status": 0, "key": key})
            else:
                log.info("%s: PIN from %s does not match", self.name, connection.peer_address)
                self.link.send_security(self, connection.peer_address,
                                        {"op": "result", "status": AUTHENTICATION_FAILURE})
        return hci.HCI_StatusAndAddressReturnParameters(status=hci.HCI_ErrorCode.SUCCESS, bd_addr=command.bd_addr)

    def on_hci_pin_code_request_negative_reply_command(self, command):
        connection, state = self.legacy_state(command.bd_addr)
        if state is not None:
            connection.legacy = None
            if state["role"] == "initiator":
                self.later(hci.HCI_Authentication_Complete_Event(
                    status=PIN_OR_KEY_MISSING, connection_handle=connection.handle))
            else:
                self.link.send_security(self, connection.peer_address, {"op": "result", "status": PIN_OR_KEY_MISSING})
        return hci.HCI_StatusAndAddressReturnParameters(status=hci.HCI_ErrorCode.SUCCESS, bd_addr=command.bd_addr)

    def on_security_message(self, sender_address, message: dict) -> None:
        connection = self.classic_connections.get(sender_address)
        if connection is None:
            return
        op = message["op"]
        if op == "au_rand":     # the peer authenticates us with its key: what is ours?
            connection.legacy = {"role": "responder", "initiator_key": message["key"]}
            self.send_hci_packet(hci.HCI_Link_Key_Request_Event(bd_addr=sender_address))
        elif op == "in_rand":   # the peer pairs: what PIN does our user give?
            connection.legacy = {"role": "responder", "initiator_pin": message["pin"], "nonce": message["nonce"]}
            self.send_hci_packet(hci.HCI_PIN_Code_Request_Event(bd_addr=sender_address))
        elif op == "result":    # the outcome, at the initiator
            state = getattr(connection, "legacy", None) or {}
            connection.legacy = None
            status = message["status"]
            if status == 0:
                if "key" in message:   # a new pairing
                    connection.link_key, connection.key_type = message["key"], COMBINATION_KEY
                    self.send_hci_packet(hci.HCI_Link_Key_Notification_Event(
                        bd_addr=sender_address, link_key=message["key"], key_type=COMBINATION_KEY))
                else:
                    connection.link_key = state.get("key")
                    connection.key_type = getattr(connection, "key_type", COMBINATION_KEY)
            self.send_hci_packet(hci.HCI_Authentication_Complete_Event(
                status=status, connection_handle=connection.handle))
        elif op == "encryption":
            connection.encryption = message["mode"]
            self.send_hci_packet(hci.HCI_Encryption_Change_Event(
                status=0, connection_handle=connection.handle, encryption_enabled=message["mode"]))
        elif op == "lsto":
            connection.lsto = message["value"]
            self.send_hci_packet(hci.HCI_Link_Supervision_Timeout_Changed_Event(
                connection_handle=connection.handle, link_supervision_timeout=message["value"]))

    def on_hci_set_connection_encryption_command(self, command):
        connection = self.find_classic_connection_by_handle(command.connection_handle)
        if connection is None:
            self._send_hci_command_status(UNKNOWN_CONNECTION_ID, command.op_code)
            return None
        legacy_key = getattr(connection, "link_key", None)
        ssp_key = connection.ssp_state.link_key
        if legacy_key is None and ssp_key is None:
            self._send_hci_command_status(PIN_OR_KEY_MISSING, command.op_code)
            return None
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        if not command.encryption_enable:
            mode = 0
        elif legacy_key is None or getattr(connection, "key_type", COMBINATION_KEY) in P256_KEY_TYPES:
            mode = 2   # AES-CCM
        else:
            mode = 1   # E0
        connection.encryption = mode
        self.later(hci.HCI_Encryption_Change_Event(
            status=0, connection_handle=connection.handle, encryption_enabled=mode))
        self.link.send_security(self, connection.peer_address, {"op": "encryption", "mode": mode})
        return None

    # Inquiry --------------------------------------------------------------------------------
    def on_hci_write_inquiry_mode_command(self, command):
        self.inquiry_mode = command.inquiry_mode
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_inquiry_command(self, command):
        if self.inquiry_timers:
            self._send_hci_command_status(COMMAND_DISALLOWED, command.op_code)
            return None
        self._send_hci_command_status(hci.HCI_COMMAND_STATUS_PENDING, command.op_code)
        loop = asyncio.get_running_loop()
        limit = command.num_responses or 255
        devices = [c for c in self.link.controllers
                   if c is not self and c.classic_scan_enable & 0x01 and self.link.in_range(self, c)][:limit]
        for i, device in enumerate(devices):
            self.inquiry_timers.append(loop.call_later(0.3 + 0.2 * i, self.inquiry_result, device))
        duration = command.inquiry_length * 1.28
        if command.num_responses and len(devices) >= command.num_responses:
            duration = 0.4 + 0.2 * len(devices)
        self.inquiry_timers.append(loop.call_later(duration, self.inquiry_complete))
        log.info("%s: inquiry for %.2f s: %s", self.name, duration, [d.name for d in devices])
        return None

    def inquiry_result(self, device) -> None:
        if not self.link.in_range(self, device) or not device.classic_scan_enable & 0x01:
            return
        cod = getattr(device, "class_of_device", 0)
        rssi = getattr(device, "rssi", -60)
        if self.inquiry_mode == 2 and device.supports_eir and device.eir:
            event = hci.HCI_Extended_Inquiry_Result_Event(
                num_responses=1, bd_addr=device.public_address, page_scan_repetition_mode=1,
                reserved=0, class_of_device=cod, clock_offset=0, rssi=rssi,
                extended_inquiry_response=device.eir.ljust(240, b"\0"))
        elif self.inquiry_mode in (1, 2):
            event = hci.HCI_Inquiry_Result_With_RSSI_Event(
                bd_addr=[device.public_address], page_scan_repetition_mode=[1], reserved=[0],
                class_of_device=[cod], clock_offset=[0], rssi=[rssi])
        else:
            event = hci.HCI_Inquiry_Result_Event(
                bd_addr=[device.public_address], page_scan_repetition_mode=[1], reserved_0=[0],
                reserved_1=[0], class_of_device=[cod], clock_offset=[0])
        self.send_hci_packet(event)

    def inquiry_complete(self) -> None:
        self.cancel_inquiry()
        self.send_hci_packet(hci.HCI_Inquiry_Complete_Event(status=0))

    def cancel_inquiry(self) -> None:
        for timer in self.inquiry_timers:
            timer.cancel()
        self.inquiry_timers = []

    def on_hci_inquiry_cancel_command(self, _command):
        if not self.inquiry_timers:
            return hci.HCI_StatusReturnParameters(COMMAND_DISALLOWED)
        self.cancel_inquiry()
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)


# ---------------------------------------------------------------------------------------------
# The guest's controller
# ---------------------------------------------------------------------------------------------
# Commands Bumble does not implement that the kernel needs to succeed: op code → return
# parameters after the status byte. Everything else unimplemented is answered "Unknown HCI
# Command", which the kernel tolerates for optional commands.
ZERO_REPLIES: dict[int, bytes] = {
    0x0C25: bytes(2),                # Read Voice Setting
    0x0C38: bytes([1]),              # Read Number Of Supported IAC
    0x0C39: bytes([1, 0x33, 0x8B, 0x9E]),  # Read Current IAC LAP: GIAC
    0x0C05: b"",                     # Set Event Filter
    0x0C16: b"",                     # Write Connection Accept Timeout
    0x0C1B: bytes([0x00, 0x08, 0x12, 0x00]),  # Read Page Scan Activity
    0x0C1C: b"",                     # Write Page Scan Activity
    0x0C46: bytes([0]),              # Read Page Scan Type
    0x0C47: b"",                     # Write Page Scan Type
    0x0C45: b"",                     # Write Inquiry Mode (ClassicMixin; kept as fallback)
    0x0C58: bytes([0]),              # Read Inquiry Response Transmit Power Level
    0x0C0D: bytes([0, 0, 0, 0]),     # Read Stored Link Key: max 0, read 0
    0x0C12: bytes([0, 0]),           # Delete Stored Link Key: 0 deleted
    0x080F: b"",                     # Write Default Link Policy Settings
    0x0C1A: b"",                     # Write Scan Enable (handled by Bumble; kept as fallback)
    0x0C20: b"",                     # Write Authentication Enable
    0x0C24: b"",                     # Write Class Of Device (ClassicMixin; kept as fallback)
    0x0C7A: b"",                     # Write Secure Connections Host Support
}


class GuestController(ClassicMixin, Controller):
    """Bumble's controller, made to answer the Linux 6.1 kernel the way a real dual-mode
    controller would (see the module docstring for the list)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        features = hci.LmpFeatureMask
        self.lmp_features = (
            (self.lmp_features & ~features.BR_EDR_NOT_SUPPORTED)
            | features.LE_SUPPORTED_CONTROLLER
            | features.SIMULTANEOUS_LE_AND_BR_EDR_TO_SAME_DEVICE_CAPABLE_CONTROLLER
            | features.SECURE_SIMPLE_PAIRING_CONTROLLER_SUPPORT
            | features.ENCRYPTION
            | features.ROLE_SWITCH
            | features.EXTENDED_FEATURES
        )
        self.scan_mode = "legacy"          # which scan commands the host last used
        self.scan_active = False           # active scanning: scan responses are reported too
        self.seen: dict[tuple, float] = {}  # duplicate filter: report key → last time seen
        self.accept_list: set[tuple[int, bytes]] = set()

    # Commands ----------------------------------------------------------------------------
    def on_hci_command_packet(self, command: hci.HCI_Command) -> None:
        handler = getattr(self, f"on_{command.name.lower()}", None)
        op = command.op_code
        if handler is not None or op in self.GENERIC_OPS:
            return super().on_hci_command_packet(command)
        if op in ZERO_REPLIES:
            log.info("guest: answering unimplemented %s with success", command.name)
            self.send_hci_packet(command_complete(op, 0, ZERO_REPLIES[op]))
        elif isinstance(command, hci.HCI_AsyncCommand):
            log.info("guest: unimplemented async %s -> Command Status 'unknown command'", command.name)
            self.send_hci_packet(command_status(op, UNKNOWN_COMMAND))
        else:
            log.info("guest: unimplemented %s (0x%04X) -> Command Complete 'unknown command'",
                     command.name, op)
            self.send_hci_packet(command_complete(op, UNKNOWN_COMMAND))

    def on_hci_reset_command(self, command):
        # Bumble keeps links (and the peers' connections) across a reset; a real controller
        # drops them, and the peers notice a supervision timeout.
        if isinstance(self.link, RadioLink):
            self.link.lose_all_links(self)
        self.pending_le_connection = None
        self.le_scan_enable = False
        self.seen.clear()
        self.accept_list.clear()
        self.cancel_inquiry()
        self.inquiry_mode = 0
        self.page_timeout_slots = DEFAULT_PAGE_TIMEOUT
        return super().on_hci_reset_command(command)

    def on_hci_le_set_scan_enable_command(self, command):
        self.scan_mode = "legacy"
        self.seen.clear()
        return super().on_hci_le_set_scan_enable_command(command)

    def on_hci_le_set_extended_scan_enable_command(self, command):
        self.scan_mode = "extended"
        self.seen.clear()
        return super().on_hci_le_set_extended_scan_enable_command(command)

    def on_hci_le_set_scan_parameters_command(self, command):
        self.scan_active = command.le_scan_type == 1
        return super().on_hci_le_set_scan_parameters_command(command)

    def on_hci_le_set_extended_scan_parameters_command(self, command):
        # One entry per PHY in scanning_phys; the first is LE 1M here.
        types = getattr(command, "scan_types", None) or [0]
        self.scan_active = types[0] == 1
        return super().on_hci_le_set_extended_scan_parameters_command(command)

    def on_hci_le_clear_filter_accept_list_command(self, command):
        self.accept_list.clear()
        return super().on_hci_le_clear_filter_accept_list_command(command)

    def on_hci_le_add_device_to_filter_accept_list_command(self, command):
        self.accept_list.add((int(command.address_type), bytes(command.address.address_bytes)))
        return super().on_hci_le_add_device_to_filter_accept_list_command(command)

    def on_hci_le_remove_device_from_filter_accept_list_command(self, command):
        self.accept_list.discard((int(command.address_type), bytes(command.address.address_bytes)))
        return super().on_hci_le_remove_device_from_filter_accept_list_command(command)

    def on_hci_le_create_connection_cancel_command(self, command):
        pending = self.pending_le_connection
        self.pending_le_connection = None
        if pending is None:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR)
        # After the Command Complete, the pending connection ends with status 0x02.
        asyncio.get_running_loop().call_soon(
            self.send_hci_packet,
            hci.HCI_LE_Connection_Complete_Event(
                status=UNKNOWN_CONNECTION_ID, connection_handle=0, role=hci.Role.CENTRAL,
                peer_address_type=pending.peer_address.address_type,
                peer_address=pending.peer_address, connection_interval=0,
                peripheral_latency=0, supervision_timeout=0, central_clock_accuracy=0,
            ),
        )
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    # Events ------------------------------------------------------------------------------
    def send_hci_packet(self, packet) -> None:
        # The host unmasked LE Enhanced Connection Complete (LE event mask bit 9): a real
        # controller then sends that event instead of LE Connection Complete. The 6.1 kernel
        # waits for it after LE Extended Create Connection.
        if isinstance(packet, hci.HCI_LE_Connection_Complete_Event) and self.le_event_mask & (1 << 9):
            packet = hci.HCI_LE_Enhanced_Connection_Complete_Event(
                status=packet.status, connection_handle=packet.connection_handle,
                role=packet.role, peer_address_type=packet.peer_address_type,
                peer_address=packet.peer_address,
                local_resolvable_private_address=hci.Address.ANY,
                peer_resolvable_private_address=hci.Address.ANY,
                connection_interval=packet.connection_interval,
                peripheral_latency=packet.peripheral_latency,
                supervision_timeout=packet.supervision_timeout,
                central_clock_accuracy=packet.central_clock_accuracy,
            )
        super().send_hci_packet(packet)

    def on_advertising_pdu(self, pdu) -> None:
        sender = self.link.find_le_controller(pdu.advertiser_address) if self.link else None
        if self.le_scan_enable:
            self.report_advertisement(pdu, sender)
        # Initiating: connect to the advertiser the host asked for (or one in the accept list
        # when the initiator filter policy says so).
        pending = self.pending_le_connection
        if pending is None:
            return
        policy = pending.initiator_filter_policy
        address = pdu.advertiser_address
        wanted = (
            (int(address.address_type), bytes(address.address_bytes)) in self.accept_list
            if policy == 1 else pending.peer_address == address
        )
        if wanted:
            if policy == 1:
                pending.peer_address = address  # create_le_connection connects to this one
            self.create_le_connection(address)

    def report_advertisement(self, pdu, sender) -> None:
        address = pdu.advertiser_address
        rssi = getattr(sender, "rssi", -50)
        scan_response = self.scan_response_of(sender, address)
        now = time.monotonic()
        reports = [("adv", pdu.data)]
        if self.scan_active:
            reports.append(("rsp", scan_response))
        for kind, data in reports:
            if self.filter_duplicates:
                key = (bytes(address.address_bytes), address.address_type, kind, bytes(data))
                last = self.seen.get(key)
                self.seen[key] = now
                # Forget devices not heard for 2 s, so one that comes back is reported again.
                if last is not None and now - last < 2.0:
                    continue
            if self.scan_mode == "extended":
                Ext = hci.HCI_LE_Extended_Advertising_Report_Event
                event_type = (Ext.EventType.LEGACY_ADVERTISING_PDU_USED
                              | Ext.EventType.CONNECTABLE_ADVERTISING
                              | Ext.EventType.SCANNABLE_ADVERTISING)
                if kind == "rsp":
                    event_type |= Ext.EventType.SCAN_RESPONSE
                report = Ext.Report(
                    event_type=int(event_type), address_type=address.address_type,
                    address=address, primary_phy=hci.Phy.LE_1M, secondary_phy=0,
                    advertising_sid=0xFF, tx_power=Ext.TX_POWER_INFORMATION_NOT_AVAILABLE,
                    rssi=rssi, periodic_advertising_interval=0, direct_address_type=0,
                    direct_address=hci.Address.ANY, data=bytes(data),
                )
                self.send_hci_packet(Ext([report]))
            else:
                Legacy = hci.HCI_LE_Advertising_Report_Event
                report = Legacy.Report(
                    event_type=(Legacy.EventType.SCAN_RSP if kind == "rsp" else Legacy.EventType.ADV_IND),
                    address_type=address.address_type, address=address, data=bytes(data), rssi=rssi,
                )
                self.send_hci_packet(Legacy([report]))

    @staticmethod
    def scan_response_of(sender, address) -> bytes:
        if sender is None:
            return b""
        for advertising_set in sender.advertising_sets.values():
            if advertising_set.enabled and advertising_set.address == address:
                return bytes(advertising_set.scan_response_data)
        if sender.le_legacy_advertiser.enabled:
            return bytes(sender.le_legacy_advertiser.scan_response_data)
        return b""


class SensorController(Controller):
    """A peripheral's controller: remembers each link's supervision timeout."""

    rssi = -50

    def on_le_connect_ind(self, packet) -> None:
        super().on_le_connect_ind(packet)
        connection = self.le_connections.get(packet.initiator_address)
        if connection is not None:
            # Supervision timeout is in 10 ms units.
            connection.supervision_timeout_s = max(packet.timeout, 10) * 0.01


# ---------------------------------------------------------------------------------------------
# The sensors
# ---------------------------------------------------------------------------------------------
def ad_structure(ad_type: int, value: bytes) -> bytes:
    return bytes([len(value) + 1, ad_type]) + value


def advertising_data(name: str, uuid16: int, uuid_ad_type: int, appearance: int, tx_power: int) -> bytes:
    data = (
        ad_structure(0x01, bytes([0x06]))                       # Flags: LE General Disc., no BR/EDR
        + ad_structure(uuid_ad_type, uuid16.to_bytes(2, "little"))  # 16-bit service UUIDs
        + ad_structure(0x09, name.encode())                     # Complete Local Name
        + ad_structure(0x19, appearance.to_bytes(2, "little"))  # Appearance
        + ad_structure(0x0A, tx_power.to_bytes(1, "little", signed=True))  # TX Power Level
    )
    assert len(data) <= 31, f"advertising data for {name} is {len(data)} bytes"
    return data


SENSORS = {
    "hr": dict(
        name="Handoff HR", address=signals.HR_ADDRESS, service=0x180D, measurement=0x2A37,
        uuid_ad_type=0x02,  # Incomplete List of 16-bit Service UUIDs (it also has 180F, 180A)
        appearance=0x0341, tx_power=4, rssi=-52, battery=87, model="HR-1", serial="HR-0001",
    ),
    "footpod": dict(
        name="Handoff Footpod", address=signals.FOOTPOD_ADDRESS, service=0x1814, measurement=0x2A53,
        uuid_ad_type=0x03,  # Complete List (the footpod's name leaves room for nothing else)
        appearance=0x0441, tx_power=0, rssi=-61, battery=73, model="FP-1", serial="FP-0001",
    ),
}

READ = Characteristic.Properties.READ
NOTIFY = Characteristic.Properties.NOTIFY
READABLE = Characteristic.Permissions.READABLE


class Sensor:
    def __init__(self, kind: str, link: RadioLink, events: EventLog) -> None:
        self.kind = kind
        self.cfg = SENSORS[kind]
        self.link = link
        self.events = events
        self.controller = SensorController(kind, link=link, public_address=self.cfg["address"])
        self.controller.rssi = self.cfg["rssi"]
        self.device = Device(name=self.cfg["name"],
                             host=Host(self.controller, AsyncPipeSink(self.controller)))
        self.device.advertising_interval_min = 100  # ms
        self.device.advertising_interval_max = 100
        self.n = 0                      # next measurement's sequence number
        self.connection = None
        self.subscribed = False
        self.out_of_range = False
        self.ad = advertising_data(self.cfg["name"], self.cfg["service"], self.cfg["uuid_ad_type"],
                                   self.cfg["appearance"], self.cfg["tx_power"])
        self._build_gatt()
        self._set_gap_appearance()
        self.device.on("connection", self.on_connection)

    def _build_gatt(self) -> None:
        cfg = self.cfg
        self.measurement = Characteristic(f"{cfg['measurement']:04X}", NOTIFY, Characteristic.Permissions(0), b"")
        self.measurement.on("subscription", self.on_subscription)
        if self.kind == "hr":
            main = Service("180D", [
                self.measurement,
                Characteristic("2A38", READ, READABLE, bytes([1])),           # chest
            ])
        else:
            main = Service("1814", [
                self.measurement,
                Characteristic("2A54", READ, READABLE, (0x0003).to_bytes(2, "little")),
            ])
        battery = Service("180F", [
            Characteristic("2A19", READ | NOTIFY, READABLE, bytes([cfg["battery"]])),
        ])
        info = Service("180A", [
            Characteristic("2A29", READ, READABLE, b"Handoff Test"),
            Characteristic("2A24", READ, READABLE, cfg["model"].encode()),
            Characteristic("2A25", READ, READABLE, cfg["serial"].encode()),
            Characteristic("2A26", READ, READABLE, b"1.0.0"),
        ])
        self.device.add_services([main, battery, info])

    def _set_gap_appearance(self) -> None:
        # Bumble's GAP service always says appearance 0; make it match the advertising data.
        appearance_uuid = UUID.from_16_bits(0x2A01)
        for attribute in self.device.gatt_server.attributes:
            if isinstance(attribute, Characteristic) and attribute.uuid == appearance_uuid:
                attribute.value = self.cfg["appearance"].to_bytes(2, "little")

    def record(self, **fields) -> None:
        self.events.write({"device": self.kind, **fields})

    async def start(self) -> None:
        await self.device.power_on()
        await self.advertise()

    async def advertise(self) -> None:
        await self.device.start_advertising(
            own_address_type=hci.OwnAddressType.PUBLIC,
            advertising_data=self.ad,
            scan_response_data=b"",
            auto_restart=False,
        )
        self.record(event="advertising")
        log.info("%s advertising as %s", self.kind, self.cfg["address"])

    # Link events ----------------------------------------------------------------------------
    def on_connection(self, connection) -> None:
        self.connection = connection
        self.subscribed = False
        self.record(event="connected", peer=str(connection.peer_address), handle=connection.handle)
        log.info("%s connected to %s", self.kind, connection.peer_address)
        connection.on("disconnection", lambda reason: self.on_disconnection(connection, reason))

    def on_disconnection(self, connection, reason) -> None:
        if connection is not self.connection:
            return
        self.connection = None
        self.subscribed = False
        self.record(event="disconnected", reason=int(reason))
        log.info("%s disconnected (reason 0x%02X)", self.kind, int(reason))
        if not self.out_of_range:
            asyncio.get_running_loop().create_task(self.advertise())

    def on_subscription(self, connection, notify_enabled, indicate_enabled) -> None:
        self.subscribed = bool(notify_enabled) and connection is self.connection
        self.record(event="subscribed" if self.subscribed else "unsubscribed")
        log.info("%s %s", self.kind, "subscribed" if self.subscribed else "unsubscribed")

    # Notifications -------------------------------------------------------------------------
    def can_notify(self) -> bool:
        return self.connection is not None and self.subscribed and not self.out_of_range

    async def send(self, payload: bytes, n, malformed) -> None:
        await self.device.notify_subscriber(self.connection, self.measurement, payload, force=True)
        self.record(n=n, hex=payload.hex(), malformed=malformed)

    async def notify_forever(self) -> None:
        next_tick = time.monotonic()
        while True:
            next_tick += 1.0
            await asyncio.sleep(max(0.0, next_tick - time.monotonic()))
            if not self.can_notify():
                continue
            try:
                await self.send(signals.measurement(self.kind, self.n), self.n, False)
                self.n += 1
            except Exception as error:  # the link went away under us
                log.warning("%s notification %d not sent: %s", self.kind, self.n, error)

    # Commands -------------------------------------------------------------------------------
    async def dropout(self, seconds: float) -> None:
        if self.out_of_range:
            log.warning("%s is already out of range; dropout ignored", self.kind)
            self.record(event="command_ignored", reason="already out of range")
            return
        self.out_of_range = True
        self.record(event="dropout_start", seconds=seconds)
        log.info("%s dropout for %.1f s", self.kind, seconds)
        await self.device.stop_advertising()
        self.link.go_out_of_range(self.controller)
        await asyncio.sleep(seconds)
        self.link.back_in_range(self.controller)
        self.out_of_range = False
        self.record(event="dropout_end")
        log.info("%s back in range", self.kind)
        if self.connection is None:
            await self.advertise()

    async def malformed(self, kinds: list[str]) -> None:
        for kind in kinds:
            payload = signals.MALFORMED[self.kind].get(kind)
            if payload is None:
                self.record(event="command_error", reason=f"unknown malformed kind {kind!r}")
                continue
            deadline = time.monotonic() + 30
            while not self.can_notify():
                if time.monotonic() > deadline:
                    self.record(event="command_error", reason=f"not subscribed: {kind} not sent")
                    log.warning("%s: no subscriber for malformed %s", self.kind, kind)
                    break
                await asyncio.sleep(0.1)
            else:
                try:
                    await self.send(payload, None, kind)
                except Exception as error:
                    log.warning("%s malformed %s not sent: %s", self.kind, kind, error)
                await asyncio.sleep(0.3)

    async def execute(self, command: dict) -> None:
        action = command.get("action")
        if action == "dropout":
            await self.dropout(float(command.get("seconds", 20)))
        elif action == "malformed":
            await self.malformed(list(command.get("kinds", ["truncated", "flags_overrun", "empty"])))
        else:
            self.record(event="command_error", reason=f"unknown action {action!r}")


# ---------------------------------------------------------------------------------------------
# The classic strap: a Zephyr HxM
# ---------------------------------------------------------------------------------------------
# Health (major 0x09) / heart-pulse rate monitor (minor 0x06): CoD bits 12-8 major, 7-2 minor.
HXM_CLASS_OF_DEVICE = (0x09 << 8) | (0x06 << 2)   # 0x000918
HXM_SERVICE_RECORD_HANDLE = 0x00010000


class StrapController(ClassicMixin, Controller):
    """A Bluetooth 2.0 + EDR controller, as in the Zephyr HxM: BR/EDR only, no Secure Simple
    Pairing (so every pairing with it is legacy, PIN), no extended inquiry response, no
    extended features page (the kernel skips Read Remote Extended Features)."""

    supports_eir = False
    rssi = -55
    hci_version = hci.HCI_VERSION_BLUETOOTH_CORE_2_0_EDR
    lmp_version = hci.HCI_VERSION_BLUETOOTH_CORE_2_0_EDR
    lmp_features = (
        hci.LmpFeatureMask.LMP_3_SLOT_PACKETS
        | hci.LmpFeatureMask.LMP_5_SLOT_PACKETS
        | hci.LmpFeatureMask.ENCRYPTION
        | hci.LmpFeatureMask.SLOT_OFFSET
        | hci.LmpFeatureMask.TIMING_ACCURACY
        | hci.LmpFeatureMask.ROLE_SWITCH
        | hci.LmpFeatureMask.SNIFF_MODE
        | hci.LmpFeatureMask.POWER_CONTROL_REQUESTS
        | hci.LmpFeatureMask.CHANNEL_QUALITY_DRIVEN_DATA_RATE_CQDDR
        | hci.LmpFeatureMask.PAGING_PARAMETER_NEGOTIATION
        | hci.LmpFeatureMask.ENHANCED_DATA_RATE_ACL_2_MBPS_MODE
        | hci.LmpFeatureMask.ENHANCED_DATA_RATE_ACL_3_MBPS_MODE
        | hci.LmpFeatureMask.RSSI_WITH_INQUIRY_RESULTS
        | hci.LmpFeatureMask.AFH_CAPABLE_PERIPHERAL
        | hci.LmpFeatureMask.AFH_CLASSIFICATION_PERIPHERAL
    )

    def on_hci_write_secure_connections_host_support_command(self, _command):
        # Bumble's host sends it to every classic controller; a 2.0 controller does not know it.
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.UNKNOWN_HCI_COMMAND_ERROR)


class PinDelegate(PairingDelegate):
    """The strap's side of legacy pairing: its fixed PIN (Bumble's host asks a delegate with
    a keyboard for the PIN string)."""

    def __init__(self, strap: "HxMStrap") -> None:
        super().__init__(io_capability=PairingDelegate.IoCapability.KEYBOARD_INPUT_ONLY)
        self.strap = strap

    async def get_string(self, max_length: int) -> str | None:
        self.strap.record(event="pin_requested", pin=signals.HXM_PIN)
        return signals.HXM_PIN


class StrapMultiplexer(rfcomm.Multiplexer):
    """The strap's RFCOMM session. Its serial port needs an authenticated link (service-level
    security, as a real HxM that asks for PIN 1234): a DLC is opened (the PN answered) only
    once the link is authenticated or encrypted; if the client did not ask for security, the
    strap starts the authentication itself and refuses the DLC (DM) when it fails.
    Bumble's DLC also ignores DISC (it answers UA but stays open): closed here."""

    def __init__(self, l2cap_channel, role, strap: "HxMStrap") -> None:
        super().__init__(l2cap_channel, role)
        self.strap = strap

    def on_mcc_pn(self, c_r: bool, pn) -> None:
        connection = self.l2cap_channel.connection
        if c_r and not (pn.dlci & 1) and not (connection.authenticated or connection.encryption):
            self.strap.record(event="auth_required", dlci=pn.dlci)
            asyncio.get_running_loop().create_task(self.authenticate_then(c_r, pn))
            return
        self.accept_pn(c_r, pn)

    async def authenticate_then(self, c_r: bool, pn) -> None:
        connection = self.l2cap_channel.connection
        try:
            await connection.device.authenticate(connection)
        except Exception as error:  # HCI_Error (wrong PIN, refused) or the link went away
            self.strap.record(event="auth_failed", error=str(error))
            log.info("hxm: authentication failed (%s): DLC %d refused", error, pn.dlci)
            if self.state != rfcomm.Multiplexer.State.DISCONNECTED:
                self.send_frame(rfcomm.RFCOMM_Frame.dm(c_r=1, dlci=pn.dlci))
            return
        self.accept_pn(c_r, pn)

    def accept_pn(self, c_r: bool, pn) -> None:
        super().on_mcc_pn(c_r, pn)
        dlc = self.dlcs.get(pn.dlci)
        if dlc is not None and c_r:
            def on_disc_frame(_frame, dlc=dlc) -> None:
                dlc.send_frame(rfcomm.RFCOMM_Frame.ua(c_r=1 - dlc.c_r, dlci=dlc.dlci))
                self.dlcs.pop(dlc.dlci, None)
                if dlc.state != rfcomm.DLC.State.RESET:
                    dlc.abort()  # state RESET, emits "close"
            dlc.on_disc_frame = on_disc_frame


class StrapRfcommServer(rfcomm.Server):
    def __init__(self, device: Device, strap: "HxMStrap") -> None:
        super().__init__(device)
        self.strap = strap

    def on_l2cap_channel_open(self, l2cap_channel) -> None:
        multiplexer = StrapMultiplexer(l2cap_channel, rfcomm.Multiplexer.Role.RESPONDER, self.strap)
        multiplexer.acceptor = self.accept_dlc
        multiplexer.on(multiplexer.EVENT_DLC, self.on_dlc)
        self.emit(self.EVENT_START, multiplexer)


def spp_service_record(channel: int) -> list:
    """A Serial Port Profile record as legacy serial straps publish it."""
    DE, SA = sdp.DataElement, sdp.ServiceAttribute
    return [
        SA(sdp.SDP_SERVICE_RECORD_HANDLE_ATTRIBUTE_ID, DE.unsigned_integer_32(HXM_SERVICE_RECORD_HANDLE)),
        SA(sdp.SDP_SERVICE_CLASS_ID_LIST_ATTRIBUTE_ID,
           DE.sequence([DE.uuid(UUID.from_16_bits(0x1101))])),
        SA(sdp.SDP_PROTOCOL_DESCRIPTOR_LIST_ATTRIBUTE_ID, DE.sequence([
            DE.sequence([DE.uuid(UUID.from_16_bits(0x0100))]),                        # L2CAP
            DE.sequence([DE.uuid(UUID.from_16_bits(0x0003)), DE.unsigned_integer_8(channel)]),  # RFCOMM
        ])),
        SA(sdp.SDP_BROWSE_GROUP_LIST_ATTRIBUTE_ID,
           DE.sequence([DE.uuid(sdp.SDP_PUBLIC_BROWSE_ROOT)])),
        SA(sdp.SDP_LANGUAGE_BASE_ATTRIBUTE_ID_LIST_ATTRIBUTE_ID, DE.sequence([
            DE.unsigned_integer_16(0x656E), DE.unsigned_integer_16(0x006A), DE.unsigned_integer_16(0x0100),
        ])),  # "en", UTF-8 (MIBenum 106), names at 0x0100
        SA(sdp.SDP_BLUETOOTH_PROFILE_DESCRIPTOR_LIST_ATTRIBUTE_ID, DE.sequence([
            DE.sequence([DE.uuid(UUID.from_16_bits(0x1101)), DE.unsigned_integer_16(0x0100)]),
        ])),
        SA(0x0100, DE.text_string(b"Bluetooth Serial Port")),   # Service Name (primary language)
    ]


class HxMStrap:
    """The virtual Zephyr HxM: classic only, name HXM026001, public address
    F0:F0:F0:00:00:03, class of device 0x000918, connectable and discoverable (page + inquiry
    scan), an SPP record on RFCOMM channel 5, legacy PIN 1234. While a client holds the DLC it
    sends one General Data Packet a second (signals.hxm_frame(n); n continues across links)."""

    kind = "hxm"

    def __init__(self, link: RadioLink, events: EventLog) -> None:
        self.link = link
        self.events = events
        self.controller = StrapController(self.kind, link=link, public_address=signals.HXM_ADDRESS)
        config = DeviceConfiguration(
            name=signals.HXM_NAME, class_of_device=HXM_CLASS_OF_DEVICE,
            le_enabled=False, classic_enabled=True, classic_ssp_enabled=False,
            classic_sc_enabled=False, classic_smp_enabled=False, classic_accept_any=True,
            connectable=True, discoverable=True, gap_service_enabled=False, gatt_service_enabled=False,
        )
        self.device = Device(config=config, host=Host(self.controller, AsyncPipeSink(self.controller)))
        self.device.pairing_config_factory = lambda connection: PairingConfig(
            sc=False, mitm=False, bonding=True, delegate=PinDelegate(self))
        self.device.sdp_service_records = {HXM_SERVICE_RECORD_HANDLE: spp_service_record(signals.HXM_RFCOMM_CHANNEL)}
        self.rfcomm = StrapRfcommServer(self.device, self)
        channel = self.rfcomm.listen(self.on_dlc, channel=signals.HXM_RFCOMM_CHANNEL)
        assert channel == signals.HXM_RFCOMM_CHANNEL
        self.n = 0
        self.connection = None
        self.dlc = None
        self.out_of_range = False
        self.device.on("connection", self.on_connection)

    def record(self, **fields) -> None:
        self.events.write({"device": self.kind, **fields})

    async def start(self) -> None:
        await self.device.power_on()
        self.device.host.on("link_key", lambda address, key, key_type: self.record(
            event="link_key", peer=address.to_string(False), key_type=int(key_type)))
        log.info("hxm %s (%s) page + inquiry scan on, SPP on RFCOMM channel %d",
                 signals.HXM_NAME, signals.HXM_ADDRESS, signals.HXM_RFCOMM_CHANNEL)
        self.record(event="ready", name=signals.HXM_NAME, channel=signals.HXM_RFCOMM_CHANNEL)

    # Link events ----------------------------------------------------------------------------
    def on_connection(self, connection) -> None:
        if connection.transport != PhysicalTransport.BR_EDR:
            return
        self.connection = connection
        self.record(event="connected", peer=connection.peer_address.to_string(False), handle=connection.handle)
        log.info("hxm connected to %s", connection.peer_address)
        connection.on("disconnection", lambda reason: self.on_disconnection(connection, reason))
        connection.on("connection_authentication", lambda: self.record(event="authenticated"))
        connection.on("connection_authentication_failure",
                      lambda error: self.record(event="authentication_failed", status=int(error)))
        connection.on("connection_encryption_change",
                      lambda: self.record(event="encryption", mode=int(connection.encryption)))

    def on_disconnection(self, connection, reason) -> None:
        self.record(event="disconnected", reason=int(reason))
        log.info("hxm disconnected (reason 0x%02X)", int(reason))
        if connection is self.connection:
            self.connection = None

    def on_dlc(self, dlc) -> None:
        self.dlc = dlc
        self.record(event="dlc_open", channel=dlc.dlci >> 1, dlci=dlc.dlci, mtu=dlc.mtu)
        log.info("hxm: DLC %d open (mtu %d)", dlc.dlci, dlc.mtu)
        dlc.on("close", lambda: self.on_dlc_closed(dlc))

    def on_dlc_closed(self, dlc) -> None:
        if dlc is self.dlc:
            self.dlc = None
        self.record(event="dlc_closed", dlci=dlc.dlci)
        log.info("hxm: DLC %d closed", dlc.dlci)

    # The stream -------------------------------------------------------------------------------
    def can_send(self) -> bool:
        return (self.dlc is not None and self.dlc.state == rfcomm.DLC.State.CONNECTED
                and not self.out_of_range)

    async def notify_forever(self) -> None:
        next_tick = time.monotonic()
        while True:
            next_tick += 1.0
            await asyncio.sleep(max(0.0, next_tick - time.monotonic()))
            if not self.can_send():
                continue
            frame = signals.hxm_frame(self.n)
            try:
                self.dlc.write(frame)
            except Exception as error:
                log.warning("hxm frame %d not sent: %s", self.n, error)
                continue
            waiting = len(self.dlc.tx_buffer)
            self.record(n=self.n, hex=frame.hex(), **({"waiting_for_credits": waiting} if waiting else {}))
            self.n += 1

    # Commands -------------------------------------------------------------------------------
    async def dropout(self, seconds: float) -> None:
        if self.out_of_range:
            self.record(event="command_ignored", reason="already out of range")
            return
        self.out_of_range = True
        links = [c for c in self.controller.classic_connections.values() if c.handle]
        self.record(event="dropout_start", seconds=seconds, links=len(links),
                    supervision_timeout_s=[round(getattr(c, "lsto", DEFAULT_LSTO) * SLOT_S, 4) for c in links])
        log.info("hxm dropout for %.1f s", seconds)
        self.link.go_out_of_range(self.controller)
        await asyncio.sleep(seconds)
        self.out_of_range = False
        self.link.back_in_range(self.controller)
        self.record(event="dropout_end")
        log.info("hxm back in range")

    async def execute(self, command: dict) -> None:
        if command.get("action") == "dropout":
            await self.dropout(float(command.get("seconds", 20)))
        else:
            self.record(event="command_error", reason=f"unknown action {command.get('action')!r}")


async def poll_control(folder: str, sensors: dict[str, Sensor], events: EventLog) -> None:
    """Execute each control file once, in name order. A file that does not parse yet is
    retried for a second (the guest should write a temporary name and rename it)."""
    done: set[str] = set()
    attempts: dict[str, int] = {}
    while True:
        try:
            names = sorted(os.listdir(folder))
        except FileNotFoundError:
            names = []
        for name in names:
            if not name.endswith(".json") or name in done:
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, encoding="utf-8") as f:
                    command = json.load(f)
                if not isinstance(command, dict):
                    raise ValueError("not a JSON object")
            except (OSError, ValueError) as error:
                attempts[name] = attempts.get(name, 0) + 1
                if attempts[name] >= 10:
                    done.add(name)
                    events.write({"device": None, "event": "command_error", "file": name, "reason": str(error)})
                    log.error("control file %s unreadable: %s", name, error)
                break  # keep name order: wait for this one
            done.add(name)
            device = command.get("device")
            events.write({"device": device, "event": "command", "file": name, "command": command})
            log.info("control %s: %s", name, command)
            sensor = sensors.get(device)
            if sensor is None:
                events.write({"device": device, "event": "command_error", "file": name, "reason": "unknown device"})
                continue
            asyncio.get_running_loop().create_task(sensor.execute(command))
        await asyncio.sleep(0.1)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True, help="Unix socket QEMU's serial port connects to")
    parser.add_argument("--results", required=True, help="results folder (sent.jsonl, control/)")
    parser.add_argument("--debug", action="store_true", help="log every HCI packet (large)")
    args = parser.parse_args()

    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr,
        format="%(asctime)s.%(msecs)03d %(levelname)s %(name)s: %(message)s", datefmt="%H:%M:%S",
    )
    logging.getLogger("bumble").setLevel(logging.DEBUG if args.debug else logging.WARNING)

    control = os.path.join(args.results, "control")
    os.makedirs(control, exist_ok=True)
    events = EventLog(os.path.join(args.results, "sent.jsonl"))

    link = RadioLink()
    sensors: dict = {kind: Sensor(kind, link, events) for kind in SENSORS}
    sensors["hxm"] = HxMStrap(link, events)
    for sensor in sensors.values():
        await sensor.start()

    if os.path.exists(args.socket):
        os.unlink(args.socket)
    transport = await open_unix_server_transport(args.socket)
    guest = GuestController("guest", host_source=transport.source, host_sink=transport.sink,
                            link=link, public_address=signals.GUEST_CONTROLLER_ADDRESS)
    log.info("guest controller %s listening on %s", guest.public_address, args.socket)
    events.write({"device": None, "event": "ready", "socket": args.socket})

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    tasks = [loop.create_task(s.notify_forever()) for s in sensors.values()]
    tasks.append(loop.create_task(poll_control(control, sensors, events)))
    await stop.wait()
    log.info("stopping")
    for task in tasks:
        task.cancel()
    events.write({"device": None, "event": "stopped"})
    try:
        os.unlink(args.socket)
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
