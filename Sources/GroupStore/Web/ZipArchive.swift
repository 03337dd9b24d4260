/// A zip archive (PKWARE APPNOTE 6.3) of stored, uncompressed entries, written as it goes: what
/// an export needs, as activity files hardly compress. `add` gives each entry's bytes to send at
/// once, so only the central directory (about a hundred bytes an entry) is kept; `finished` gives
/// the last bytes. Sizes and offsets are 32-bit, so an archive stays under 4 GiB.
struct ZipArchive {
    /// Entries one archive takes (the format's count is 16-bit).
    static let mostEntries = 65_000
    /// Bytes one archive takes (offsets are 32-bit).
    static let mostBytes = Int(UInt32.max)

    private var written = 0
    private var central: [UInt8] = []
    private var count = 0

    /// The time every entry carries, in MS-DOS form (date and time in local fields, 2 s steps).
    let dosTime: UInt16
    let dosDate: UInt16

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        dosTime = UInt16(hour << 11 | minute << 5 | second / 2)
        dosDate = UInt16(max(0, year - 1980) << 9 | month << 5 | day)
    }

    /// More than a zip without ZIP64 holds: 4 GiB, or 65,535 entries.
    struct TooLarge: Error {}

    /// The entry's local header and content: the next bytes of the archive.
    mutating func add(_ name: String, _ content: [UInt8]) throws(TooLarge) -> [UInt8] {
        let name = Array(name.utf8)
        guard count < Self.mostEntries, written + central.count + content.count + 2 * name.count + 200 < Self.mostBytes
        else { throw TooLarge() }
        let crc = Self.crc32(content)
        let offset = UInt32(written)
        // Local file header; bit 11 says the name is UTF-8.
        var entry = le32(0x0403_4B50) + le16(20) + le16(0x0800) + le16(0) + le16(dosTime) + le16(dosDate)
        entry += le32(crc) + le32(UInt32(content.count)) + le32(UInt32(content.count))
        entry += le16(UInt16(name.count)) + le16(0) + name + content
        central += le32(0x0201_4B50) + le16(20) + le16(20) + le16(0x0800) + le16(0) + le16(dosTime) + le16(dosDate)
        central += le32(crc) + le32(UInt32(content.count)) + le32(UInt32(content.count))
        central += le16(UInt16(name.count)) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(offset) + name
        count += 1
        written += entry.count
        return entry
    }

    /// The archive's last bytes: the central directory and its end record.
    func finished() -> [UInt8] {
        central + le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(count)) + le16(UInt16(count))
            + le32(UInt32(central.count)) + le32(UInt32(written)) + le16(0)
    }

    private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
