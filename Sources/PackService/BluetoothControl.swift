import BlueZ
import Foundation
import HandoffModel
import Logging
import PackControl
import PackSensors
import PackStorage
import SensorCodecs

/// The control API's Bluetooth commands: `scan`, `pair`, `sensors`, `forget`, `sensor`. The
/// daemon owns the adapter (it has the capabilities, and it keeps the paired sensors connected),
/// so the CLI asks it rather than opening sockets itself.
struct BluetoothControl: Sendable {
    let engine: PackEngine
    let database: PackDatabase
    let runner: SourceRunner
    let configuration: PackConfiguration
    let pins: ClassicPINs
    let logger: Logger

    /// The sources for the paired sensors, at start-up, on the pack's clock.
    static func pairedSources(
        _ database: PackDatabase, _ configuration: PackConfiguration, clock: PackClock
    ) throws -> [any LiveSource] {
        try database.pairedSensors().map { source(for: $0, configuration, clock: clock) }
    }

    static func source(for sensor: PairedSensor, _ c: PackConfiguration, clock: PackClock) -> any LiveSource {
        if sensor.isClassic {
            return ClassicStrapSource(
                sensor: sensor, adapter: c.bluetooth.adapter, connectTimeout: c.bluetooth.connectTimeout,
                supervisionTimeoutMs: c.bluetooth.supervisionTimeoutMs, clock: clock)
        }
        return BLESensorSource(
            sensor: sensor, adapter: c.bluetooth.adapter, connectTimeout: c.bluetooth.connectTimeout, clock: clock)
    }

    /// A source for a sensor paired while the daemon runs: on the engine's clock.
    private func source(for sensor: PairedSensor) -> any LiveSource {
        Self.source(for: sensor, configuration, clock: engine.clock)
    }

    func scan(seconds: Double, classic: Bool = false) async throws(ControlError) -> ScanReport {
        guard (1...60).contains(seconds) else {
            throw ControlError(code: "bad_request", message: "scan for 1 to 60 seconds")
        }
        if classic { return try await inquire(seconds: seconds) }
        let adapter = configuration.bluetooth.adapter
        let result = await offPool { () -> Result<(found: [BLEPairing.Found], sharedKernelScan: Bool), BlueZError> in
            do throws(BlueZError) { return .success(try BLEPairing.scan(adapter: adapter, seconds: seconds)) } catch {
                return .failure(error)
            }
        }
        let paired = Set((try? database.pairedSensors())?.map(\.address) ?? [])
        switch result {
        case .failure(let error): throw Self.controlError(error)
        case .success(let outcome):
            return ScanReport(
                seconds: seconds, adapter: adapter,
                devices: outcome.found.map { f in
                    let d = f.device
                    return ScannedDeviceReport(
                        name: d.advertising.name, address: d.address.description,
                        addressType: d.addressType == .leRandom ? .random : .public, kind: f.kind?.rawValue,
                        rssi: d.rssi.map(Int.init), services: d.advertising.serviceUUIDs.map(\.description),
                        connectable: d.connectable, appearance: d.advertising.appearance.map(Int.init),
                        txPower: d.advertising.txPower.map(Int.init), paired: paired.contains(d.address.description))
                }, sharedKernelScan: outcome.sharedKernelScan)
        }
    }

    /// `scan --classic`: an inquiry, then names; straps first.
    func inquire(seconds: Double) async throws(ControlError) -> ScanReport {
        let adapterName = configuration.bluetooth.adapter
        let result = await offPool { () -> Result<[InquiryResult], BlueZError> in
            do throws(BlueZError) {
                let adapter = try BluetoothAdapter.findUp(adapterName)
                return .success(try ClassicScanner.inquire(adapter: adapter, seconds: seconds))
            } catch {
                return .failure(error)
            }
        }
        let paired = Set((try? database.pairedSensors())?.map(\.address) ?? [])
        switch result {
        case .failure(let error): throw Self.controlError(error)
        case .success(let found):
            let devices = found.map { d in
                let profile = Self.classicProfile(name: d.name, classOfDevice: d.classOfDevice)
                return ScannedDeviceReport(
                    name: d.name, address: d.address.description, addressType: .bredr,
                    kind: profile == nil ? nil : SensorKind.heartRate.rawValue, rssi: d.rssi.map(Int.init),
                    services: d.serviceUUIDs.map(\.description), connectable: true, appearance: nil, txPower: nil,
                    paired: paired.contains(d.address.description), classOfDevice: d.classOfDevice.description,
                    profile: profile?.rawValue)
            }
            return ScanReport(
                seconds: seconds, adapter: adapterName,
                devices: devices.filter { $0.profile != nil } + devices.filter { $0.profile == nil },
                sharedKernelScan: false)
        }
    }

