/// The one piece of EXIF the store keeps: the Orientation tag (0x0112, TIFF 6.0 §8 and Exif 2.3
/// §4.6.4), which says how to turn the stored pixels to show them upright. Phones store portrait
/// photos sideways and set it to 6; dropping it would show them lying down.
enum ExifOrientation {
    /// The APP1 identifier of an Exif segment (Exif 2.3 §4.7.2): "Exif", two NULs.
    static let identifier: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

    /// The Orientation in IFD0 of an APP1 payload that starts with "Exif\0\0", if the payload has
    /// one that is a single SHORT of 1–8; nil for anything else (no tag, another type, a value
    /// out of range, an offset outside the payload). Either byte order ("II" or "MM").
    static func read(_ payload: ByteView) -> Int? {
        guard payload.has(identifier, at: 0),
            let tiff = payload.view(identifier.count, length: payload.count - identifier.count)
        else { return nil }
        let littleEndian: Bool
        if tiff.has([0x49, 0x49], at: 0) {
            littleEndian = true
        } else if tiff.has([0x4D, 0x4D], at: 0) {
            littleEndian = false
        } else {
            return nil
        }
        guard tiff.uint16(2, littleEndian: littleEndian) == 42,
            let ifd = tiff.uint32(4, littleEndian: littleEndian),
            let entries = tiff.uint16(ifd, littleEndian: littleEndian)
        else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + 12 * index
            guard let tag = tiff.uint16(entry, littleEndian: littleEndian) else { return nil }
            guard tag == 0x0112 else { continue }
            guard tiff.uint16(entry + 2, littleEndian: littleEndian) == 3,  // SHORT
                tiff.uint32(entry + 4, littleEndian: littleEndian) == 1,
                let value = tiff.uint16(entry + 8, littleEndian: littleEndian), (1...8).contains(value)
            else { return nil }
            return value
        }
        return nil
    }

    /// A whole APP1 segment, marker included, that holds only `orientation`: "Exif\0\0", a
    /// big-endian TIFF header, and IFD0 with the one Orientation entry and no next IFD. 36 bytes.
    static func segment(_ orientation: Int) -> [UInt8] {
        let value = UInt8(truncatingIfNeeded: orientation)
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,  // "MM", 42, IFD0 at 8
            0x00, 0x01,  // one entry
            0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, value, 0x00, 0x00,  // Orientation, SHORT, 1
            0x00, 0x00, 0x00, 0x00,  // no next IFD
        ]
        let length = 2 + identifier.count + tiff.count
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + identifier + tiff
    }
}
