/// The FIT file's container (Garmin FIT Protocol, "File Header" and "CRC"): a 12- or 14-byte
/// header, the records, and a 2-byte CRC over everything before it. Pure; checks every length
/// before reading, so a corrupt or truncated file gives a typed error, never a trap.
public enum FIT {
    /// Why a file is not a readable FIT file, said so that the person who sent it can act.
    public enum ContainerError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Fewer bytes than a header needs (or than the header says it has).
        case headerTooShort(have: Int, needed: Int)
        /// The header size byte is neither 12 nor 14.
        case badHeaderSize(Int)
        /// Bytes 8–11 are not ".FIT".
        case notFIT
        /// A 14-byte header whose own CRC (when not zero) does not match.
        case badHeaderCRC(stored: UInt16, computed: UInt16)
        /// The header promises `declared` bytes of records and the 2-byte CRC, and the file ends first.
        case truncated(declared: Int, available: Int)
        /// The file's CRC does not match its contents.
        case badFileCRC(stored: UInt16, computed: UInt16)

        public var description: String {
            switch self {
            case .headerTooShort(let have, let needed):
                "not a FIT file: \(have) bytes, and a FIT header alone needs \(needed)"
            case .badHeaderSize(let size): "not a FIT file: the header size is \(size) (FIT headers are 12 or 14 bytes)"
            case .notFIT: "not a FIT file: bytes 8–11 are not \".FIT\""
            case .badHeaderCRC(let stored, let computed):
                "the FIT header is corrupt: its CRC is 0x\(hex(stored)) but the header gives 0x\(hex(computed))"
            case .truncated(let declared, let available):
                "the FIT file is truncated: its header promises \(declared) bytes of records and a CRC, and only \(available) follow the header (was the copy cut short?)"
            case .badFileCRC(let stored, let computed):
                "the FIT file is corrupt: its CRC is 0x\(hex(stored)) but its contents give 0x\(hex(computed))"
            }
        }

        private func hex(_ v: UInt16) -> String {
            let s = String(v, radix: 16, uppercase: true)
            return String(repeating: "0", count: 4 - s.count) + s
        }
    }

    /// The file header's fields.
    public struct Header: Hashable, Sendable {
        public var size: Int
        public var protocolVersion: UInt8
        /// The profile version × 100 (2132 is 21.32).
        public var profileVersion: UInt16
        /// Bytes of records between the header and the file CRC.
        public var dataSize: Int
        /// The header's own CRC (14-byte headers; 0 means "not computed").
        public var crc: UInt16?
    }

    /// CRC-16 as FIT computes it: CRC-16/ARC (polynomial 0x8005 reflected, initial 0), a nibble
    /// at a time with the protocol's 16-entry table.
    public static func crc16(_ bytes: some Sequence<UInt8>, initial: UInt16 = 0) -> UInt16 {
        var crc = initial
        for byte in bytes {
            var tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int(byte & 0xF)]
            tmp = crcTable[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int((byte >> 4) & 0xF)]
        }
        return crc
    }

    private static let crcTable: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    /// A FIT file around `records`: a 14-byte header (protocol 2.0, profile 21.32, with its
    /// own CRC), the records, and the file CRC.
    public static func container(records: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [14, 0x20, UInt8(2132 & 0xFF), UInt8(2132 >> 8)]
        let size = UInt32(records.count)
        header += [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)]
        header += Array(".FIT".utf8)
        let headerCRC = crc16(header)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        var bytes = header + records
        let crc = crc16(bytes)
        bytes += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        return bytes
    }

    /// Reads and checks the header.
    public static func header(_ bytes: [UInt8]) throws(ContainerError) -> Header {
        guard let first = bytes.first else { throw .headerTooShort(have: 0, needed: 12) }
        let size = Int(first)
        guard size == 12 || size == 14 else { throw .badHeaderSize(size) }
        guard bytes.count >= size else { throw .headerTooShort(have: bytes.count, needed: size) }
        guard Array(bytes[8..<12]) == Array(".FIT".utf8) else { throw .notFIT }
        var header = Header(
            size: size, protocolVersion: bytes[1], profileVersion: UInt16(bytes[2]) | UInt16(bytes[3]) << 8,
            dataSize: Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24, crc: nil)
        if size == 14 {
            let stored = UInt16(bytes[12]) | UInt16(bytes[13]) << 8
            header.crc = stored
            let computed = crc16(bytes[0..<12])
            if stored != 0, stored != computed { throw .badHeaderCRC(stored: stored, computed: computed) }
        }
        return header
    }

    /// Checks the container: header, length and file CRC. Returns the header and the range of
    /// the record bytes. (FIT files may be chained; this checks the first.)
    public static func checkContainer(_ bytes: [UInt8]) throws(ContainerError) -> (header: Header, records: Range<Int>)
    {
        let header = try header(bytes)
        let available = bytes.count - header.size
        guard available >= 2, header.dataSize <= available - 2 else {
            throw .truncated(declared: header.dataSize, available: available)
        }
        let end = header.size + header.dataSize
        let stored = UInt16(bytes[end]) | UInt16(bytes[end + 1]) << 8
        let computed = crc16(bytes[0..<end])
        guard stored == computed else { throw .badFileCRC(stored: stored, computed: computed) }
        return (header, header.size..<end)
    }
}
