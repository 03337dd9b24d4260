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
