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

Both advertise every 100 ms (legacy ADV_IND, own address public) with flags, their 16-bit
service UUID, complete local name, appearance and TX power, all in the advertising data.
While a central is subscribed each sends one measurement a second (signals.py has the
deterministic script; the sequence n continues across reconnections).

Every notification sent and every link event is one JSON line in $RESULTS/sent.jsonl:
  {"t": unix time, "device": "hr"|"footpod", "n": seq|null, "hex": payload,
   "malformed": false|"truncated"|"flags_overrun"|"empty"}
  {"t": …, "device": …, "event": "connected"|"disconnected"|"subscribed"|"unsubscribed"|
   "advertising"|"dropout_start"|"dropout_end"|"command"|…, …details}

Commands from the guest arrive as JSON files in $RESULTS/control/, executed once each in name
order (polled every 100 ms):
  {"device": "hr", "action": "dropout", "seconds": 20}
      The sensor goes out of range: it stops advertising and the radio drops everything it
      sends or should receive. After the connection's supervision timeout both controllers
      report Disconnection Complete with reason 0x08 (Connection Timeout), as a real link loss
      does — no LL_TERMINATE_IND is exchanged. After `seconds` it advertises again.
  {"device": "hr", "action": "malformed", "kinds": ["truncated", "flags_overrun", "empty"]}
      While subscribed, sends those payloads (signals.MALFORMED), logged with "n": null.

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

Usage: peripherals.py --socket PATH --results DIR [--debug]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
import time
from typing import Any

from bumble import hci
from bumble.controller import Controller
from bumble.core import UUID, PhysicalTransport
from bumble.device import Device
from bumble.gatt import Characteristic, Service
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink
from bumble.transport.unix import open_unix_server_transport

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import signals  # noqa: E402  (our deterministic measurement script)

log = logging.getLogger("peripherals")

CONNECTION_TIMEOUT = 0x08  # HCI error code: Connection Timeout (supervision timeout)
UNKNOWN_CONNECTION_ID = 0x02
UNKNOWN_COMMAND = 0x01


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

    def send_acl_data(self, sender_controller, destination_address, transport, data):
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

    def back_in_range(self, controller: Controller) -> None:
        self.out_of_range.discard(controller)

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
    0x0C45: b"",                     # Write Inquiry Mode
    0x0C58: bytes([0]),              # Read Inquiry Response Transmit Power Level
    0x0C0D: bytes([0, 0, 0, 0]),     # Read Stored Link Key: max 0, read 0
    0x0C12: bytes([0, 0]),           # Delete Stored Link Key: 0 deleted
    0x080F: b"",                     # Write Default Link Policy Settings
    0x0C1A: b"",                     # Write Scan Enable (handled by Bumble; kept as fallback)
    0x0C20: b"",                     # Write Authentication Enable
    0x0C24: b"",                     # Write Class Of Device (fallback)
    0x0C7A: b"",                     # Write Secure Connections Host Support
}


class GuestController(Controller):
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
        if handler is not None:
            return super().on_hci_command_packet(command)
        op = command.op_code
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
    sensors = {kind: Sensor(kind, link, events) for kind in SENSORS}
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
