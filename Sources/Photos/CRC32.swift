/// CRC-32 as PNG uses it (PNG §5.5, ISO 3309 / ITU-T V.42): polynomial 0x04C11DB7, reflected,
/// starting from all ones and inverted at the end. Table-driven, a byte at a time.
enum CRC32 {
    /// The remainder of each byte value, for the reflected polynomial 0xEDB88320.
    private static let table: [UInt32] = (0..<256).map { (n: UInt32) in
        var c = n
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 of `bytes`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }
}
