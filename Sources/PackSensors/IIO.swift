import HandoffModel
import Logging
import SensorCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// Linux Industrial I/O devices as sysfs shows them (Documentation/ABI/testing/sysfs-bus-iio):
/// `/sys/bus/iio/devices/iio:deviceN/` with one file per channel attribute, and buffered
/// samples on `/dev/iio:deviceN`.
public struct IIODevice: Hashable, Sendable {
    /// `iio:device0`.
    public var name: String
    /// Its sysfs directory.
    public var directory: String
    /// What the driver calls the part (`lsm6dsl`, `bmi160`, …).
    public var model: String?

    /// The IIO devices under `sysfs` (normally `/sys`) that have `attribute` (such as
    /// `in_steps_input` or `in_accel_x_raw`), by name.
    public static func find(sysfs: String, having attribute: String) -> [IIODevice] {
        let base = sysfs + "/bus/iio/devices"
        guard let dir = opendir(base) else { return [] }
        defer { closedir(dir) }
        var found: [IIODevice] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasPrefix("iio:device") else { continue }
            let path = base + "/" + name
            guard access(path + "/" + attribute, F_OK) == 0 else { continue }
            found.append(
                IIODevice(
                    name: name, directory: path,
                    model: SysfsFile.read(path + "/name")?.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return found.sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }

    public func read(_ attribute: String) -> String? {
        SysfsFile.read(directory + "/" + attribute)?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func readNumber(_ attribute: String) -> Double? { read(attribute).flatMap(Double.init) }

    @discardableResult
    public func write(_ attribute: String, _ value: String) -> Bool {
        SysfsFile.write(directory + "/" + attribute, value)
    }
}

/// Small whole-file reads and writes, as sysfs wants them.
enum SysfsFile {
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { return nil }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }

    static func write(_ path: String, _ value: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(value.utf8)
        return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }
}

/// A buffered channel's storage, from `scan_elements/in_<channel>_type`: `le:s16/16>>0` is
/// little-endian, signed, 16 bits of value in 16 bits of storage, shifted right by 0.
public struct IIOScanType: Hashable, Sendable {
    public var bigEndian: Bool
    public var signed: Bool
    public var bits: Int
    public var storageBits: Int
    public var shift: Int
    public var repeatCount: Int

    public init?(_ text: String) {
        // [be|le]:[s|u]bits/storagebits[Xrepeat]>>shift
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = t.firstIndex(of: ":") else { return nil }
        let endian = t[..<colon]
        guard endian == "le" || endian == "be" else { return nil }
        bigEndian = endian == "be"
        var rest = t[t.index(after: colon)...]
        guard let sign = rest.first, sign == "s" || sign == "u" else { return nil }
        signed = sign == "s"
        rest = rest.dropFirst()
        guard let slash = rest.firstIndex(of: "/"), let shiftMark = rest.range(of: ">>") else { return nil }
        guard let bits = Int(rest[..<slash]) else { return nil }
        var storage = rest[rest.index(after: slash)..<shiftMark.lowerBound]
        repeatCount = 1
        if let x = storage.firstIndex(of: "X") {
            guard let r = Int(storage[storage.index(after: x)...]), r >= 1 else { return nil }
            repeatCount = r
            storage = storage[..<x]
        }
        guard let storageBits = Int(storage), let shift = Int(rest[shiftMark.upperBound...]) else { return nil }
        guard [8, 16, 32, 64].contains(storageBits), bits >= 1, bits <= storageBits, shift >= 0,
            shift + bits <= storageBits
        else { return nil }
        self.bits = bits
        self.storageBits = storageBits
        self.shift = shift
    }

    public var bytes: Int { storageBits / 8 }

    /// The channel's value in a record at `offset`.
    public func value(in record: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        var raw: UInt64 = 0
        for i in 0..<bytes {
            let byte = UInt64(record[offset + (bigEndian ? i : bytes - 1 - i)])
            raw = raw << 8 | byte
        }
        raw >>= UInt64(shift)
        let mask: UInt64 = bits == 64 ? .max : (1 << UInt64(bits)) - 1
        raw &= mask
        if signed, bits < 64, raw & (1 << UInt64(bits - 1)) != 0 { return Int64(bitPattern: raw | ~mask) }
        return Int64(bitPattern: raw)
    }
}

/// Where each enabled channel lies in a buffered record: channels in `_index` order, each
/// aligned to its own storage size, the record padded to its largest (the IIO ABI's rule).
public struct IIOScanLayout: Hashable, Sendable {
    public struct Channel: Hashable, Sendable {
        public var name: String
        public var index: Int
        public var type: IIOScanType
        public var offset: Int
    }

    public var channels: [Channel]
    public var recordSize: Int

    public init(_ enabled: [(name: String, index: Int, type: IIOScanType)]) {
        var offset = 0
        var largest = 1
        var laid: [Channel] = []
        for c in enabled.sorted(by: { $0.index < $1.index }) {
            let size = c.type.bytes * c.type.repeatCount
            let align = c.type.bytes
            offset = (offset + align - 1) / align * align
            laid.append(Channel(name: c.name, index: c.index, type: c.type, offset: offset))
            offset += size
            largest = max(largest, align)
        }
        channels = laid
        recordSize = (offset + largest - 1) / largest * largest
    }

    public func channel(_ name: String) -> Channel? { channels.first { $0.name == name } }
}