    /// The strap protocol a classic device's name suggests: Zephyr names its straps HXM and six
    /// digits; Polar's WearLink+ calls itself "Polar iWL" or "Polar WearLink".
    static func classicProfile(name: String?, classOfDevice: ClassOfDevice) -> ClassicStrapProfile? {
        guard let name = name?.lowercased() else { return nil }
        if name.hasPrefix("hxm") { return .zephyrHxM }
        if name.hasPrefix("polar") { return .polarWearLink }
        return nil
    }

    /// `pair ADDRESS --as polar-wearlink|zephyr-hxm`.
    func pairClassic(
        target: String, profile: ClassicStrapProfile, channel: Int?, pin: String?
    ) async throws(ControlError) -> PairedSensorReport {
        guard let address = BluetoothAddress(target) else {
            throw ControlError(
                code: "bad_request",
                message: "pair a classic strap by its address (`handoff scan --classic` lists them), not \"\(target)\"")
        }
        if let channel, !(1...30).contains(channel) {
            throw ControlError(code: "bad_request", message: "an RFCOMM channel is 1 to 30, not \(channel)")
        }
        // A strap takes one connection: stop following it while it pairs again.
        let existing = try? database.pairedSensors().first(where: { $0.matches(target) })
        if let existing { runner.stop(existing.id) }
        let adapter = configuration.bluetooth.adapter
        let timeout = configuration.bluetooth.connectTimeout
        let clock = engine.clock
        let now = clock.wall().nanosecondsSinceEpoch
        // Answer the kernel's PIN request for this strap while it pairs.
        let usedPIN = pin ?? profile.defaultPIN
        pins.set(address.description, pin: usedPIN)
        let result = await offPool { () -> Result<PairedSensor, ClassicPairing.Failure> in
            do throws(ClassicPairing.Failure) {
                return .success(
                    try ClassicPairing.pair(
                        address: address, profile: profile, channel: channel.map(UInt8.init), pin: usedPIN,
                        adapter: adapter, timeout: timeout, now: now, clock: clock))
            } catch {
                return .failure(error)
            }
        }
        let sensor: PairedSensor
        switch result {
        case .failure(let failure):
            if let existing {
                // Pairing again failed: keep following it as it was paired before.
                pins.set(existing.address, pin: existing.pin ?? "")
                runner.start(source(for: existing))
            } else {
                pins.remove(address.description)
            }
            if case .bluetooth(let error) = failure { throw Self.controlError(error) }
            throw ControlError(code: "pair_failed", message: failure.description)
        case .success(let s): sensor = s
        }
        return try await adopt(sensor)
    }

    /// Saves a newly paired sensor and starts following it.
    private func adopt(_ sensor: PairedSensor) async throws(ControlError) -> PairedSensorReport {
        do { try database.savePairedSensor(sensor) } catch {
            throw ControlError(code: "journal", message: "the sensor could not be saved: \(error)")
        }
        await engine.registerPaired(sensor)
        runner.start(source(for: sensor))
        logger.info(
            "Paired \(sensor.name ?? sensor.address) as \(sensor.profile ?? sensor.kind.rawValue)",
            metadata: ["sensor.id": "\(sensor.id)", "battery": "\(sensor.batteryPercent.map(String.init) ?? "?")"])
        return await report(sensor)
    }

    func pair(
        target: String, kind kindName: String?, channel: Int? = nil, pin: String? = nil
    ) async throws(ControlError) -> PairedSensorReport {
        if let kindName, let profile = ClassicStrapProfile(rawValue: kindName) {
            return try await pairClassic(target: target, profile: profile, channel: channel, pin: pin)
        }
        if channel != nil || pin != nil {
            throw ControlError(
                code: "bad_request",
                message: "channel and pin are for classic straps (--as polar-wearlink or zephyr-hxm)")
        }
        var kind: SensorKind?
        if let kindName {
            guard let k = BLEProfile.kind(named: kindName) else {
                throw ControlError(
                    code: "bad_request",
                    message: "--as takes hr, footpod or bike, or polar-wearlink or zephyr-hxm, not \"\(kindName)\"")
            }
            kind = k
        }
        if let existing = try? database.pairedSensors().first(where: { $0.matches(target) }) {
            if kind == nil || kind == existing.kind {
                runner.start(source(for: existing))
                return await report(existing)
            }
            // Paired as another kind: stop following it, pair it again as asked.
            runner.stop(existing.id)
        }
        let adapter = configuration.bluetooth.adapter
        let timeout = configuration.bluetooth.connectTimeout
        let requested = kind
        let clock = engine.clock
        let now = clock.wall().nanosecondsSinceEpoch
        let result = await offPool { () -> Result<PairedSensor, BLEPairing.Failure> in
            do throws(BLEPairing.Failure) {
                let (address, type, name) = try BLEPairing.resolve(
                    target, adapter: adapter, scanSeconds: 10, clock: clock)
                return .success(
                    try BLEPairing.pair(
                        address: address, type: type, name: name, kind: requested, adapter: adapter, timeout: timeout,
                        now: now, clock: clock
                    ))
            } catch {
                return .failure(error)
            }
        }
        let sensor: PairedSensor
        switch result {
        case .failure(let failure):
            if case .bluetooth(let error) = failure { throw Self.controlError(error) }
            throw ControlError(code: "pair_failed", message: failure.description)
        case .success(let s): sensor = s
        }
        return try await adopt(sensor)
    }

