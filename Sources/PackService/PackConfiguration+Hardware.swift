// The sections of handoff.toml for the pack's radio and its button and LED.

/// `[bluetooth]`: the paired sensors' adapter and connections.
public struct BluetoothSection: ConfigurationSection {
    static let name = "bluetooth"
    /// Paired Bluetooth sensors are followed (live only).
    public var enabled = true
    /// The adapter (`hci0`); `nil` for the first one that is powered on.
    public var adapter: String?
    /// How long one connection attempt waits for a sensor to advertise, in seconds.
    public var connectTimeout = 20.0
    /// Power the adapter and LE on at start when nothing else has (no bluetoothd on the pack).
    public var powerOn = true
    /// The LE connection defaults handoffd sets at start (`nil`: leave the kernel's): the largest
    /// connection interval a sensor may ask for, in ms (the kernel refuses requests above the
    /// interval the link was created with, 50 ms by default, and straps then drop the link), and
    /// the supervision timeout, in ms (the kernel's 420 ms is short for a Pi sharing its radio with Wi-Fi).
    public var maxIntervalMs: Double? = 1000
    public var supervisionTimeoutMs: Double? = 4000

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.bool("enabled") { enabled = v }
        if let v = try s.string("adapter") {
            guard v.hasPrefix("hci"), Int(v.dropFirst(3)) != nil else {
                throw s.error("adapter", "must name an adapter such as hci0")
            }
            adapter = v
        }
        if let v = try s.number("connect_timeout_s", in: 2...60) { connectTimeout = v }
        if let v = try s.bool("power_on") { powerOn = v }
        if let v = try s.number("max_connection_interval_ms", in: 0...4000) { maxIntervalMs = v == 0 ? nil : v }
        if let v = try s.number("supervision_timeout_ms", in: 0...32_000) { supervisionTimeoutMs = v == 0 ? nil : v }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {
        if let interval = maxIntervalMs, interval < 30 {
            throw .key("bluetooth.max_connection_interval_ms", "must be 0 (the kernel's) or at least 30")
        }
        if let timeout = supervisionTimeoutMs {
            guard timeout >= 100 else {
                throw .key("bluetooth.supervision_timeout_ms", "must be 0 (the kernel's) or at least 100")
            }
            // Core Vol 6 Part B §4.5.2: the timeout must exceed twice the longest interval.
            if let interval = maxIntervalMs, timeout <= 2 * interval {
                throw .key("bluetooth.supervision_timeout_ms", "must be more than twice max_connection_interval_ms")
            }
        }
    }
}

/// `[gpio]`: the button and LED, a GPIO chip's character device and its lines (BCM numbers on a
/// Raspberry Pi), off unless enabled (hw/README.md has the wiring).
public struct GPIOSection: ConfigurationSection {
    static let name = "gpio"
    public var enabled = false
    public var chip = "/dev/gpiochip0"
    public var button: UInt32? = 17
    public var led: UInt32? = 27
    public var buttonActiveLow = true
    public var ledActiveLow = false
    public var longPressSeconds = 1.5
    public var debounceSeconds = 0.03

    public init() {}

    public init(from decoder: any Decoder) throws {
        self = decoder.currentSection()
        var s = try SectionReader(decoder, section: Self.name)
        if let v = try s.bool("enabled") { enabled = v }
        if let v = try s.string("chip") {
            guard v.hasPrefix("/") else { throw s.error("chip", "must be a device path such as /dev/gpiochip0") }
            chip = v
        }
        if let v = try s.number("button", in: -1...511) { button = v < 0 ? nil : UInt32(v) }
        if let v = try s.number("led", in: -1...511) { led = v < 0 ? nil : UInt32(v) }
        if let v = try s.bool("button_active_low") { buttonActiveLow = v }
        if let v = try s.bool("led_active_low") { ledActiveLow = v }
        if let v = try s.number("long_press_ms", in: 300...10_000) { longPressSeconds = v / 1000 }
        if let v = try s.number("debounce_ms", in: 0...200) { debounceSeconds = v / 1000 }
        try s.finish(self)
    }

    public func validate() throws(ConfigurationError) {
        if let button, button == led {
            throw .key("gpio.led", "must be another line than gpio.button")
        }
    }
}
