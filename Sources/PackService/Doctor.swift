import BlueZ
import CPackSystem
import Foundation
import HandoffModel
import PackControl
import PackSensors
import PackStorage
import PackSync

#if canImport(Glibc)
    import Glibc
#endif

/// `handoff doctor`: looks at each part the pack needs and says, per part, that it is well or
/// what is wrong and what to do. Run inside handoffd (which has the capabilities, the journal and
/// the token) when it answers; `handoffd --doctor` runs the same checks when it does not.
struct Doctor: Sendable {
    let configuration: PackConfiguration
    let database: PackDatabase?
    let engine: PackEngine?
    let sync: SyncWorker?
    /// How long the gpsd check waits for a fix.
    var gpsTimeout = 5.0

    func run() async -> [DoctorCheck] {
        let status = await engine?.status()
        var checks: [DoctorCheck] = []
        if configuration.replay.file != nil, !configuration.replay.live, let status {
            // Replaying only: no radio, receiver or accelerometer is read, so none is checked.
            checks.append(replay(status))
            checks.append(clock(status))
        } else {
            checks.append(bluetoothAdapter())
            checks += await sensors(status)
            checks.append(await gps(status))
            checks.append(clock(status))
            checks.append(pedometer())
        }
        checks.append(space())
        checks.append(await databaseIntegrity())
        if let sync {
            checks.append(DoctorCheck(await sync.doctorStoreCheck()))
            checks.append(DoctorCheck(await sync.doctorNetworkCheck()))
        } else {
            let off = configuration.sync.enabled ? "without a journal there is no link" : "sync.enabled is false"
            checks.append(DoctorCheck("store", .ok, "not checked: \(off)"))
        }
        return checks
    }

    // MARK: Replay

    /// What stands in for the sensors while handoffd replays a capture.
    func replay(_ status: StatusReport) -> DoctorCheck {
        let file = (configuration.replay.file ?? "?" as String)
        let sources = status.sensors.map { "\($0.id) (\($0.kind.rawValue.replacingOccurrences(of: "_", with: " ")))" }
            .joined(separator: ", ")
        guard let replay = status.replay, !replay.finished else {
            return DoctorCheck(
                "replay", .warning, "the capture \(file) has been replayed to its end: no sensor is live",
                action:
                    "restart handoffd to replay it again, or remove [replay] file from handoff.toml to read real sensors"
            )
        }
        return DoctorCheck(
            "replay", .ok,
            "replaying the capture \(file) (\(Int((replay.progress * 100).rounded())) %): \(sources.isEmpty ? "no sensors" : sources) come from it; Bluetooth, GPS and the pedometer are not read"
        )
    }

    // MARK: Bluetooth

    func bluetoothAdapter() -> DoctorCheck {
        let id = "bluetooth.adapter"
        guard configuration.bluetooth.enabled else {
            return DoctorCheck(id, .ok, "not used (bluetooth.enabled is false)")
        }
        let adapter: BluetoothAdapter
        do { adapter = try BluetoothAdapter.find(configuration.bluetooth.adapter) } catch {
            switch error {
            case .noBluetoothInKernel:
                return DoctorCheck(
                    id, .problem, "this kernel has no Bluetooth (socket(AF_BLUETOOTH) is refused)",
                    action:
                        "load it with `sudo modprobe bluetooth`, or run a kernel built with CONFIG_BT (Raspberry Pi OS's is)"
                )
            default:
                let blocked = rfkill().first { $0.blocked != nil }
                if let blocked {
                    return DoctorCheck(
                        id, .problem,
                        "no usable Bluetooth adapter: \(blocked.name) is blocked by rfkill (\(blocked.blocked!))",
                        action: blocked.blocked == "hard"
                            ? "a switch or the firmware blocks the radio; check the board's settings"
                            : "`sudo rfkill unblock bluetooth`")
                }
                return DoctorCheck(id, .problem, "\(error)", action: "see hw/bluetooth.md")
            }
        }
        if let blocked = rfkill().first(where: { $0.blocked != nil }) {
            return DoctorCheck(
                id, .problem, "\(adapter.name) is blocked by rfkill (\(blocked.blocked!) block on \(blocked.name))",
                action: blocked.blocked == "hard"
                    ? "a switch or the firmware blocks the radio; check the board's settings"
                    : "`sudo rfkill unblock bluetooth`; handoffd powers the adapter on when it starts")
        }
        guard adapter.isUp else {
            return DoctorCheck(
                id, .problem, "\(adapter.name) (\(adapter.address)) is powered off",
                action: configuration.bluetooth.powerOn
                    ? "restart handoffd (it powers the adapter on; it needs CAP_NET_ADMIN) or `sudo btmgmt --index \(adapter.index) power on`"
                    : "`sudo btmgmt --index \(adapter.index) power on`, or set bluetooth.power_on = true")
        }
        return DoctorCheck(id, .ok, "\(adapter.name) (\(adapter.address)) is powered on and not blocked")
    }

