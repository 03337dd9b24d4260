import HandoffModel
import PackService
import TestSupport
import Testing

@Suite("handoff.toml")
struct ConfigurationTests {
    @Test("Every documented key is read")
    func readsKeys() throws {
        var c = PackConfiguration()
        try c.apply(
            toml: """
                [storage]
                database = "/data/handoff.sqlite"
                [control]
                socket = "/tmp/h.sock"
                [recording]
                auto_lap_m = 1609.344
                stale_after_s = 5
                moving_speed_mps = 0.8
                sport = "bike"
                wheel_circumference_mm = 2096
                [gps]
                stationary_speed_mps = 0.4
                jitter_radius_m = 4
                jitter_radius_per_hdop_m = 2.5
                max_fix_gap_s = 8
                max_speed_mps = 10
                source = "serial"
                gpsd = "[::1]:2948"
                device = "/dev/ttyUSB0"
                baud = 38400
                [pedometer]
                sources = ["accelerometer", "footpod"]
                sysfs = "/tmp/sys"
                dev = "/tmp/dev"
                accelerometer_rate_hz = 100
                [replay]
                file = "/tmp/run.jsonl"
                speed = "max"
                live = true
                sensors = ["hr0", "pod0"]
                [capture]
                file = "/tmp/capture.jsonl"
                [log]
                level = "debug"
                """, path: "test.toml")
        #expect(c.storage.databasePath == "/data/handoff.sqlite")
        #expect(c.control.socketPath == "/tmp/h.sock")
        #expect(c.recorder.autoLapMeters == 1609.344)
        #expect(c.recorder.staleAfterNanoseconds == 5_000_000_000)
        #expect(c.recorder.movingSpeed == 0.8)
        #expect(c.recording.sport == .bike)
        #expect(c.recorder.bike.wheelCircumferenceMeters == 2.096)
        #expect(c.recorder.gps.stationarySpeed == 0.4)
        #expect(c.recorder.gps.minimumJitterRadius == 4)
        #expect(c.recorder.gps.jitterRadiusPerHDOP == 2.5)
        #expect(c.recorder.gps.maximumFixGapNanoseconds == 8_000_000_000)
        #expect(c.recorder.gps.maximumSpeed == 10)
        #expect(c.gps.source == .serial)
        #expect(c.gps.gpsdHost == "::1" && c.gps.gpsdPort == 2948)
        #expect(c.gps.device == "/dev/ttyUSB0" && c.gps.baudRate == 38400)
        #expect(c.pedometer.sources == [.accelerometer, .footpod])
        #expect(c.pedometer.sysfsRoot == "/tmp/sys" && c.pedometer.deviceRoot == "/tmp/dev")
        #expect(c.pedometer.accelerometerRateHz == 100)
        #expect(c.recorder.stepsFromFootpodCadence)
        #expect(c.replay.file == "/tmp/run.jsonl")
        #expect(c.replay.speed == .maximum)
        #expect(c.replay.live && c.replay.sensors == ["hr0", "pod0"])
        #expect(c.capture.file == "/tmp/capture.jsonl")
        #expect(c.log.level == .debug)
    }

    @Test("[gpio]: the button and LED lines, active-low, press timing; -1 leaves a line out")
    func gpio() throws {
        var c = PackConfiguration()
        #expect(!c.gpio.enabled && c.gpio.button == 17 && c.gpio.led == 27 && c.gpio.chip == "/dev/gpiochip0")
        try c.apply(
            toml: """
                [gpio]
                enabled = true
                chip = "/dev/gpiochip4"
                button = 5
                led = -1
                button_active_low = false
                long_press_ms = 2000
                debounce_ms = 10
                """, path: "t")
        #expect(c.gpio.enabled && c.gpio.chip == "/dev/gpiochip4" && c.gpio.button == 5 && c.gpio.led == nil)
        #expect(!c.gpio.buttonActiveLow && c.gpio.longPressSeconds == 2 && c.gpio.debounceSeconds == 0.01)
    }

    @Test("auto_lap_m = 0 turns auto-lap off; integers are accepted where numbers are")
    func autoLapOff() throws {
        var c = PackConfiguration()
        try c.apply(toml: "[recording]\nauto_lap_m = 0\n[replay]\nspeed = 60", path: "t")
        #expect(c.recorder.autoLapMeters == nil)
        #expect(c.replay.speed == .factor(60))
    }

