/// Cleans a JPEG (ITU T.81 Annex B, JFIF 1.02) by walking its segments from SOI to EOI.
///
/// Kept, byte for byte: the tables (DQT, DHT, DAC, DRI), the frame header (SOF0–SOF15 but for
/// C4, C8 and CC, which are DHT, JPG and DAC), every scan header (SOS) with its entropy-coded
/// data, DNL, and EOI. Kept, made minimal: a JFIF APP0 that comes first (without its thumbnail,
/// which can show what a crop took away) and an Adobe APP14 (its 12 bytes decide how a CMYK or
/// YCCK picture's colours are transformed). Dropped: every other APPn (Exif, XMP, ICC, FlashPix,
/// IPTC and Photoshop, MPF…), COM, fill bytes between segments, and anything after EOI. The
/// Exif Orientation, if 2–8, comes back as a minimal Exif APP1 (`ExifOrientation`).
enum JPEGCleaner {
    /// What the walk has found so far.
    private struct Walk {
        var jfif: [UInt8] = []
        var body: [UInt8] = []
        var frame: (width: Int, height: Int)?
        var scans = 0
        var orientation: Int?
        var sawExif = false
        var segments = 0
    }

    static func clean(_ input: [UInt8], limits: PhotoLimits) throws(PhotoError) -> CleanPhoto {
        let file = ByteView(input)
        guard file.has([0xFF, 0xD8], at: 0) else { throw .notAnImage }
        var walk = Walk()
        walk.body.reserveCapacity(input.count)
        var position = 2
        while true {
            let (marker, offset) = try nextMarker(file, at: position)
            if marker == 0xD9 {  // EOI
                guard let frame = walk.frame else { throw .malformed("the JPEG has no frame header") }
                guard walk.scans > 0 else { throw .malformed("the JPEG has no picture scan") }
                walk.body += [0xFF, 0xD9]
                let orientation = walk.orientation ?? 1
                let exif = orientation == 1 ? [] : ExifOrientation.segment(orientation)
                let bytes = [0xFF, 0xD8] + walk.jfif + exif + walk.body
                return CleanPhoto(
                    format: .jpeg, width: frame.width, height: frame.height, orientation: orientation, bytes: bytes)
            }
            try refuseStandalone(marker)
            guard let length = file.uint16(offset) else { throw .truncated("the JPEG ends inside a segment") }
            guard length >= 2 else { throw .malformed("a JPEG segment is shorter than its own length field") }
            guard let payload = file.view(offset + 2, length: length - 2),
                let whole = file.slice(offset - 2, length: length + 2)
            else { throw .truncated("the JPEG ends inside a segment") }
            position = offset + length
            try segment(marker, payload: payload, whole: whole, into: &walk, limits: limits)
            walk.segments += 1
            if marker == 0xDA {  // SOS: the entropy-coded data runs to the next marker
                position = try scanEnd(file, from: position)
                if let data = file.slice(offset + length, length: position - offset - length) { walk.body += data }
            }
        }
    }

    /// The marker at `position` (after any 0xFF fill bytes, T.81 B.1.1.2) and the offset just past it.
    private static func nextMarker(_ file: ByteView, at position: Int) throws(PhotoError) -> (UInt8, Int) {
        guard let first = file.byte(position) else { throw .truncated("the JPEG ends before its end-of-image marker") }
        guard first == 0xFF else { throw .malformed("the JPEG has bytes between its segments") }
        var offset = position + 1
        while let byte = file.byte(offset) {
            if byte != 0xFF { return (byte, offset + 1) }
            offset += 1
        }
        throw .truncated("the JPEG ends before its end-of-image marker")
    }

    /// Refuses the markers that have no length field or have no place outside a scan.
    private static func refuseStandalone(_ marker: UInt8) throws(PhotoError) {
        switch marker {
        case 0xD8: throw .malformed("the JPEG has a second start-of-image marker")
        case 0x00, 0x01, 0xD0...0xD7: throw .malformed("the JPEG has a stray marker between its segments")
        case 0x02...0xBF: throw .malformed("the JPEG has a reserved marker")
        default: return
        }
    }

