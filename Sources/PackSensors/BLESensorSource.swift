import BlueZ
import GATT
import HandoffModel
import Logging
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// A paired Bluetooth LE sensor, kept connected: it connects when `handoffd` starts (or when the
/// sensor is paired), subscribes to its measurement and battery, and passes every notification on
/// raw, stamped as it arrives. When the link drops (a supervision timeout when the strap goes out
/// of range, a remote disconnect, the adapter resetting) it says so, which puts a gap in the
/// session, and reconnects: the kernel connects as soon as the sensor advertises again.
/// Notifications are stamped, and the battery reads and ATT requests timed, by `clock`.
public struct BLESensorSource: LiveSource {
    public let sensor: PairedSensor
    public let descriptor: SensorDescriptor
    public let clock: PackClock
    /// The adapter to use (`hci0`); `nil` for the first one that is up.
    public var adapter: String?
    /// How long one connection attempt waits for the sensor to advertise.
    public var connectTimeout: Double = 20
    /// How often a battery that does not notify is read.
    public var batteryPollSeconds: Double = 600
    /// Waits between failed attempts: short, because an attempt itself waits (in the kernel's
    /// passive scan) for the sensor to advertise; a long pause would be time a returning strap
    /// goes unheard.
    public var backoff = Backoff(initial: 0.5, maximum: 1)
    /// Opens the ATT bearer to the sensor: an L2CAP socket through the kernel in the pack; tests
    /// on a machine without Bluetooth put a socket pair here.
    public var connect:
        @Sendable (_ security: LinkSecurity, _ stop: @escaping @Sendable () -> Bool) throws -> SocketATTBearer

    public init(sensor: PairedSensor, adapter: String? = nil, connectTimeout: Double = 20, clock: PackClock) {
        self.sensor = sensor
        self.clock = clock
        self.adapter = adapter
        self.connectTimeout = connectTimeout
        descriptor = sensor.descriptor
        let address = BluetoothAddress(sensor.address)
        let type: BluetoothAddressType = sensor.addressType == .random ? .leRandom : .lePublic
        connect = { security, stop in
            guard let address else { throw BlueZError.noAdapter(nil) }
            return try L2CAPConnector.connectATT(
                to: address, type: type, adapter: try BluetoothAdapter.findUp(adapter), security: security,
                timeout: connectTimeout, stop: stop)
        }
    }

    public func run(emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger) {
        var link = LinkKeeper(sensor: descriptor.id, clock: clock, backoff: backoff)
        let metadata: Logger.Metadata = ["sensor.id": "\(descriptor.id)", "sensor.kind": "\(sensor.kind)"]
        guard BluetoothAddress(sensor.address) != nil, let profile = BLEProfile.profile(for: sensor.kind) else {
            logger.error(
                "Cannot follow a paired sensor with this address or kind; forget and pair it again", metadata: metadata)
            return
        }
        var security = LinkSecurity.low
        link.keepUp(emit: emit, stop: stop) { reason, attempts in
            logger.warning(
                "Sensor not connected; retrying",
                metadata: metadata.merging(["reason": "\(reason)", "attempts": "\(attempts)"]) { a, _ in a })
        } attempt: { link in
            do {
                let connection = try BLEConnection.open(
                    bearer: connect(security, { stop.isSet }), clock: clock, stop: { stop.isSet })
                defer { connection.close() }
                return try follow(connection, profile: profile, link: &link, emit: emit, stop: stop, logger: logger)
            } catch let error as GATTError {
                if case .att(let code, _, _) = error, code.needsSecurity, security == .low {
                    // The sensor wants an encrypted link: the kernel pairs when asked for medium security.
                    security = .medium
                    logger.notice(
                        "The sensor asks for an encrypted link; reconnecting with pairing", metadata: metadata)
                }
                return Self.describe(error)
            } catch BlueZError.cancelled {
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    /// Subscribes and passes values on until the link fails or the source is stopped; returns why
    /// it ended.
    private func follow(
        _ connection: BLEConnection, profile: BLEProfile, link: inout LinkKeeper,
        emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger
    ) throws(GATTError) -> String {
        guard let measurement = connection.characteristics[profile.measurement] else {
            return "it no longer offers \(profile.measurement) (its firmware changed?); forget and pair it again"
        }
        try connection.client.subscribe(measurement)
        var batteryHandle: UInt16?
        var batteryNotifies = false
        if let battery = connection.characteristics[.batteryLevel] {
            batteryHandle = battery.valueHandle
            if battery.properties.contains(.notify), (try? connection.client.subscribe(battery)) != nil {
                batteryNotifies = true
            }
        }
        link.up(reason: "connected, MTU \(connection.client.mtu)", emit: emit)
        logger.info(
            "Sensor connected",
            metadata: ["sensor.id": "\(descriptor.id)", "mtu": "\(connection.client.mtu)"])
        let id = descriptor.id
        // Read once on connecting, notifying or not: a battery notifies only when it changes.
        var nextBatteryRead = clock.monotonic().seconds
        var batteryRead = false
        while !stop.isSet {
            if let handle = batteryHandle, !batteryNotifies || !batteryRead,
                clock.monotonic().seconds >= nextBatteryRead
            {
                batteryRead = true
                nextBatteryRead += batteryPollSeconds
                if let value = try? connection.client.read(handle) {
                    emit(clock.stamp(.payload(sensor: id, kind: .batteryLevel, .bytes(value))))
                }
            }
            guard let value = try connection.client.nextValue(timeout: 0.5) else { continue }
            let kind: PayloadKind
            if value.handle == measurement.valueHandle {
                kind = profile.payload
            } else if value.handle == batteryHandle {
                kind = .batteryLevel
            } else {
                continue  // a characteristic we did not subscribe to
            }
            emit(clock.stamp(.payload(sensor: id, kind: kind, .bytes(value.value))))
        }
        return "stopped"
    }

    /// The reason a link ended, as the session's gap event says it.
    static func describe(_ error: GATTError) -> String {
        if case .bearer(let bearer) = error { return bearer.message }
        return "\(error)"
    }
}