    @Test(
        "Mistakes are refused with the key and the file",
        arguments: [
            ("[recording]\nauto_lap = 1000", "unknown key recording.auto_lap"),
            ("[recordings]\nauto_lap_m = 1000", "unknown section [recordings]"),
            ("[recording]\nstale_after_s = 0.1", "recording.stale_after_s is 0.1; it must be between 1.0 and 60.0"),
            ("[recording]\nsport = \"swim\"", "recording.sport must be one of run, bike, walk"),
            (
                "[recording]\nwheel_circumference_mm = 500",
                "recording.wheel_circumference_mm must be 0 (learn it from GPS) or from 1000 to 3000"
            ),
            ("[recording]\nauto_lap_m = \"1 km\"", "recording.auto_lap_m must be a number"),
            ("[log]\nlevel = \"loud\"", "log.level must be one of"),
            ("[replay]\nspeed = -2", "replay.speed must be a positive number or \"max\""),
            ("recording = 3", "[recording] must be a table"),
            ("[recording\nauto_lap_m = 1", "is not valid TOML at line 1"),
            ("[gps]\nsource = \"nmea\"", "gps.source must be one of gpsd, serial, none"),
            ("[gps]\ngpsd = \"localhost\"", "gps.gpsd must be host:port, such as 127.0.0.1:2947"),
            ("[gps]\ngpsd = \"localhost:0\"", "gps.gpsd must be host:port"),
            ("[gps]\nbaud = 12345", "gps.baud must be one of 4800, 9600, 19200, 38400"),
            ("[gps]\nbaud = 1200", "gps.baud is 1200.0; it must be between 4800.0 and 460800.0"),
            ("[pedometer]\nsources = [\"fitbit\"]", "pedometer.sources lists \"fitbit\"; known: step-counter"),
            ("[pedometer]\nsources = \"footpod\"", "pedometer.sources must be a list of strings"),
            ("[pedometer]\naccelerometer_rate_hz = 1000", "pedometer.accelerometer_rate_hz is 1000.0"),
            ("[replay]\nlive = \"yes\"", "replay.live must be true or false"),
            ("[gpio]\nbutton = 17\nled = 17", "gpio.led must be another line than gpio.button"),
            ("[gpio]\nchip = \"gpiochip0\"", "gpio.chip must be a device path such as /dev/gpiochip0"),
            ("[gpio]\nlong_press_ms = 100", "gpio.long_press_ms is 100.0; it must be between 300.0 and 10000.0"),
            ("[gpio]\nenable = true", "unknown key gpio.enable"),
            ("[sync]\ninterface = \"wlan0/x\"", "sync.interface must name a network interface such as wlan0"),
            ("[sync]\ndevice_name = \"\"", "sync.device_name must be 1 to 64 characters"),
            ("[sync]\ngroup = 1.5", "sync.group must be a group's id, a whole number"),
            ("[sync]\nbaton_timeout_s = 0", "sync.baton_timeout_s is 0.0; it must be between 1.0 and 60.0"),
            ("[live]\ninterval_s = 2", "live.interval_s is 2.0; it must be between 5.0 and 300.0"),
            ("[live]\ninterval_s = 7.5", "live.interval_s must be whole seconds, 5 to 300"),
            ("[live]\nenabled = \"yes\"", "live.enabled must be"),
            ("[live]\nevery_s = 15", "unknown key live.every_s (known: enabled, interval_s)"),
            ("[sync]\nhome_ssids = [\"a\", 1]", "sync.home_ssids must be a list of strings"),
            ("[storage]\nprune_raw_after_days = -1", "storage.prune_raw_after_days is -1.0; it must be between"),
            ("[privacy]\nzones = 3", "privacy.zones must be a list of tables"),
            ("[privacy]\nzones = [1]", "privacy.zones must be a list of tables"),
            ("[control]\nsocket = 1", "control.socket must be a string"),
            ("[capture]\npath = \"x\"", "unknown key capture.path (known: file)"),
            (
                "[bluetooth]\nsupervision_timeout_ms = 50",
                "bluetooth.supervision_timeout_ms must be 0 (the kernel's) or"
            ),
            (
                "[recording]\nauto_lap = 1",
                "unknown key recording.auto_lap (known: auto_lap_m, discard_shorter_than_s, moving_speed_mps, sport, stale_after_s, system_clock, wheel_circumference_mm)"
            ),
            (
                "[gpss]\nsource = \"none\"",
                "unknown section [gpss] (known: bluetooth, capture, control, display, gpio, gps, live, log, pedometer, privacy, recording, replay, storage, sync)"
            ),
            (
                "[recording]\nsystem_clock = \"ntp\"",
                "recording.system_clock must be one of kernel, synchronized, unsynchronized"
            ),
        ])
    func mistakes(toml: String, message: String) {
        var c = PackConfiguration()
        do {
            try c.apply(toml: toml, path: "/etc/handoff/handoff.toml")
            Issue.record("accepted: \(toml)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
            #expect(error.description.hasPrefix("/etc/handoff/handoff.toml"))
        }
    }

    @Test("The example configuration in docs/ is valid and states the defaults")
    func documentedExample() throws {
        var c = PackConfiguration()
        let defaults = PackConfiguration()
        try c.apply(tomlAt: TestSupportPaths.repositoryRoot + "/docs/handoff.example.toml")
        #expect(c.recorder == defaults.recorder)
        #expect(c.replay.speed == defaults.replay.speed)
        #expect(c.log.level == defaults.log.level)
        #expect(c.gps.source == defaults.gps.source)
        #expect(c.gps.gpsdHost == defaults.gps.gpsdHost && c.gps.gpsdPort == defaults.gps.gpsdPort)
        #expect(c.gps.device == defaults.gps.device && c.gps.baudRate == defaults.gps.baudRate)
        #expect(c.pedometer.sources == defaults.pedometer.sources)
        #expect(
            c.pedometer.sysfsRoot == defaults.pedometer.sysfsRoot
                && c.pedometer.deviceRoot == defaults.pedometer.deviceRoot)
        #expect(c.pedometer.accelerometerRateHz == defaults.pedometer.accelerometerRateHz)
        #expect(c.replay.live == defaults.replay.live && c.replay.sensors == defaults.replay.sensors)
        #expect(c.bluetooth.enabled == defaults.bluetooth.enabled && c.bluetooth.adapter == defaults.bluetooth.adapter)
        #expect(c.bluetooth.connectTimeout == defaults.bluetooth.connectTimeout)
        #expect(c.gpio.enabled == defaults.gpio.enabled && c.gpio.chip == defaults.gpio.chip)
        #expect(c.gpio.button == defaults.gpio.button && c.gpio.led == defaults.gpio.led)
        #expect(
            c.gpio.buttonActiveLow == defaults.gpio.buttonActiveLow && c.gpio.ledActiveLow == defaults.gpio.ledActiveLow
        )
        #expect(c.gpio.longPressSeconds == defaults.gpio.longPressSeconds)
        #expect(c.gpio.debounceSeconds == defaults.gpio.debounceSeconds)
        #expect(c.bluetooth.powerOn == defaults.bluetooth.powerOn)
        #expect(c.bluetooth.maxIntervalMs == defaults.bluetooth.maxIntervalMs)
        #expect(c.bluetooth.supervisionTimeoutMs == defaults.bluetooth.supervisionTimeoutMs)
        #expect(c.sync.enabled == defaults.sync.enabled && c.sync.home.ssids == defaults.sync.home.ssids)
        #expect(
            c.sync.home.network == defaults.sync.home.network && c.sync.home.interface == defaults.sync.home.interface)
        #expect(
            c.sync.home.wpaDirectory == defaults.sync.home.wpaDirectory
                && c.sync.home.uploadAway == defaults.sync.home.uploadAway)
        #expect(c.sync.retryMinimumSeconds == defaults.sync.retryMinimumSeconds)
        #expect(c.sync.retryMaximumSeconds == defaults.sync.retryMaximumSeconds)
        #expect(
            c.sync.timeoutSeconds == defaults.sync.timeoutSeconds && c.sync.privacy.zones == defaults.sync.privacy.zones
        )
        #expect(
            c.storage.pruneRawAfterDays == defaults.storage.pruneRawAfterDays
                && c.replay.startNow == defaults.replay.startNow)
        #expect(c.display.units == defaults.display.units)
        #expect(c.sync.live.settings == defaults.sync.live.settings)
    }

    @Test("[live] is read: on for every run, every 30 s")
    func live() throws {
        var c = PackConfiguration()
        #expect(!c.sync.live.settings.enabled && c.sync.live.settings.intervalSeconds == 15)
        try c.apply(toml: "[live]\nenabled = true\ninterval_s = 30", path: "handoff.toml")
        #expect(c.sync.live.settings.enabled && c.sync.live.settings.intervalSeconds == 30)
    }

    @Test("Sync and privacy settings are read, and mistakes name the key")
    func syncAndPrivacy() throws {
        var c = PackConfiguration()
        try c.apply(
            toml: """
                [sync]
                home_ssids = ["HomeNet", "Café"]
                network = "iw"
                retry_min_s = 5
                [privacy]
                zones = [{ name = "home", lat = 48.2, lon = 16.37, radius_m = 250 }, { lat = 1, lon = 2, radius_m = 50 }]
                """, path: "t")
        #expect(
            c.sync.home.ssids == ["HomeNet", "Café"] && c.sync.home.network == .iw && c.sync.retryMinimumSeconds == 5)
        #expect(c.sync.privacy.zones.map(\.name) == ["home", "zone 2"] && c.sync.privacy.zones[0].radiusMeters == 250)
        #expect(c.syncWorkerConfiguration.policy.ssids == ["HomeNet", "Café"])
        func refusal(_ toml: String) -> String {
            var c = PackConfiguration()
            do { try c.apply(toml: toml, path: "handoff.toml") } catch { return error.description }
            return "accepted"
        }
        #expect(refusal("[sync]\nnetwork = \"dbus\"").contains("sync.network must be one of auto, wpa_supplicant"))
        #expect(
            refusal("[privacy]\nzones = [{ lat = 91, lon = 0, radius_m = 10 }]").contains("privacy.zones[0].lat is 91"))
        #expect(
            refusal("[privacy]\nzones = [{ lat = 1, lon = 0 }]").contains("privacy.zones[0].radius_m must be a number"))
        #expect(
            refusal("[privacy]\nzones = [{ lat = 1, lon = 0, radius_m = 5, radius = 3 }]").contains(
                "unknown key radius"))
        #expect(refusal("[sync]\nretry_min_s = 60\nretry_max_s = 10").contains("retry_max_s must not be less"))
    }

    @Test("Without \"footpod\" in pedometer.sources the footpod's cadence counts no steps")
    func footpodStepsOptional() throws {
        var c = PackConfiguration()
        try c.apply(toml: "[pedometer]\nsources = [\"step-counter\"]", path: "t")
        #expect(!c.recorder.stepsFromFootpodCadence)
    }
}