    struct RFKill {
        var name: String
        /// `soft`, `hard`, or nil when not blocked.
        var blocked: String?
    }

    /// Bluetooth radios as /sys/class/rfkill lists them.
    func rfkill() -> [RFKill] {
        let root = configuration.pedometer.sysfsRoot + "/class/rfkill"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return entries.sorted().compactMap { entry in
            func read(_ name: String) -> String? {
                (try? String(contentsOfFile: "\(root)/\(entry)/\(name)", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard read("type") == "bluetooth" else { return nil }
            let hard = read("hard") == "1"
            let soft = read("soft") == "1"
            return RFKill(name: read("name") ?? entry, blocked: hard ? "hard" : soft ? "soft" : nil)
        }
    }

    func sensors(_ status: StatusReport?) async -> [DoctorCheck] {
        guard configuration.bluetooth.enabled, let database else { return [] }
        let paired: [PairedSensor]
        do { paired = try database.pairedSensors() } catch {
            return [
                DoctorCheck(
                    "sensors", .problem, "cannot read the paired sensors: \(error)", action: "see storage.database")
            ]
        }
        guard !paired.isEmpty else {
            return [
                DoctorCheck(
                    "sensors", .warning, "no Bluetooth sensor is paired",
                    action: "put the strap on, then `handoff scan` and `handoff pair ADDRESS`")
            ]
        }
        let now = PackClock.system.wall().nanosecondsSinceEpoch
        return paired.map { sensor in
            let id = "sensor.\(sensor.id)"
            let name = "\(sensor.name ?? sensor.id.rawValue) (\(sensor.kind.rawValue))"
            let live = status?.sensors.first { $0.id == sensor.id.rawValue }
            let battery = live?.batteryPercent ?? sensor.batteryPercent
            let batteryText = battery.map { ", battery \($0) %" } ?? ""
            if let live, live.link == .connected || live.fresh {
                let heard = live.lastSeenS.map { ", heard \(Format.rounded($0, 1)) s ago" } ?? ""
                if let battery, battery < 15 {
                    return DoctorCheck(
                        id, .warning, "\(name) is connected\(heard), battery \(battery) %",
                        action: "replace or charge its battery before a long run")
                }
                return DoctorCheck(id, .ok, "\(name) is connected\(heard)\(batteryText)")
            }
            let seen = sensor.lastSeenWallNanoseconds.map {
                "last seen \(Self.ago(seconds: Double(now - $0) / 1e9)) ago"
            }
            return DoctorCheck(
                id, .warning, "\(name) is not connected (\(seen ?? "never seen since pairing"))\(batteryText)",
                action: sensor.kind == .heartRate
                    ? "wear the strap (wet its electrodes) near the pack; it must not be connected to a phone or watch"
                    : "wake it (a few steps for a footpod) near the pack; it must not be connected to a phone or watch")
        }
    }

    static func ago(seconds: Double) -> String {
        switch seconds {
        case ..<120: "\(Int(seconds)) s"
        case ..<7200: "\(Int(seconds / 60)) min"
        case ..<172_800: "\(Int(seconds / 3600)) h"
        default: "\(Int(seconds / 86400)) days"
        }
    }

    // MARK: GPS and clock

    func gps(_ status: StatusReport?) async -> DoctorCheck {
        switch configuration.gps.source {
        case .none:
            return DoctorCheck("gps", .ok, "not used (gps.source = \"none\"): distance from the footpod")
        case .serial:
            let device = configuration.gps.device
            guard FileManager.default.fileExists(atPath: device) else {
                return DoctorCheck(
                    "gps", .problem, "the receiver's port \(device) does not exist",
                    action: "check the wiring and the UART settings in hw/README.md, or set gps.device")
            }
            guard access(device, R_OK) == 0 else {
                return DoctorCheck(
                    "gps", .problem, "no permission to read \(device)",
                    action: "add the handoff user to the dialout group (hw/install.sh does)")
            }
            return fixCheck(status, source: device)
        case .gpsd:
            if let status, status.gps.fix != .none, (status.gps.receiver.lastFixS ?? 99) < 5 {
                return fixCheck(status, source: "gpsd \(configuration.gps.gpsdHost):\(configuration.gps.gpsdPort)")
            }
            let probe = GpsdProbe(
                host: configuration.gps.gpsdHost, port: configuration.gps.gpsdPort, clock: configuration.recording.clock
            )
            let timeout = gpsTimeout
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<GpsdProbe.Result, Never>) in
                Thread.detachNewThread { continuation.resume(returning: probe.run(timeout: timeout)) }
            }
            let address = "\(configuration.gps.gpsdHost):\(configuration.gps.gpsdPort)"
            if let reason = result.unreachable {
                return DoctorCheck(
                    "gps", .problem, "gpsd is not running at \(address) (\(reason))",
                    action: "`sudo systemctl start gpsd` (and check DEVICES in /etc/default/gpsd), or set gps.gpsd")
            }
            guard !result.devices.isEmpty || result.mode > 0 else {
                return DoctorCheck(
                    "gps", .problem, "gpsd at \(address) has no GPS receiver",
                    action: "check the receiver's cable and DEVICES in /etc/default/gpsd; `gpsmon` shows what gpsd sees"
                )
            }
            let satellites = result.satellitesUsed.map { ", \($0) satellites used" } ?? ""
            guard result.mode >= 2 else {
                let seen = result.satellitesSeen.map { " (\($0) satellites in view)" } ?? ""
                return DoctorCheck(
                    "gps", .warning, "gpsd has \(result.devices.joined(separator: ", ")) but no fix yet\(seen)",
                    action: "take the pack outside with the antenna facing the sky; a cold start takes up to a minute")
            }
            return DoctorCheck(
                "gps", .ok, "gpsd at \(address) has a \(result.mode == 3 ? "3D" : "2D") fix\(satellites)")
        }
    }

    private func fixCheck(_ status: StatusReport?, source: String) -> DoctorCheck {
        guard let gps = status?.gps, gps.fix != .none else {
            return DoctorCheck(
                "gps", .warning, "\(source): no fix yet",
                action: "take the pack outside with the antenna facing the sky; a cold start takes up to a minute")
        }
        let satellites = gps.quality.satellites.map { ", \($0) satellites" } ?? ""
        return DoctorCheck("gps", .ok, "\(source): \(gps.fix.phrase)\(satellites)")
    }

    func clock(_ status: StatusReport?) -> DoctorCheck {
        if configuration.recording.systemClock == .kernel, !PackClock.systemCanTellSynchronization {
            return DoctorCheck(
                "clock", .warning, "cannot tell whether the clock is synchronised: adjtimex(2) is refused",
                action:
                    "allow adjtimex and clock_adjtime in the unit (hw/systemd/handoffd.service does; ProtectClock=yes blocks them)"
            )
        }
        if (engine?.clock ?? configuration.recording.clock).isSynchronized() {
            return DoctorCheck(
                "clock", .ok,
                "the system clock is synchronised (the kernel's NTP status); days are counted in \(TimeZone.current.identifier)"
            )
        }
        if status?.gps.clock == .gps {
            return DoctorCheck(
                "clock", .warning, "the system clock is not synchronised; runs take their times from GPS",
                action: "let chrony take time from gpsd, or join a network with NTP once (`timedatectl`)")
        }
        return DoctorCheck(
            "clock", .problem,
            "the system clock is not synchronised and there is no GPS time: runs may get wrong dates",
            action:
                "join a network with NTP (`timedatectl` shows it), or get a GPS fix and let chrony take time from gpsd (hw/README.md)"
        )
    }

    // MARK: Steps and storage

    func pedometer() -> DoctorCheck {
        let kinds = configuration.pedometer.sources
        let wantsIIO = kinds.contains(.stepCounter) || kinds.contains(.accelerometer)
        guard wantsIIO else {
            return DoctorCheck(
                "pedometer", .ok,
                kinds.contains(.footpod)
                    ? "steps come from the footpod's cadence" : "not used (pedometer.sources is empty)")
        }
        let sysfs = configuration.pedometer.sysfsRoot
        let counters = IIODevice.find(sysfs: sysfs, having: "in_steps_input")
        if kinds.contains(.stepCounter), let device = counters.first {
            return DoctorCheck(
                "pedometer", .ok, "\(device.model ?? "an IIO device") (\(device.name)) counts steps in hardware")
        }
        let accelerometers = IIODevice.find(sysfs: sysfs, having: "in_accel_x_raw")
        if kinds.contains(.accelerometer), let device = accelerometers.first {
            return DoctorCheck(
                "pedometer", .ok, "steps from the accelerometer \(device.model ?? "IIO") (\(device.name))")
        }
        let fallback = kinds.contains(.footpod)
        return DoctorCheck(
            "pedometer", fallback ? .warning : .problem,
            "no IIO accelerometer or step counter under \(sysfs)/bus/iio/devices"
                + (fallback ? "; steps come from the footpod" : ""),
            action: "enable I2C and the IMU's overlay (hw/README.md), then `ls /sys/bus/iio/devices`")
    }

    func space() -> DoctorCheck {
        // The journal's folder, or the nearest one above it that exists (before the first start).
        var directory = (configuration.storage.databasePath as NSString).deletingLastPathComponent
        if directory.isEmpty { directory = "." }
        while !FileManager.default.fileExists(atPath: directory), directory != "/", !directory.isEmpty {
            directory = (directory as NSString).deletingLastPathComponent
        }
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else {
            return DoctorCheck(
                "storage.space", .problem, "cannot look at \(directory): \(String(cString: strerror(errno)))",
                action: "create it, or set storage.database")
        }
        let free = Double(info.f_bavail) * Double(info.f_frsize)
        let text = free >= 1e9 ? String(format: "%.1f GB", free / 1e9) : String(format: "%.0f MB", free / 1e6)
        // An hour of recording is about 1 MB of journal (BENCHMARKS.md); the margin is for SQLite's
        // write-ahead log and the system.
        if free < 100e6 {
            return DoctorCheck(
                "storage.space", .problem, "only \(text) free on \(directory): recording may fail",
                action: "free space: `handoff sync` then storage.prune_raw_after_days, or a bigger card")
        }
        if free < 500e6 {
            return DoctorCheck(
                "storage.space", .warning, "\(text) free on \(directory)",
                action: "free some space before long runs")
        }
        return DoctorCheck("storage.space", .ok, "\(text) free on \(directory)")
    }

    func databaseIntegrity() async -> DoctorCheck {
        guard let database else {
            let path = configuration.storage.databasePath
            if !FileManager.default.fileExists(atPath: path) {
                return DoctorCheck(
                    "storage.database", .warning, "there is no journal at \(path) yet",
                    action: "start handoffd once (it creates it), or check storage.database")
            }
            return DoctorCheck(
                "storage.database", .problem, "the journal \(path) cannot be opened (a damaged file, or no permission)",
                action:
                    "check its owner (the handoff user) and `journalctl -u handoffd`; copy it somewhere safe before anything else"
            )
        }
        do {
            let problems = try database.quickCheck()
            guard problems.isEmpty else {
                return DoctorCheck(
                    "storage.database", .problem,
                    "the journal is damaged: \(problems.prefix(3).joined(separator: "; "))",
                    action:
                        "stop handoffd, copy \(configuration.storage.databasePath) somewhere safe, and export what reads (`handoff export`); see docs/journal.md"
                )
            }
            let totals = try database.outboxTotals()
            let waiting = totals.waiting > 0 ? "; \(Format.count(totals.waiting, "run")) waiting to sync" : ""
            return DoctorCheck("storage.database", .ok, "the journal passes SQLite's quick_check\(waiting)")
        } catch {
            return DoctorCheck(
                "storage.database", .problem, "cannot check the journal: \(error)",
                action: "see handoffd's log (`journalctl -u handoffd`)")
        }
    }
}
