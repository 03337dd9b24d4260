import BlueZ
import HandoffModel
import Logging
import PackSensors
import PackSystem
import SensorCodecs
import Synchronization

/// The PINs of the classic straps handoffd answers pairing requests for: the paired ones, and
/// the one being paired. Other devices' requests are left to whoever else listens.
final class ClassicPINs: Sendable {
    private let pins = Mutex<[String: String]>([:])

    init(_ sensors: [PairedSensor] = []) {
        for sensor in sensors where sensor.isClassic { set(sensor.address, pin: sensor.pin ?? "") }
    }

    func set(_ address: String, pin: String) { pins.withLock { $0[address.uppercased()] = pin } }
    func remove(_ address: String) { _ = pins.withLock { $0.removeValue(forKey: address.uppercased()) } }
    func pin(for address: BluetoothAddress) -> String? { pins.withLock { $0[address.description.uppercased()] } }
}

/// Answers the kernel's pairing requests for known classic straps (`PairingResponder`) on a
/// thread of its own, run by the `SourceRunner` like a sensor so that it stops with them. It
/// emits nothing.
struct PairingAgentSource: LiveSource {
    let pins: ClassicPINs
    let descriptor = SensorDescriptor(id: SensorID("bluetooth-pairing-agent"), kind: .unknown)

    func run(emit: @escaping @Sendable (CaptureEvent) -> Void, stop: StopFlag, logger: Logger) {
        while !stop.isSet {
            do {
                try PairingResponder.run(
                    policy: { pins.pin(for: $0) }, stop: { stop.isSet },
                    log: { logger.notice("Bluetooth pairing: \($0)") })
            } catch {
                logger.warning(
                    "The Bluetooth pairing agent stopped: \(error); classic straps cannot pair until it restarts")
                _ = stop.sleep(seconds: 10)
            }
        }
    }
}