enum TestSupportPaths {
    static var repositoryRoot: String { Fixtures.repositoryRoot.path }
}

@Suite("handoff.toml: [bluetooth]")
struct BluetoothConfigurationTests {
    @Test("The bluetooth keys are read; 0 leaves the kernel's connection defaults")
    func readsKeys() throws {
        var c = PackConfiguration()
        #expect(c.bluetooth.enabled && c.bluetooth.adapter == nil && c.bluetooth.maxIntervalMs == 1000)
        try c.apply(
            toml: """
                [bluetooth]
                enabled = false
                adapter = "hci1"
                connect_timeout_s = 30
                power_on = false
                max_connection_interval_ms = 0
                supervision_timeout_ms = 6000
                """, path: "t.toml")
        #expect(!c.bluetooth.enabled)
        #expect(c.bluetooth.adapter == "hci1")
        #expect(c.bluetooth.connectTimeout == 30)
        #expect(!c.bluetooth.powerOn)
        #expect(c.bluetooth.maxIntervalMs == nil)
        #expect(c.bluetooth.supervisionTimeoutMs == 6000)
    }

    @Test(
        "Bad bluetooth values are refused with the key named",
        arguments: [
            ("adapter = \"usb0\"", "bluetooth.adapter"),
            ("connect_timeout_s = 1", "bluetooth.connect_timeout_s"),
            ("max_connection_interval_ms = 20", "bluetooth.max_connection_interval_ms"),
            ("max_connection_interval_ms = 1000\nsupervision_timeout_ms = 1500", "bluetooth.supervision_timeout_ms"),
            ("pairing = true", "bluetooth.pairing"),
        ])
    func refusesBadValues(line: String, key: String) {
        var c = PackConfiguration()
        do {
            try c.apply(toml: "[bluetooth]\n" + line, path: "t.toml")
            Issue.record("\(line) was accepted")
        } catch {
            #expect(error.description.contains(key), "\(error.description)")
        }
    }
}
