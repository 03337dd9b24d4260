import BlueZ
import Logging

/// What handoffd does to the adapter at start, before following paired sensors: power it and LE
/// on when nothing else has (a pack without bluetoothd), and set the LE connection defaults that
/// keep straps connected (hw/bluetooth.md says why). Failures are warnings: the sensors are still
/// tried, and their errors say what is wrong.
enum BluetoothSetup {
    static func prepare(_ c: PackConfiguration, logger: Logger) {
        let adapter: BluetoothAdapter
        do { adapter = try BluetoothAdapter.find(c.bluetooth.adapter) } catch {
            logger.warning("Bluetooth is not available: \(error)")
            return
        }
        let management: ManagementSocket
        do { management = try ManagementSocket() } catch {
            logger.warning("Cannot open the Bluetooth management socket: \(error)")
            return
        }
        if c.bluetooth.powerOn {
            // LE first: the kernel keeps LE off on a dual-mode controller until told.
            for (opcode, what) in [(ManagementSocket.Opcode.setLowEnergy, "LE"), (.setPowered, "power")] {
                do {
                    let status = try management.send(opcode, index: adapter.index, [0x01])
                    if status != 0 {
                        logger.warning(
                            "Could not turn \(what) on for \(adapter.name) (mgmt status 0x\(String(status, radix: 16))); \(status == 0x14 ? "handoffd needs CAP_NET_ADMIN" : "see hw/bluetooth.md")"
                        )
                    }
                } catch {
                    logger.warning("Could not turn \(what) on for \(adapter.name): \(error)")
                }
            }
        }
        guard c.bluetooth.maxIntervalMs != nil || c.bluetooth.supervisionTimeoutMs != nil else { return }
        let maxInterval = UInt16(((c.bluetooth.maxIntervalMs ?? 50) / 1.25).rounded())
        let timeout = UInt16(((c.bluetooth.supervisionTimeoutMs ?? 420) / 10).rounded())
        do {
            let status = try management.setLEConnectionDefaults(
                index: adapter.index, minInterval: 0x0018, maxInterval: maxInterval, latency: 0,
                supervisionTimeout: timeout)
            if status == 0 {
                logger.info(
                    "LE connection defaults set",
                    metadata: [
                        "adapter": "\(adapter.name)", "max_interval_ms": "\(Double(maxInterval) * 1.25)",
                        "supervision_timeout_ms": "\(Int(timeout) * 10)",
                    ])
            } else {
                logger.warning(
                    "Could not set the LE connection defaults on \(adapter.name) (mgmt status 0x\(String(status, radix: 16))): straps that ask for longer intervals may drop; see hw/bluetooth.md"
                )
            }
        } catch {
            logger.warning("Could not set the LE connection defaults: \(error)")
        }
    }
}
