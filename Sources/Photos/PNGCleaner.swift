/// Cleans a PNG (PNG specification, third edition; RFC 2083) by walking its chunks from the
/// signature to IEND, checking each one's length and CRC-32.
///
/// Kept, byte for byte (their CRCs stay valid): IHDR, PLTE, IDAT, IEND, and the ancillary chunks
/// that only change how pixels look, each the first time it comes before the image data: tRNS,
/// gAMA, cHRM, sRGB, sBIT, bKGD, pHYs. Dropped: everything else (tEXt, zTXt, iTXt, eXIf, tIME,
/// iCCP, APNG's acTL, fcTL and fdAT, private chunks) and anything after IEND. An unknown
/// critical chunk is refused: a decoder must not show a picture it cannot fully read (§5.4).
enum PNGCleaner {
    /// The ancillary chunks that are kept: they change how the pixels look, and say nothing else.
    private static let kept: Set<String> = ["tRNS", "gAMA", "cHRM", "sRGB", "sBIT", "bKGD", "pHYs"]

    /// What the walk has found so far.
    private struct Walk {
        var header: PNGHeader?
        var output: [UInt8] = []
        var seen: Set<String> = []
        var idat = false
        var palette = false
    }

    static func clean(_ input: [UInt8], limits: PhotoLimits) throws(PhotoError) -> CleanPhoto {
        let file = ByteView(input)
        let signature = PhotoFormat.png.magic
        guard file.has(signature, at: 0) else { throw .notAnImage }
        var walk = Walk()
        walk.output.reserveCapacity(input.count)
        walk.output += signature
        var position = signature.count
        while true {
            guard let length = file.uint32(position), let typeBytes = file.slice(position + 4, length: 4) else {
                throw .truncated("the PNG ends before its IEND chunk")
            }
            guard length <= Int(Int32.max) else { throw .malformed("a PNG chunk is longer than 2³¹−1 bytes") }
            guard typeBytes.allSatisfy(isLetter) else { throw .malformed("a PNG chunk's type is not four letters") }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard let data = file.view(position + 8, length: length), let stored = file.uint32(position + 8 + length),
                let covered = file.slice(position + 4, length: length + 4),
                let whole = file.slice(position, length: length + 12)
            else { throw .truncated("the PNG ends inside its \(type) chunk") }
            guard CRC32.checksum(covered) == UInt32(stored) else { throw .badChecksum(chunk: type) }
            position += length + 12
            if try chunk(type, data: data, whole: whole, into: &walk, limits: limits) {
                guard let header = walk.header else { throw .malformed("the PNG has no header chunk") }
                return CleanPhoto(
                    format: .png, width: header.width, height: header.height, orientation: 1, bytes: walk.output)
            }
        }
    }

    /// Keeps, drops or refuses one chunk; true at IEND.
    private static func chunk(
        _ type: String, data: ByteView, whole: ArraySlice<UInt8>, into walk: inout Walk, limits: PhotoLimits
    ) throws(PhotoError) -> Bool {
        guard let header = walk.header else {
            guard type == "IHDR" else { throw .malformed("the PNG does not start with its header chunk") }
            let header = try PNGHeader(data)
            try PhotoCleaner.check(width: header.width, height: header.height, limits)
            // What the image data inflates to: at most 8 bytes a pixel (16-bit RGBA) within the pixel limit.
            let (most, overflow) = limits.pixels.multipliedReportingOverflow(by: 8)
            guard overflow || header.decodedBytes <= most else {
                throw .tooManyPixels(width: header.width, height: header.height)
            }
            walk.header = header
            walk.output += whole
            return false
        }
        switch type {
        case "IHDR":
            throw .malformed("the PNG has a second header chunk")
        case "PLTE":
            guard header.colourType != 0, header.colourType != 4 else {
                throw .malformed("a greyscale PNG has a palette")
            }
            guard !walk.palette, !walk.idat else {
                throw .malformed("the PNG's palette is repeated or after its image data")
            }
            guard data.count > 0, data.count <= 3 * 256, data.count % 3 == 0 else {
                throw .malformed("the PNG's palette is not 1 to 256 colours of 3 bytes")
            }
            walk.palette = true
            walk.output += whole
        case "IDAT":
            guard header.colourType != 3 || walk.palette else { throw .malformed("a palette PNG has no palette") }
            walk.idat = true
            walk.output += whole
        case "IEND":
            guard walk.idat else { throw .malformed("the PNG has no image data") }
            guard data.count == 0 else { throw .malformed("the PNG's IEND chunk is not empty") }
            walk.output += whole
            return true
        case _ where kept.contains(type):
            if !walk.idat && walk.seen.insert(type).inserted { walk.output += whole }
        case _ where isCritical(type):
            throw .unsupported("a PNG chunk it cannot read (\(type))")
        default:
            break
        }
        return false
    }

    /// Whether a chunk type byte is a letter (PNG §5.3: A–Z and a–z only).
    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// Whether a chunk is critical: its first letter is upper case (PNG §5.4).
    private static func isCritical(_ type: String) -> Bool {
        type.utf8.first.map { (0x41...0x5A).contains($0) } ?? false
    }
}
