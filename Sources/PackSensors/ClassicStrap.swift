import BlueZ
import HandoffModel
import Logging
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// The classic (Bluetooth BR/EDR) heart-rate straps the pack reads over RFCOMM.
public enum ClassicStrapProfile: String, CaseIterable, Sendable {
    case polarWearLink = "polar-wearlink"
    case zephyrHxM = "zephyr-hxm"

    /// The PIN each asks for in legacy pairing, unless told otherwise.
    public var defaultPIN: String {
        switch self {
        case .polarWearLink: "0000"
        case .zephyrHxM: "1234"
        }
    }

    public var payloadKind: PayloadKind {
        switch self {
        case .polarWearLink: .polarWearLink
        case .zephyrHxM: .zephyrHxM
        }
    }

    public var manufacturer: String {
        switch self {
        case .polarWearLink: "Polar"
        case .zephyrHxM: "Zephyr"
        }
    }

    public var model: String {
        switch self {
        case .polarWearLink: "WearLink+"
        case .zephyrHxM: "HxM"
        }
    }
}

/// Frames one strap's stream into payloads: each whole, checked frame as it arrived, and the
/// HxM's battery when it changes.
public struct ClassicStrapFramer {
    public let profile: ClassicStrapProfile
    private var zephyr = ZephyrFramer()
    private var polar = PolarWearLinkFramer()
    private var battery: UInt8?
    public private(set) var frames = 0

    public init(profile: ClassicStrapProfile) { self.profile = profile }

    /// The bytes skipped so far (garbage, failed checks).
    public var droppedBytes: Int { profile == .zephyrHxM ? zephyr.droppedBytes : polar.droppedBytes }

    public mutating func append(_ bytes: [UInt8], _ body: (PayloadKind, [UInt8]) -> Void) {
        switch profile {
        case .polarWearLink:
            polar.append(bytes) { packet, _ in
                frames += 1
                body(.polarWearLink, packet.encoded())
            }
        case .zephyrHxM:
            var framer = zephyr
            defer { zephyr = framer }
            framer.append(bytes) { frame in
                // Other Zephyr messages are not HxM data. The pipeline decodes the frame; here only
                // the battery byte is read, so a frame is not decoded twice on the pack.
                guard frame.messageID == HxMGeneralData.messageID, frame.data.count == HxMGeneralData.dataLength
                else { return }
                frames += 1
                body(.zephyrHxM, frame.bytes)
                let level = frame.data[HxMGeneralData.batteryOffset]
                if level != battery, level <= 100 {
                    battery = level
                    body(.batteryLevel, [level])
                }
            }
        }
    }
}

/// A paired classic strap, kept connected like a BLE sensor: the RFCOMM channel found by SDP (or
/// as configured), the link authenticated as the strap needs, every frame passed on raw, and a
/// dropped link a gap in the session followed by reconnection. Frames are stamped, and the
/// silence timed, by `clock`.
public struct ClassicStrapSource: LiveSource {
    public let sensor: PairedSensor
    public let descriptor: SensorDescriptor
    public let clock: PackClock
    public var adapter: String?
    /// How long one connection attempt (page, SDP, RFCOMM) may take.
    public var connectTimeout: Double = 20
    /// A strap sends a frame every second; this long without one means the link is dead even if
    /// the kernel has not noticed yet.
    public var silenceTimeout: Double = 8
    public var backoff = Backoff(initial: 0.5, maximum: 2)
    /// Opens the strap's stream; tests put something else here.
    public var connect: @Sendable (_ stop: @escaping @Sendable () -> Bool) throws -> RFCOMMStream

    /// `supervisionTimeoutMs`: the link supervision timeout set on each new link (`nil` keeps
    /// the controller's 20 s).
    public init(
        sensor: PairedSensor, adapter: String? = nil, connectTimeout: Double = 20, supervisionTimeoutMs: Double? = 4000,
        clock: PackClock
    ) {
        self.sensor = sensor
        self.clock = clock
        self.adapter = adapter
        self.connectTimeout = connectTimeout
        descriptor = sensor.descriptor
        let address = BluetoothAddress(sensor.address)
        let channel = sensor.rfcommChannel
        connect = { stop in
            guard let address else { throw BlueZError.noAdapter(nil) }
            let found = try BluetoothAdapter.findUp(adapter)
            guard ClassicConnector.probe(address, adapter: found) != nil else {
                throw BlueZError.classicConnectFailed(address: address.description, errno: EHOSTDOWN)
            }
            let rfcomm =
                try channel.map(UInt8.init)
                ?? ClassicConnector.serialPortChannel(of: address, adapter: found, timeout: connectTimeout, stop: stop)
                .channel
            let stream = try ClassicConnector.connectRFCOMM(
                to: address, channel: rfcomm, adapter: found, security: .medium, timeout: connectTimeout, stop: stop)
            if let supervisionTimeoutMs, let handle = stream.aclHandle {
                _ = ClassicConnector.setSupervisionTimeout(supervisionTimeoutMs, handle: handle, adapter: found)
            }
            return stream
        }
    }

