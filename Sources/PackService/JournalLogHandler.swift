import CPackSystem
import Foundation
import Logging

/// Logs to systemd's journal with its native protocol (systemd.journal-fields(7), the "native
/// protocol" of systemd-journald.service(8)): one datagram per message to
/// `/run/systemd/journal/socket`, each field `KEY=value` on a line, or `KEY\n<le64 length>value\n`
/// when the value has a newline.
///
/// The logger's metadata become fields of their own, so `journalctl -u handoffd SENSOR_ID=hr0`
/// finds a sensor's story: `sensor.id` → `SENSOR_ID`, `session.id` → `SESSION_ID` (STYLE.md's
/// keys, upper-cased, dots to underscores). PRIORITY follows syslog's levels; the message also
/// carries the metadata as text, as on a terminal.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String
    let identifier: String
    let socket: String

    public static let defaultSocket = "/run/systemd/journal/socket"

    public init(label: String, identifier: String, socket: String = JournalLogHandler.defaultSocket) {
        self.label = label
        self.identifier = identifier
        self.socket = socket
    }

    /// Whether standard error is the journal (systemd sets `$JOURNAL_STREAM` to its device and
    /// inode), which is when handoffd should log natively.
    public static func standardErrorIsJournal(
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        -> Bool
    {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return stream == "\(info.st_dev):\(info.st_ino)"
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// syslog(3)'s priorities.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A journal field name for a metadata key: upper case, letters, digits and underscores, not
    /// starting with an underscore or digit (those are the journal's own), at most 64 characters.
    static func fieldName(_ key: String) -> String {
        var name = String(
            key.uppercased().unicodeScalars.map { scalar -> Character in
                ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) ? Character(scalar) : "_"
            })
        while let first = name.first, first == "_" || first.isNumber { name.removeFirst() }
        if name.isEmpty { name = "FIELD" }
        return String(name.prefix(64))
    }

    static func append(_ key: String, _ value: String, to datagram: inout [UInt8]) {
        datagram += Array(key.utf8)
        if value.contains("\n") {
            let bytes = Array(value.utf8)
            datagram.append(0x0A)
            withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { datagram += $0 }
            datagram += bytes
        } else {
            datagram.append(UInt8(ascii: "="))
            datagram += Array(value.utf8)
        }
        datagram.append(0x0A)
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let text =
            all.isEmpty
            ? "\(event.message)"
            : "\(event.message) "
                + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        var datagram: [UInt8] = []
        Self.append("MESSAGE", text, to: &datagram)
        Self.append("PRIORITY", "\(Self.priority(event.level))", to: &datagram)
        Self.append("SYSLOG_IDENTIFIER", identifier, to: &datagram)
        Self.append("CODE_FILE", event.file, to: &datagram)
        Self.append("CODE_LINE", "\(event.line)", to: &datagram)
        Self.append("CODE_FUNC", event.function, to: &datagram)
        Self.append("LOGGER", label, to: &datagram)
        var seen: Set<String> = [
            "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "LOGGER",
        ]
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            let name = Self.fieldName(key)
            guard seen.insert(name).inserted else { continue }
            Self.append(name, "\(value)", to: &datagram)
        }
        let sent = datagram.withUnsafeBytes { pack_unix_datagram_send(socket, $0.baseAddress, $0.count) }
        if sent != 0 {
            // The journal is gone or the message too big: standard error still reaches it.
            FileHandle.standardError.write(Data("<\(Self.priority(event.level))>\(text)\n".utf8))
        }
    }
}
