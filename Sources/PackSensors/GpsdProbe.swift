import Foundation
import HandoffModel
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// A one-off look at gpsd for `handoff doctor`: is it there, does it have a receiver, is there a
/// fix. It connects, asks for reports (`?WATCH`) and reads them until a TPV with a 2D or 3D fix
/// arrives or `timeout` passes.
public struct GpsdProbe: Sendable {
    public struct Result: Sendable, Hashable {
        /// Why gpsd could not be asked, when it could not.
        public var unreachable: String?
        /// The receivers gpsd has open (DEVICES and DEVICE reports).
        public var devices: [String] = []
        /// The best TPV mode seen: 0 unknown, 1 no fix, 2 2D, 3 3D.
        public var mode = 0
        /// Satellites used, from the latest SKY report.
        public var satellitesUsed: Int?
        public var satellitesSeen: Int?
        /// The fix's time, as gpsd states it.
        public var time: String?
    }

    public let host: String
    public let port: UInt16
    /// Times the look.
    public let clock: PackClock

    public init(host: String, port: UInt16, clock: PackClock) {
        self.host = host
        self.port = port
        self.clock = clock
    }

    /// Blocks for up to `timeout` seconds (plus the connection's 2 s).
    public func run(timeout: Double) -> Result {
        var result = Result()
        let fd: Int32
        do {
            fd = try TCPConnection.connect(host: host, port: port, timeout: 2)
            try TCPConnection.sendAll(fd, Array(GpsdSource.watchCommand.utf8))
        } catch {
            result.unreachable = "\(error)"
            return result
        }
        defer { close(fd) }
        let start = clock.monotonic()
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while clock.monotonic().seconds(since: start) < timeout, result.mode < 2 {
            guard waitReadable(fd, timeout: 0.25) else { continue }
            let (n, _) = retryingEINTR { chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
            if n <= 0 {
                if result.mode == 0, result.devices.isEmpty { result.unreachable = "gpsd closed the connection" }
                break
            }
            buffer.append(contentsOf: chunk[..<n])
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                take(line, into: &result)
            }
        }
        return result
    }

    private func take(_ line: [UInt8], into result: inout Result) {
        guard let json = try? JSONParser.parse(line).objectValue else { return }
        // A whole number, as gpsd writes counts and modes.
        func integer(_ key: String, in object: JSONObject) -> Int? {
            object[key]?.doubleValue.flatMap { Int(exactly: $0) }
        }
        switch json["class"]?.stringValue {
        case "DEVICES":
            for device in json["devices"]?.arrayValue ?? [] {
                if let path = device.objectValue?["path"]?.stringValue, !result.devices.contains(path) {
                    result.devices.append(path)
                }
            }
        case "DEVICE":
            if let path = json["path"]?.stringValue, !result.devices.contains(path) { result.devices.append(path) }
        case "TPV":
            let mode = integer("mode", in: json) ?? 0
            if mode >= result.mode {
                result.mode = mode
                result.time = json["time"]?.stringValue
            }
        case "SKY":
            result.satellitesUsed = integer("uSat", in: json) ?? result.satellitesUsed
            result.satellitesSeen = integer("nSat", in: json) ?? result.satellitesSeen
        default: break
        }
    }
}
