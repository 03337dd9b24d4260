import PackService
import Testing

@Suite("handoff.toml by section")
struct ConfigurationSectionTests {
    @Test("Each section validates itself, naming the key")
    func sectionsValidate() {
        func problem(_ validate: () throws -> Void) -> String {
            do { try validate() } catch { return "\(error)" }
            return "valid"
        }
        var gpio = GPIOSection()
        #expect(problem(gpio.validate) == "valid")
        gpio.led = gpio.button
        #expect(problem(gpio.validate).contains("gpio.led must be another line than gpio.button"))
        var bluetooth = BluetoothSection()
        #expect(problem(bluetooth.validate) == "valid")
        bluetooth.maxIntervalMs = 20
        #expect(problem(bluetooth.validate).contains("bluetooth.max_connection_interval_ms must be 0"))
        bluetooth.maxIntervalMs = 2000
        #expect(problem(bluetooth.validate).contains("bluetooth.supervision_timeout_ms must be more than twice"))
        var sync = SyncSection()
        #expect(problem(sync.validate) == "valid")
        sync.retryMaximumSeconds = sync.retryMinimumSeconds - 1
        #expect(problem(sync.validate).contains("sync.retry_max_s must not be less than retry_min_s"))
    }

    @Test(
        "More mistakes are refused with the key and the file",
        arguments: [
            ("[sync]\ninterface = \"wlan0/x\"", "sync.interface must name a network interface such as wlan0"),
            ("[sync]\ndevice_name = \"\"", "sync.device_name must be 1 to 64 characters"),
            ("[sync]\ngroup = 1.5", "sync.group must be a group's id, a whole number"),
            ("[sync]\nbaton_timeout_s = 0", "sync.baton_timeout_s is 0.0; it must be between 1.0 and 60.0"),
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
                "unknown key recording.auto_lap (known: auto_lap_m, discard_shorter_than_s, moving_speed_mps, stale_after_s, system_clock)"
            ),
            (
                "[gpss]\nsource = \"none\"",
                "unknown section [gpss] (known: bluetooth, capture, control, display, gpio, gps, log, pedometer, privacy, recording, replay, storage, sync)"
            ),
        ])
    func mistakes(toml: String, message: String) {
        var c = PackConfiguration()
        do {
            try c.apply(toml: toml, path: "/etc/handoff/handoff.toml")
            Issue.record("accepted: \(toml)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
            #expect(error.description.hasPrefix("/etc/handoff/handoff.toml :"))
        }
    }

    @Test("A file sets only the keys it has, and what must hold between keys holds with those already set")
    func appliedOverCurrent() throws {
        var c = PackConfiguration()
        try c.apply(toml: "[gpio]\nbutton = 5", path: "a.toml")
        try c.apply(toml: "[gpio]\nled = 6\n[display]\nunits = \"mi\"", path: "b.toml")
        #expect(c.gpio.button == 5 && c.gpio.led == 6 && c.display.units == .miles)
        try c.apply(toml: "[bluetooth]\nsupervision_timeout_ms = 0", path: "c.toml")
        try c.apply(toml: "[bluetooth]\nmax_connection_interval_ms = 2000", path: "d.toml")
        #expect(c.bluetooth.maxIntervalMs == 2000 && c.bluetooth.supervisionTimeoutMs == nil)
        #expect(throws: ConfigurationError.self) {
            try c.apply(toml: "[bluetooth]\nsupervision_timeout_ms = 3000", path: "e.toml")
        }
        var d = PackConfiguration()
        d.gpio.led = d.gpio.button
        do {
            try d.apply(toml: "", path: "empty.toml")
            Issue.record("accepted the same line twice")
        } catch {
            #expect(error.description == "empty.toml : gpio.led must be another line than gpio.button")
        }
    }

    @Test("The recorder's settings come from [recording], [gps] and pedometer.sources")
    func recorder() throws {
        var c = PackConfiguration()
        try c.apply(
            toml:
                "[recording]\nmoving_speed_mps = 1\n[gps]\nmax_speed_mps = 9\n[pedometer]\nsources = [\"accelerometer\"]",
            path: "t")
        #expect(c.recorder.movingSpeed == 1 && c.recorder.gps.maximumSpeed == 9)
        #expect(!c.recorder.stepsFromFootpodCadence)
        #expect(c.recorder.autoLapMeters == PackConfiguration().recorder.autoLapMeters)
    }
}
