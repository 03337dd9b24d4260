import FuzzSupport
import Photos

/// The photo cleaner (`PhotoCleaner.clean`) on any bytes: a `CleanPhoto` or a `PhotoError`, never
/// a trap. What it accepts starts with its format's magic, is at most the input plus the 36-byte
/// Exif segment that keeps a JPEG's orientation, and cleans again to itself. A PNG is also tried
/// with every chunk's CRC made right, so that changes reach the chunk checks behind the CRC.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPhoto(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    check(bytes)
    if bytes.starts(with: PhotoFormat.png.magic) { check(withCRCsFixed(bytes)) }

    // The size is checked before anything else: one byte over the limit is refused as too large.
    guard !bytes.isEmpty else { return 0 }
    var limits = PhotoLimits()
    limits.bytes = bytes.count - 1
    do {
        _ = try PhotoCleaner.clean(bytes, limits: limits)
        Fuzz.require(false, "a file over the byte limit was accepted")
    } catch {
        Fuzz.require(error == .tooLarge(bytes: bytes.count, limit: limits.bytes), "over the limit, but \(error)")
    }
    return 0
}

/// Cleans `bytes` and checks what the cleaner promises of its output.
private func check(_ bytes: [UInt8]) {
    let photo: CleanPhoto
    do {
        photo = try PhotoCleaner.clean(bytes)
    } catch {
        let message = error.message
        Fuzz.require(message.first?.isUppercase == true && message.hasSuffix("."), "not a sentence: \(message)")
        return
    }
    let limits = PhotoLimits()
    Fuzz.require(PhotoFormat(sniffing: bytes) == photo.format, "the format is not the input's magic")
    Fuzz.require(photo.bytes.starts(with: photo.format.magic), "the output lost its magic")
    Fuzz.require(photo.bytes.count <= bytes.count + 36, "\(bytes.count) bytes grew to \(photo.bytes.count)")
    Fuzz.require(photo.width > 0 && photo.width <= limits.side, "width \(photo.width)")
    Fuzz.require(photo.height > 0 && photo.height <= limits.side, "height \(photo.height)")
    Fuzz.require(photo.width * photo.height <= limits.pixels, "\(photo.width) × \(photo.height) accepted")
    Fuzz.require((1...8).contains(photo.orientation), "orientation \(photo.orientation)")
    do {
        let again = try PhotoCleaner.clean(photo.bytes)
        Fuzz.require(again == photo, "cleaning the output again changed it")
    } catch {
        Fuzz.require(false, "the output is refused: \(error)")
    }
}

/// `bytes` (a PNG) with the CRC-32 of every whole chunk made right; the rest left as it is.
private func withCRCsFixed(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes
    var position = 8
    while position + 12 <= out.count {
        let length = out[position..<(position + 4)].reduce(0) { $0 << 8 | Int($1) }
        guard length <= out.count - position - 12 else { break }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in out[(position + 4)..<(position + 8 + length)] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc = ~crc
        let end = position + 8 + length
        out.replaceSubrange(end..<(end + 4), with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
        position = end + 4
    }
    return out
}

@_cdecl("fuzz_photo_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzPhoto)
}
