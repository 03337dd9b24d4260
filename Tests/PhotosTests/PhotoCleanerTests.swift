import Photos
import PropertyBased
import Testing

/// The store's photo uploads (a profile photo, up to 10 a run): only JPEG and PNG within 5 MB and
/// 50 megapixels, with every kind of metadata taken out and the picture's own bytes untouched.
@Suite("Photos keep their picture and lose their metadata, the GPS position first")
struct PhotoCleanerTests {
    typealias F = PhotoFixtures

    /// The APP1 segment the cleaner writes for an orientation: "Exif\0\0", a big-endian TIFF
    /// header, IFD0 with only tag 0x0112 (SHORT, 1 value) and no next IFD. Written out by hand.
    static func minimalExif(_ orientation: UInt8) -> [UInt8] {
        [0xFF, 0xE1, 0x00, 0x22, 0x45, 0x78, 0x69, 0x66, 0x00, 0x00, 0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
            + [0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, orientation, 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]
    }

    /// The baseline JPEG with `segment` between its APP0 and its tables: what the cleaner should give
    /// back for a photo whose only kept metadata is that.
    static func baseline(with segment: [UInt8]) -> [UInt8] {
        Array(F.baselineJPEG[..<20]) + segment + Array(F.baselineJPEG[20...])
    }

    /// The error cleaning `bytes` throws, or nil when it is accepted.
    static func refusal(_ bytes: [UInt8], limits: PhotoLimits = PhotoLimits()) -> PhotoError? {
        do {
            _ = try PhotoCleaner.clean(bytes, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// The baseline JPEG with its frame header's height and width set.
    static func baseline(height: Int, width: Int) -> [UInt8] {
        var bytes = F.baselineJPEG
        bytes.replaceSubrange(
            94..<98, with: [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
        return bytes
    }

    @Test(
        "A phone's JPEG loses Exif and its GPS IFD, XMP, ICC, IPTC, the comment and the trailer; the rest is byte for byte"
    )
    func jpegMetadataGone() throws {
        let input = F.jpeg(
            F.baselineJPEG,
            inserting: [
                F.segment(0xE1, F.exif(orientation: 6)), F.segment(0xE1, F.xmp), F.segment(0xE2, F.icc),
                F.segment(0xED, F.iptc), F.segment(0xFE, F.comment),
            ], trailing: F.trailer)
        let photo = try PhotoCleaner.clean(input)
        #expect(photo.bytes == Self.baseline(with: Self.minimalExif(6)))
        #expect(photo.format == .jpeg && photo.width == 8 && photo.height == 8 && photo.orientation == 6)
        for needle in ["secret", "Phone", "http://ns.adobe.com", "ICC_PROFILE", "Photoshop"] {
            #expect(!F.contains(photo.bytes, needle), "\(needle) survived")
        }
    }

    @Test(
        "The Exif orientation is read in either byte order and only 2–8 is written back, as a minimal Exif",
        arguments: [
            (UInt16(6), UInt16(3), false, 6), (8, 3, true, 8), (3, 3, true, 3), (2, 3, false, 2), (1, 3, false, 1),
            (0, 3, false, 1), (9, 3, true, 1), (6, 4, false, 1),  // a LONG is not what TIFF 6.0 says it is
        ])
    func orientation(_ value: UInt16, _ type: UInt16, _ littleEndian: Bool, _ kept: Int) throws {
        let exif = F.segment(0xE1, F.exif(orientation: value, type: type, littleEndian: littleEndian))
        let photo = try PhotoCleaner.clean(F.jpeg(F.baselineJPEG, inserting: [exif]))
        #expect(photo.orientation == kept)
        #expect(photo.bytes == (kept == 1 ? F.baselineJPEG : Self.baseline(with: Self.minimalExif(UInt8(kept)))))
    }

    @Test("An Exif cut anywhere, or with offsets and counts pointing outside it, gives no orientation and no trap")
    func brokenExif() throws {
        let exif = F.exif(orientation: 6)
        for length in 0...exif.count {
            let photo = try PhotoCleaner.clean(
                F.jpeg(F.baselineJPEG, inserting: [F.segment(0xE1, Array(exif[..<length]))]))
            // The Orientation entry is IFD0's second, at TIFF offset 22; its value ends at 32.
            #expect(photo.orientation == (length >= 6 + 32 ? 6 : 1), "cut at \(length)")
        }
        var farIFD = exif
        farIFD.replaceSubrange(10..<14, with: [0xFF, 0xFF, 0xFF, 0xF0])
        var manyEntries = exif
        manyEntries.replaceSubrange(14..<16, with: [0xFF, 0xFF])
        manyEntries.replaceSubrange(28..<30, with: [0x01, 0x13])  // the Orientation entry is another tag now
        for payload in [farIFD, manyEntries] {
            let photo = try PhotoCleaner.clean(F.jpeg(F.baselineJPEG, inserting: [F.segment(0xE1, payload)]))
            #expect(photo.orientation == 1 && photo.bytes == F.baselineJPEG)
        }
    }

    @Test(
        "A JFIF APP0 first is kept to its 16 bytes (a thumbnail can show what a crop cut); a JFXX or a late APP0 goes")
    func jfifThumbnail() throws {
        let fields: [UInt8] = [0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01]
        let withThumbnail = F.segment(0xE0, Array("JFIF\0".utf8) + fields + [1, 1, 0xFF, 0x00, 0x00])
        let jfxx = F.segment(0xE0, Array("JFXX\0".utf8) + [0x13, 1, 1, 0xFF, 0x00, 0x00])
        let input = [0xFF, 0xD8] + withThumbnail + jfxx + Array(F.baselineJPEG[2...])
        #expect(try PhotoCleaner.clean(input).bytes == F.baselineJPEG)
    }

    @Test("An Adobe APP14 is kept (it decides how CMYK and YCCK colours are transformed), cut to its 12 bytes")
    func adobeKept() throws {
        let adobe: [UInt8] = Array("Adobe".utf8) + [0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x02]
        let input = F.jpeg(F.baselineJPEG, inserting: [F.segment(0xEE, adobe + Array("secret".utf8))])
        #expect(try PhotoCleaner.clean(input).bytes == Self.baseline(with: F.segment(0xEE, adobe)))
        let notAdobe = F.jpeg(F.baselineJPEG, inserting: [F.segment(0xEE, Array("Other secret".utf8))])
        #expect(try PhotoCleaner.clean(notAdobe).bytes == F.baselineJPEG)
    }

    @Test(
        "Baseline, progressive (scans with DHT between) and restart-interval JPEGs come through byte for byte",
        arguments: [F.baselineJPEG, F.progressiveJPEG, F.restartJPEG])
    func pictureUntouched(_ jpeg: [UInt8]) throws {
        let photo = try PhotoCleaner.clean(jpeg)
        #expect(photo.bytes == jpeg && photo.orientation == 1)
        #expect(photo.width == (jpeg == F.restartJPEG ? 16 : 8) && photo.height == photo.width)
    }

    @Test("C4 (DHT) and CC (DAC) are not frame headers; C8 (JPG) and the JPGn extensions are refused")
    func notFrameHeaders() {
        for (marker, expected) in [
            (UInt8(0xC4), PhotoError.malformed("the JPEG has a scan before its frame header")),
            (0xCC, .malformed("the JPEG has a scan before its frame header")),
            (0xC8, .unsupported("a JPEG extension")), (0xF7, .unsupported("a JPEG extension")),
            (0xDE, .unsupported("hierarchical JPEG coding")),
        ] {
            var bytes = F.baselineJPEG
            bytes[90] = marker  // the SOF0 segment starts at 89
            #expect(Self.refusal(bytes) == expected, "marker \(marker)")
        }
        let withoutFrame = Array(F.baselineJPEG[..<89]) + Array(F.baselineJPEG[102...])
        #expect(Self.refusal(withoutFrame) == .malformed("the JPEG has a scan before its frame header"))
    }

    @Test(
        "A frame header's size is checked: a JPEG bomb claiming 65000 × 65000 is refused, as is any side over 16384",
        arguments: [
            (65_000, 65_000, false), (16_384, 3_052, false), (16_384, 3_051, true), (1, 16_385, false),
            (16_384, 1, true), (8, 8, true),
        ])
    func jpegBomb(_ width: Int, _ height: Int, _ accepted: Bool) {
        let refusal = Self.refusal(Self.baseline(height: height, width: width))
        #expect(refusal == (accepted ? nil : .tooManyPixels(width: width, height: height)))
    }

    @Test("A height of 0 (given later by DNL) is unsupported and a width of 0 malformed")
    func zeroSides() {
        #expect(
            Self.refusal(Self.baseline(height: 0, width: 8))
                == .unsupported("a height given after the picture (a DNL marker)"))
        #expect(Self.refusal(Self.baseline(height: 8, width: 0)) == .malformed("the JPEG frame is 0 pixels wide"))
    }

    @Test("JPEGs that break T.81 are refused with the reason")
    func brokenJPEGs() throws {
        let base = F.baselineJPEG
        let sos = 152  // where the SOS segment starts; its data runs to the EOI at base.count - 2
        let cases: [([UInt8], PhotoError)] = [
            (Array(base.dropLast(2)), .truncated("the JPEG ends inside its picture data")),
            (Array(base[..<sos]) + [0xFF, 0xD9], .malformed("the JPEG has no picture scan")),
            (
                Array(base[..<20]) + [0xFF, 0xFE, 0x00, 0x01] + Array(base[20...]),
                .malformed("a JPEG segment is shorter than its own length field")
            ),
            (Array(base[..<20]) + [0xFF, 0xFE, 0x10, 0x00], .truncated("the JPEG ends inside a segment")),
            (Array(base[..<20]) + [0x00] + Array(base[20...]), .malformed("the JPEG has bytes between its segments")),
            (
                Array(base[..<20]) + [0xFF, 0xD8] + Array(base[20...]),
                .malformed("the JPEG has a second start-of-image marker")
            ),
            (
                Array(base[..<20]) + [0xFF, 0xD0] + Array(base[20...]),
                .malformed("the JPEG has a stray marker between its segments")
            ),
            (
                Array(base[..<20]) + [0xFF, 0x02, 0x00, 0x02] + Array(base[20...]),
                .malformed("the JPEG has a reserved marker")
            ),
            ([0xFF, 0xD8, 0xFF], .truncated("the JPEG ends before its end-of-image marker")),
        ]
        for (bytes, expected) in cases {
            #expect(Self.refusal(bytes) == expected)
        }
        // Fill bytes before a marker are allowed (T.81 B.1.1.2) and dropped.
        #expect(try PhotoCleaner.clean(Array(base[..<20]) + [0xFF, 0xFF] + Array(base[20...])).bytes == base)
    }

    @Test("A file over 5 MB is refused before it is read, whatever it holds; the limit is the caller's")
    func tooLarge() {
        let limit = 5 * 1024 * 1024
        #expect(Self.refusal([UInt8](repeating: 0, count: limit + 1)) == .tooLarge(bytes: limit + 1, limit: limit))
        #expect(Self.refusal([UInt8](repeating: 0, count: limit)) == .notAnImage)
        var small = PhotoLimits()
        small.bytes = 100
        #expect(Self.refusal(F.baselineJPEG, limits: small) == .tooLarge(bytes: F.baselineJPEG.count, limit: 100))
        #expect(
            PhotoError.tooLarge(bytes: limit + 1, limit: limit).message
                == "The photo is 5.1 MB; the most is 5 MB: send a smaller one.")
        #expect(
            PhotoError.tooLarge(bytes: 7_549_747, limit: limit).message
                == "The photo is 7.2 MB; the most is 5 MB: send a smaller one.")
    }

    @Test(
        "Text, a GIF, a WebP, a PDF, nothing and a few bytes are not an image: only the magic bytes decide",
        arguments: [
            Array("hello, this is text".utf8), Array("GIF89a\u{1}\0\u{1}\0\0\0\0;".utf8),
            Array("RIFF\0\0\0\0WEBPVP8 ".utf8),
            Array("%PDF-1.4".utf8), [], [0xFF, 0xD8], [0x89, 0x50, 0x4E], [0x47, 0x49, 0x46],
            Array(F.pillowPNG.dropFirst()), [0xFF, 0xD8, 0xFE, 0x00],
        ])
    func notAnImage(_ bytes: [UInt8]) {
        #expect(Self.refusal(bytes) == .notAnImage)
    }

    @Test("Every prefix of a valid JPEG or PNG is refused as cut short or not an image, never a trap")
    func everyPrefix() {
        let tagged = F.jpeg(
            F.baselineJPEG, inserting: [F.segment(0xE1, F.exif(orientation: 6)), F.segment(0xFE, F.comment)])
        let text = F.png(before: [F.chunk("tEXt", Array("Comment\0secret".utf8))])
        for file in [F.baselineJPEG, F.progressiveJPEG, F.restartJPEG, tagged, F.pillowPNG, text] {
            for length in 0..<file.count {
                switch Self.refusal(Array(file[..<length])) {
                case .truncated?, .notAnImage?: continue
                case let other: Issue.record("a prefix of \(length) bytes gave \(String(describing: other))")
                }
            }
        }
    }

    @Test("Cleaning a cleaned photo gives the same bytes")
    func idempotent() throws {
        let files = [
            F.baselineJPEG, F.progressiveJPEG, F.restartJPEG, F.pillowPNG,
            F.jpeg(
                F.baselineJPEG, inserting: [F.segment(0xE1, F.exif(orientation: 8, littleEndian: true))],
                trailing: F.trailer),
            F.png(before: [F.chunk("gAMA", F.be32(45_455)), F.chunk("eXIf", F.exif(orientation: 6))]),
        ]
        for file in files {
            let once = try PhotoCleaner.clean(file)
            #expect(try PhotoCleaner.clean(once.bytes) == once)
        }
    }

    @Test("Each error's message is one sentence a person can act on")
    func messages() {
        let errors: [PhotoError] = [
            .tooLarge(bytes: 9_000_000, limit: 5 * 1024 * 1024), .tooLarge(bytes: 2_000, limit: 1_000), .notAnImage,
            .truncated("the JPEG ends inside a segment"), .tooManyPixels(width: 65_000, height: 65_000),
            .malformed("the PNG has no image data"), .badChecksum(chunk: "IDAT"),
            .unsupported("hierarchical JPEG coding"),
        ]
        for error in errors {
            let message = error.message
            #expect(
                message.first?.isUppercase == true && message.hasSuffix(".") && !message.contains("\n"), "\(message)")
            #expect(!message.dropLast().contains(". "), "more than one sentence: \(message)")
            #expect(error.description == message)
        }
        #expect(PhotoError.notAnImage.message == "That file is not a JPEG or PNG photo.")
    }

    @Test("The format is served and stored under its own media type and extension")
    func formats() {
        #expect(PhotoFormat.jpeg.mediaType == "image/jpeg" && PhotoFormat.jpeg.fileExtension == "jpg")
        #expect(PhotoFormat.png.mediaType == "image/png" && PhotoFormat.png.fileExtension == "png")
        #expect(PhotoFormat(sniffing: F.pillowPNG) == .png && PhotoFormat(sniffing: F.baselineJPEG) == .jpeg)
    }
}