    func sensors() async throws(ControlError) -> [PairedSensorReport] {
        let paired: [PairedSensor]
        do { paired = try database.pairedSensors() } catch {
            throw ControlError(code: "journal", message: "the paired sensors could not be read: \(error)")
        }
        var reports: [PairedSensorReport] = []
        for sensor in paired { reports.append(await report(sensor)) }
        return reports
    }

    func forget(_ target: String) async throws(ControlError) -> PairedSensorReport {
        guard let sensor = try? database.pairedSensors().first(where: { $0.matches(target) }) else {
            throw ControlError(
                code: "not_paired", message: "no paired sensor is \"\(target)\": `handoff sensors` lists them")
        }
        runner.stop(sensor.id)
        pins.remove(sensor.address)
        let report = await report(sensor)
        do { try database.forgetPairedSensor(address: sensor.address) } catch {
            throw ControlError(code: "journal", message: "the sensor could not be forgotten: \(error)")
        }
        logger.info("Forgot \(sensor.name ?? sensor.address)", metadata: ["sensor.id": "\(sensor.id)"])
        return report
    }

    /// One sensor's live state and latest values (`handoff sensor test`).
    func sensor(_ target: String) async throws(ControlError) -> SensorReport {
        let paired = try? database.pairedSensors().first(where: { $0.matches(target) })
        let id = paired?.id ?? SensorID(target)
        guard let report = await engine.sensorReport(id) else {
            throw ControlError(
                code: "not_paired", message: "no sensor is \"\(target)\": `handoff sensors` lists the paired ones")
        }
        return report
    }

    private func report(_ sensor: PairedSensor) async -> PairedSensorReport {
        let live = await engine.sensorReport(sensor.id)
        let lastSeen = sensor.lastSeenWallNanoseconds
        return PairedSensorReport(
            id: sensor.id.rawValue, address: sensor.address, addressType: sensor.addressType,
            kind: sensor.kind.rawValue, name: sensor.name,
            device: SensorDeviceReport(
                manufacturer: sensor.manufacturer, model: sensor.model, firmware: sensor.firmware,
                serialNumber: sensor.serialNumber, location: sensor.location,
                batteryPercent: live?.batteryPercent ?? sensor.batteryPercent),
            paired: CivilTime(WallInstant(nanosecondsSinceEpoch: sensor.pairedWallNanoseconds)).iso8601(),
            lastSeen: lastSeen.map { CivilTime(WallInstant(nanosecondsSinceEpoch: $0)).iso8601() },
            lastSeenS: live?.lastSeenS, link: live?.link ?? .connecting,
            classic: ClassicStrapReport(profile: sensor.profile, rfcommChannel: sensor.rfcommChannel))
    }

    static func controlError(_ error: BlueZError) -> ControlError {
        let code: ControlError.Code =
            switch error {
            case .noBluetoothInKernel, .noAdapter: "no_adapter"
            case .adapterDown: "adapter_off"
            case .permissionDenied: "permission_denied"
            case .connectTimedOut, .connectFailed, .classicConnectFailed: "out_of_range"
            default: "bluetooth"
            }
        return ControlError(code: code, message: error.description)
    }
}

extension PairedSensor {
    /// Whether `target` names it: its address (either case) or its name (ignoring case).
    func matches(_ target: String) -> Bool {
        address.caseInsensitiveCompare(target) == .orderedSame
            || name.map { $0.caseInsensitiveCompare(target) == .orderedSame } == true
    }
}

/// Runs blocking work (a scan, a connection) on a thread of its own, off Swift's cooperative pool.
func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
