import BlueZ
import GATT
import HandoffModel
import SensorCodecs

/// `handoff pair` and `handoff scan` on the pack's side: finds sensors, connects to one, and
/// reads what it is.
public enum BLEPairing {
    /// A device a scan found, as `handoff scan` lists it.
    public struct Found: Sendable {
        public var device: ScannedDevice
        /// The kind of sensor it looks like, from what it advertises.
        public var kind: SensorKind?
    }

    /// Scans for `seconds` on the adapter (`nil`: the first that is up); sensors first, then by
    /// signal strength.
    public static func scan(
        adapter: String?, seconds: Double, stop: @escaping () -> Bool = { false }
    ) throws(BlueZError) -> (found: [Found], sharedKernelScan: Bool) {
        let adapter = try BluetoothAdapter.findUp(adapter)
        let outcome = try LEScanner(adapter: adapter).scan(seconds: seconds, stop: stop)
        let found = outcome.results.devices.map { device in
            Found(
                device: device,
                kind: BLEProfile.kind(
                    services: device.advertising.serviceUUIDs, appearance: device.advertising.appearance))
        }
        return (
            found.sorted { a, b in
                if (a.kind != nil) != (b.kind != nil) { return a.kind != nil }
                return (a.device.rssi ?? -128) > (b.device.rssi ?? -128)
            }, outcome.sharedKernelScan
        )
    }

    /// Why pairing failed, in words a runner can act on.
    public enum Failure: Error, CustomStringConvertible {
        case notFound(String, seconds: Double, seen: [String])
        case ambiguous(String, matches: [String])
        case notASensor(address: String, services: [String])
        case lacks(address: String, kind: SensorKind, services: [String])
        case bluetooth(BlueZError)
        case gatt(address: String, GATTError)

        public var description: String {
            switch self {
            case .notFound(let name, let seconds, let seen):
                "no sensor named \"\(name)\" advertised within \(Int(seconds)) s"
                    + (seen.isEmpty ? "" : " (heard: \(seen.prefix(8).joined(separator: ", ")))")
                    + ". Wake it (wear the strap or wet its contacts; step with the footpod) and try again, or pair it by address"
            case .ambiguous(let name, let matches):
                "\"\(name)\" matches several sensors (\(matches.joined(separator: ", "))); pair one by its address"
            case .notASensor(let address, let services):
                "\(address) offers no heart-rate, running or cycling service (it has \(services.joined(separator: ", ")))"
            case .lacks(let address, let kind, let services):
                "\(address) has no \(kind) service (it offers \(services.joined(separator: ", "))); pair it with the --as that fits"
            case .bluetooth(let error): "\(error)"
            case .gatt(let address, let error): "\(address) did not complete discovery: \(error)"
            }
        }
    }

    /// Resolves `target` (an address, or a name a scan hears, for `scanSeconds` on `clock`) to an
    /// address and its type.
    public static func resolve(
        _ target: String, adapter: String?, scanSeconds: Double, clock: PackClock
    ) throws(Failure) -> (BluetoothAddress, BluetoothAddressType, name: String?) {
        if let address = BluetoothAddress(target) {
            // A type is needed to connect: a short scan tells it; public when the sensor is silent.
            let scanned = try? scan(adapter: adapter, seconds: min(scanSeconds, 3)) { false }
            let device = scanned?.found.first { $0.device.address == address }?.device
            return (address, device?.addressType ?? .lePublic, device?.advertising.name)
        }
        var seen: [String] = []
        let deadline = clock.monotonic().seconds + scanSeconds
        while clock.monotonic().seconds < deadline {
            let found: [Found]
            do {
                found = try scan(adapter: adapter, seconds: min(2, deadline - clock.monotonic().seconds))
                    .found
            } catch {
                throw .bluetooth(error)
            }
            seen = Array(Set(seen + found.compactMap(\.device.advertising.name))).sorted()
            let exact = found.filter { $0.device.advertising.name?.caseInsensitiveCompare(target) == .orderedSame }
            let matches =
                exact.isEmpty
                ? found.filter { $0.device.advertising.name?.lowercased().hasPrefix(target.lowercased()) == true }
                : exact
            if matches.count == 1 {
                let d = matches[0].device
                return (d.address, d.addressType, d.advertising.name)
            }
            if matches.count > 1 {
                throw .ambiguous(
                    target, matches: matches.map { "\($0.device.advertising.name ?? "?") \($0.device.address)" })
            }
        }
        throw .notFound(target, seconds: scanSeconds, seen: seen)
    }

    /// Connects, discovers, reads battery and device information, and returns the sensor to
    /// remember. `kind` is what the runner asked for; `nil` takes what the sensor offers. `clock`
    /// times the GATT requests.
    public static func pair(
        address: BluetoothAddress, type: BluetoothAddressType, name: String?, kind: SensorKind?, adapter: String?,
        timeout: Double, now: Int64, clock: PackClock
    ) throws(Failure) -> PairedSensor {
        let connection: BLEConnection
        do {
            let adapter = try BluetoothAdapter.findUp(adapter)
            connection = try BLEConnection.open(
                address: address, type: type, adapter: adapter, security: .low, timeout: timeout, clock: clock,
                stop: { false })
        } catch let error as BlueZError {
            throw .bluetooth(error)
        } catch let error as GATTError {
            throw .gatt(address: address.description, error)
        } catch {
            throw .bluetooth(.system(call: "connect", errno: 0))
        }
        defer { connection.close() }
        let offered = connection.services.map(\.uuid)
        let names = offered.map(\.description)
        let chosen: BLEProfile
        if let kind {
            guard let profile = BLEProfile.profile(for: kind), offered.contains(profile.service) else {
                throw .lacks(address: address.description, kind: kind, services: names)
            }
            chosen = profile
        } else {
            guard let profile = BLEProfile.all.first(where: { offered.contains($0.service) }) else {
                throw .notASensor(address: address.description, services: names)
            }
            chosen = profile
        }
        guard connection.characteristics[chosen.measurement] != nil else {
            throw .lacks(address: address.description, kind: chosen.kind, services: names)
        }
        func text(_ uuid: BluetoothUUID) -> String? {
            connection.readIfPresent(uuid).map(DeviceInformationString.decode).flatMap { $0.isEmpty ? nil : $0 }
        }
        let deviceName = text(.deviceName)
        return PairedSensor(
            address: address.description, addressType: type == .leRandom ? .random : .public, kind: chosen.kind,
            name: name ?? deviceName, manufacturer: text(.manufacturerName), model: text(.modelNumber),
            firmware: text(.firmwareRevision), serialNumber: text(.serialNumber),
            location: connection.readIfPresent(chosen.location).flatMap { try? SensorLocation(decoding: $0) }?
                .description,
            batteryPercent: connection.readIfPresent(.batteryLevel).flatMap { try? BatteryLevel(decoding: $0) }.map {
                Int($0.percent)
            },
            pairedWallNanoseconds: now)
    }
}
