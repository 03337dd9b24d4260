import HandoffModel
import PackSystem
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a capture file as a stream: its header, then one event at a time, in bounded memory
/// whatever the file's size.
public final class CaptureFileReader {
    public let path: String
    public let header: CaptureHeader
    private let lines: LineReader
    /// Lines that could not be read (reported, skipped).
    public private(set) var skipped: [CaptureLineError] = []

    /// Opens `path` and reads its header. A file that is not a capture fails here, with the
    /// reason; bad lines after the header are skipped and kept in `skipped`.
    public init(path: String) throws {
        self.path = path
        lines = try LineReader(path: path)
        var headerLine: (number: Int, text: String)?
        while let line = try lines.next() {
            let text = String(decoding: line.bytes, as: UTF8.self)
            if !text.allSatisfy(\.isWhitespace) {
                headerLine = (line.number, text)
                break
            }
        }
        guard let headerLine else { throw CaptureFileError.empty(path: path) }
        do { header = try CaptureCodec.decodeHeader(headerLine.text) } catch {
            throw CaptureFileError.badHeader(path: path, CaptureLineError(line: headerLine.number, error: error))
        }
    }

    /// The next event, or `nil` at the end of the file.
    public func next() throws -> CaptureEvent? {
        while let line = try lines.next() {
            if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do { return try CaptureCodec.decodeEvent(line.bytes) } catch {
                if skipped.count < 1000 { skipped.append(CaptureLineError(line: line.number, error: error)) }
            }
        }
        return nil
    }

    /// The capture's size in bytes (for progress).
    public var size: Int { lines.size }
    /// Bytes read so far.
    public var position: Int { lines.position }
}

public enum CaptureFileError: Error, CustomStringConvertible {
    case empty(path: String)
    case badHeader(path: String, CaptureLineError)

    public var description: String {
        switch self {
        case .empty(let path): "\(path) is empty: it is not a Handoff capture"
        case .badHeader(let path, let error): "\(path) is not a Handoff capture (\(error))"
        }
    }
}

/// Splits a file into lines with one `read(2)` per 64 KiB.
final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var lineNumber = 0
    let size: Int
    private(set) var position = 0
    /// A longer line is an error, not a reason to exhaust memory.
    static let maximumLine = 1 << 20

    init(path: String) throws {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(call: "open", path: path, errno: errno) }
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
    }

    deinit { close(fd) }

    /// The next line's bytes, without its line ending.
    func next() throws -> (number: Int, bytes: [UInt8])? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let bytes = Array(buffer[start..<end])
                position += newline + 1 - start
                start = newline + 1
                lineNumber += 1
                return (lineNumber, bytes)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let bytes = Array(buffer[start...])
                position += buffer.count - start
                start = buffer.count
                lineNumber += 1
                return (lineNumber, bytes)
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            guard buffer.count <= Self.maximumLine else {
                throw FileError(call: "read", path: "line \(lineNumber + 1)", errno: EMSGSIZE)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let (count, code) = retryingEINTR { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) } }
            if count < 0 { throw FileError(call: "read", path: "capture", errno: code) }
            if count == 0 { atEnd = true } else { buffer.append(contentsOf: chunk[..<count]) }
        }
    }
}

/// A failed file operation, naming the call, the file and errno's words.
public struct FileError: Error, CustomStringConvertible {
    public var call: String
    public var path: String
    public var errno: Int32

    public var description: String { "\(call) \(path): \(String(cString: strerror(errno)))" }
}

/// Writes a capture while recording live (`handoffd --capture FILE`). Each line goes to the
/// kernel as it is written, so a crash loses none of what was captured before it.
public final class CaptureFileWriter: @unchecked Sendable {
    private let fd: Int32
    public let path: String

    public init(path: String, header: CaptureHeader) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw FileError(call: "open", path: path, errno: errno) }
        try writeLine(CaptureCodec.encode(header))
    }

    deinit { close(fd) }

    public func write(_ event: CaptureEvent) throws {
        try writeLine(CaptureCodec.encode(event))
    }

    private func writeLine(_ line: String) throws {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let (written, code) = retryingEINTR {
                bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            }
            if written < 0 { throw FileError(call: "write", path: path, errno: code) }
            offset += written
        }
    }
}