    public func run(emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger) {
        var link = LinkKeeper(sensor: descriptor.id, clock: clock, backoff: backoff)
        let metadata: Logger.Metadata = ["sensor.id": "\(descriptor.id)", "sensor.profile": "\(sensor.profile ?? "?")"]
        guard let profile = sensor.profile.flatMap(ClassicStrapProfile.init(rawValue:)) else {
            logger.error(
                "A paired classic strap without a known protocol; forget and pair it again", metadata: metadata)
            return
        }
        link.keepUp(emit: emit, stop: stop) { reason, attempts in
            logger.warning(
                "Strap not connected; retrying",
                metadata: metadata.merging(["reason": "\(reason)", "attempts": "\(attempts)"]) { a, _ in a })
        } attempt: { link in
            do {
                let stream = try connect({ stop.isSet })
                defer { stream.close() }
                return try follow(stream, profile: profile, link: &link, emit: emit, stop: stop, logger: logger)
            } catch BlueZError.cancelled {
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    /// Reads frames until the link fails, falls silent or the source is stopped; returns why.
    private func follow(
        _ stream: RFCOMMStream, profile: ClassicStrapProfile, link: inout LinkKeeper,
        emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger
    ) throws(BlueZError) -> String {
        link.up(reason: "connected over RFCOMM", emit: emit)
        logger.info("Strap connected", metadata: ["sensor.id": "\(descriptor.id)"])
        var framer = ClassicStrapFramer(profile: profile)
        var lastFrame = clock.monotonic().seconds
        let id = descriptor.id
        while !stop.isSet {
            let bytes = try stream.read(timeout: 0.5)
            let now = clock.monotonic()
            let before = framer.frames
            framer.append(bytes) { kind, payload in
                emit(
                    CaptureEvent(
                        monotonic: now, wall: clock.wall(),
                        body: .payload(sensor: id, kind: kind, .bytes(payload)))
                )
            }
            if framer.frames > before {
                lastFrame = now.seconds
            } else if now.seconds - lastFrame > silenceTimeout {
                return
                    "no \(profile.model) frame for \(Int(silenceTimeout)) s (\(framer.droppedBytes) bytes could not be read)"
            }
        }
        return "stopped"
    }
}

/// Pairing a classic strap: find its RFCOMM channel, connect with authentication (the kernel
/// asks for the PIN; `PairingResponder` gives it), and check that it really sends frames of
/// the protocol asked for before it is saved.
public enum ClassicPairing {
    public enum Failure: Error, CustomStringConvertible {
        case bluetooth(BlueZError)
        /// Connected, but nothing readable came within the time.
        case noFrames(address: String, profile: ClassicStrapProfile, bytes: Int, seconds: Double)

        public var description: String {
            switch self {
            case .bluetooth(let error): "\(error)"
            case .noFrames(let address, let profile, let bytes, let seconds):
                bytes == 0
                    ? "\(address) connected but sent nothing in \(Int(seconds)) s: is the strap worn (it sends only with skin contact)?"
                    : "\(address) sent \(bytes) bytes in \(Int(seconds)) s, none of them a \(profile.manufacturer) \(profile.model) frame: pair it with the --as that fits"
            }
        }
    }

    /// Connects and waits up to `frameTimeout` seconds (on `clock`) for a frame. Returns the sensor
    /// to save.
    public static func pair(
        address: BluetoothAddress, profile: ClassicStrapProfile, channel: UInt8?, pin: String?, adapter: String?,
        timeout: Double, frameTimeout: Double = 10, now: Int64, clock: PackClock
    ) throws(Failure) -> PairedSensor {
        let stream: RFCOMMStream
        var serviceName: String?
        var deviceName: String?
        let rfcomm: UInt8
        do throws(BlueZError) {
            let found = try BluetoothAdapter.findUp(adapter)
            // Page it first (see `ClassicConnector.probe`): also its name.
            deviceName = ClassicConnector.probe(address, adapter: found)
            guard deviceName != nil else {
                throw BlueZError.classicConnectFailed(address: address.description, errno: EHOSTDOWN)
            }
            if let channel {
                rfcomm = channel
            } else {
                (rfcomm, serviceName) = try ClassicConnector.serialPortChannel(
                    of: address, adapter: found, timeout: timeout)
            }
            stream = try ClassicConnector.connectRFCOMM(
                to: address, channel: rfcomm, adapter: found, security: .medium, timeout: timeout)
        } catch {
            throw .bluetooth(error)
        }
        defer { stream.close() }
        var framer = ClassicStrapFramer(profile: profile)
        var battery: Int?
        var firmware: String?
        var received = 0
        let deadline = clock.monotonic().seconds + frameTimeout
        while framer.frames == 0, clock.monotonic().seconds < deadline {
            let bytes: [UInt8]
            do { bytes = try stream.read(timeout: 0.5) } catch { throw .bluetooth(error) }
            received += bytes.count
            framer.append(bytes) { kind, payload in
                if kind == .batteryLevel { battery = payload.first.map(Int.init) }
                if kind == .zephyrHxM, let packet = try? HxMGeneralData(data: Array(payload[3..<58])) {
                    firmware =
                        "\(packet.firmwareID) \(packet.firmwareVersion), hardware \(packet.hardwareID) \(packet.hardwareVersion)"
                }
            }
        }
        guard framer.frames > 0 else {
            throw .noFrames(address: address.description, profile: profile, bytes: received, seconds: frameTimeout)
        }
        return PairedSensor(
            address: address.description, addressType: .bredr, kind: .heartRate,
            name: deviceName ?? serviceName, manufacturer: profile.manufacturer, model: profile.model,
            firmware: firmware,
            location: "chest", batteryPercent: battery, pairedWallNanoseconds: now, profile: profile.rawValue,
            rfcommChannel: channel.map(Int.init), pin: pin ?? profile.defaultPIN)
    }
}