    /// Keeps, drops or refuses one segment: `whole` is the segment from its marker, `payload` what
    /// follows its length field.
    private static func segment(
        _ marker: UInt8, payload: ByteView, whole: ArraySlice<UInt8>, into walk: inout Walk, limits: PhotoLimits
    ) throws(PhotoError) {
        switch marker {
        case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:  // SOFn
            guard walk.frame == nil else { throw .malformed("the JPEG has two frame headers") }
            walk.frame = try frame(payload, limits: limits)
            walk.body += whole
        case 0xC4, 0xCC, 0xDB, 0xDC:  // DHT, DAC, DQT, DNL
            walk.body += whole
        case 0xDD:  // DRI
            guard payload.count == 2 else {
                throw .malformed("the JPEG's restart interval segment is not 4 bytes long")
            }
            walk.body += whole
        case 0xDA:  // SOS
            guard walk.frame != nil else { throw .malformed("the JPEG has a scan before its frame header") }
            guard let components = payload.byte(0), (1...4).contains(components),
                payload.count == 1 + 2 * Int(components) + 3
            else { throw .malformed("a JPEG scan header has the wrong length") }
            walk.scans += 1
            walk.body += whole
        case 0xE0:  // APP0: a JFIF header first is kept, without its thumbnail
            if walk.segments == 0, payload.has(Array("JFIF\0".utf8), at: 0), let fields = payload.slice(5, length: 7) {
                walk.jfif = [0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8) + fields + [0x00, 0x00]
            }
        case 0xE1:  // APP1: Exif gives its orientation (the first Exif only); XMP and the rest go
            if !walk.sawExif, payload.has(ExifOrientation.identifier, at: 0) {
                walk.sawExif = true
                walk.orientation = ExifOrientation.read(payload)
            }
        case 0xEE:  // APP14: Adobe's colour transform is kept, its 12 bytes only
            if payload.has(Array("Adobe".utf8), at: 0), let fields = payload.slice(0, length: 12) {
                walk.body += [0xFF, 0xEE, 0x00, 0x0E] + fields
            }
        case 0xE2...0xED, 0xEF, 0xFE:  // other APPn, COM
            return
        case 0xDE, 0xDF:  // DHP, EXP
            throw .unsupported("hierarchical JPEG coding")
        default:  // JPG (C8), JPGn (F0–FD): extensions, such as JPEG-LS
            throw .unsupported("a JPEG extension")
        }
    }

    /// The width and height in a frame header (T.81 B.2.2), within the limits.
    private static func frame(
        _ payload: ByteView, limits: PhotoLimits
    ) throws(PhotoError) -> (width: Int, height: Int) {
        guard let height = payload.uint16(1), let width = payload.uint16(3), let components = payload.byte(5),
            components > 0, payload.count == 6 + 3 * Int(components)
        else { throw .malformed("the JPEG frame header has the wrong length") }
        guard height > 0 else { throw .unsupported("a height given after the picture (a DNL marker)") }
        guard width > 0 else { throw .malformed("the JPEG frame is 0 pixels wide") }
        try PhotoCleaner.check(width: width, height: height, limits)
        return (width, height)
    }

    /// Where a scan's entropy-coded data ends (T.81 B.1.1.5): at the first 0xFF that is neither
    /// a stuffed 0xFF00 nor a restart marker RST0–RST7.
    private static func scanEnd(_ file: ByteView, from start: Int) throws(PhotoError) -> Int {
        var position = start
        while let ff = file.firstOffset(of: 0xFF, from: position) {
            guard let next = file.byte(ff + 1) else { break }
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                position = ff + 2
            } else {
                return ff
            }
        }
        throw .truncated("the JPEG ends inside its picture data")
    }
}
