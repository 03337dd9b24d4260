import BlueZ
import GATT
import HandoffModel
import SensorCodecs

/// Which GATT service and characteristic carry each kind of sensor's measurements, and how the
/// pack names the payloads in captures.
public struct BLEProfile: Sendable {
    public var kind: SensorKind
    public var service: BluetoothUUID
    public var measurement: BluetoothUUID
    public var payload: PayloadKind
    /// Where the sensor says it is worn.
    public var location: BluetoothUUID

    public static let heartRate = BLEProfile(
        kind: .heartRate, service: .heartRate, measurement: .heartRateMeasurement, payload: .heartRateMeasurement,
        location: .bodySensorLocation)
    public static let footpod = BLEProfile(
        kind: .footpod, service: .runningSpeedAndCadence, measurement: .rscMeasurement, payload: .rscMeasurement,
        location: .sensorLocation)
    public static let bike = BLEProfile(
        kind: .bike, service: .cyclingSpeedAndCadence, measurement: .cscMeasurement, payload: .cscMeasurement,
        location: .sensorLocation)

    public static let all: [BLEProfile] = [.heartRate, .footpod, .bike]

    public static func profile(for kind: SensorKind) -> BLEProfile? { all.first { $0.kind == kind } }

    /// The kind a device is, from the services it advertises or offers (the first profile found,
    /// heart rate first), else from its GAP appearance (category 0x0D heart rate, 0x11 running
    /// walking sensor, 0x12 cycling).
    public static func kind(services: [BluetoothUUID], appearance: UInt16?) -> SensorKind? {
        if let profile = all.first(where: { services.contains($0.service) }) { return profile.kind }
        switch appearance.map({ $0 >> 6 }) {
        case 0x0D: return .heartRate
        case 0x11: return .footpod
        case 0x12: return .bike
        default: return nil
        }
    }

    /// The names `handoff pair --as` takes.
    public static func kind(named name: String) -> SensorKind? {
        switch name {
        case "hr", "heart-rate", "heart_rate": .heartRate
        case "footpod", "rsc": .footpod
        case "bike", "csc": .bike
        default: nil
        }
    }
}

/// An open GATT connection to a sensor: the L2CAP ATT bearer and the client on it, after the MTU
/// exchange and discovery of its services and their characteristics.
final class BLEConnection {
    let bearer: SocketATTBearer
    let client: GATTClient
    private(set) var services: [GATTService] = []
    private(set) var characteristics: [BluetoothUUID: GATTCharacteristic] = [:]

    /// `clock` times the client's requests.
    init(bearer: SocketATTBearer, clock: PackClock) {
        self.bearer = bearer
        client = GATTClient(bearer: bearer, now: { clock.monotonic().seconds })
    }

    /// Connects, exchanges MTU and discovers everything a sensor needs.
    static func open(
        address: BluetoothAddress, type: BluetoothAddressType, adapter: BluetoothAdapter?, security: LinkSecurity,
        timeout: Double, clock: PackClock, stop: @escaping @Sendable () -> Bool
    ) throws -> BLEConnection {
        try open(
            bearer: L2CAPConnector.connectATT(
                to: address, type: type, adapter: adapter, security: security, timeout: timeout, stop: stop),
            clock: clock, stop: stop)
    }

    /// Discovers over a bearer already open.
    static func open(
        bearer: SocketATTBearer, clock: PackClock, stop: @escaping @Sendable () -> Bool
    ) throws -> BLEConnection {
        bearer.isCancelled = stop
        let connection = BLEConnection(bearer: bearer, clock: clock)
        do {
            try connection.client.exchangeMTU()
            connection.services = try connection.client.discoverPrimaryServices()
            for service in connection.services
            where BLEProfile.all.contains(where: { $0.service == service.uuid })
                || service.uuid == .battery || service.uuid == .deviceInformation
            {
                for c in try connection.client.discoverCharacteristics(of: service)
                where connection.characteristics[c.uuid] == nil {
                    connection.characteristics[c.uuid] = c
                }
            }
        } catch {
            bearer.close()
            throw error
        }
        return connection
    }

    /// Reads a characteristic if the sensor has it and lets it be read; `nil` otherwise.
    func readIfPresent(_ uuid: BluetoothUUID) -> [UInt8]? {
        guard let c = characteristics[uuid], c.properties.contains(.read) else { return nil }
        return try? client.read(c.valueHandle)
    }

    func close() { bearer.close() }
}

extension MonotonicInstant {
    var seconds: Double { Double(nanoseconds) / 1e9 }
}
