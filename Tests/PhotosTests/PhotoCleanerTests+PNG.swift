import Photos
import Testing

/// PNG (PNG specification, third edition): the chunks that draw the picture are kept byte for
/// byte, every other one goes, and IHDR, the chunk layout and every CRC are checked.
extension PhotoCleanerTests {
    /// A PNG from `ihdr`, then `middle`, a small IDAT and IEND (each left out when asked).
    static func png(_ ihdr: [UInt8], _ middle: [[UInt8]] = [], idat: Bool = true, iend: Bool = true) -> [UInt8] {
        F.signature + ihdr + middle.joined() + (idat ? F.idat([0, 0, 0, 0]) : []) + (iend ? F.iend : [])
    }

    /// The chunks that only change how the pixels look, with plausible data.
    static let lookChunks: [[UInt8]] = [
        F.chunk("gAMA", F.be32(45_455)), F.chunk("cHRM", (0..<8).flatMap { F.be32(30_000 + $0 * 1_000) }),
        F.chunk("sRGB", [0]), F.chunk("sBIT", [8, 8, 8]), F.chunk("bKGD", [0, 255, 0, 255, 0, 255]),
        F.chunk("pHYs", F.be32(2_835) + F.be32(2_835) + [1]),
    ]

    @Test("A PNG loses tEXt, zTXt, iTXt, eXIf, tIME, iCCP, APNG and private chunks; the rest is byte for byte")
    func pngMetadataGone() throws {
        let gone: [[UInt8]] = [
            F.chunk("iCCP", Array("secret-icc\0\0".utf8) + [0x78, 0x01, 0x03, 0x00]),
            F.chunk("tEXt", Array("Comment\0secret-text".utf8)),
            F.chunk("zTXt", Array("Author\0\0".utf8) + Array("secret-ztxt".utf8)),
            F.chunk("iTXt", Array("Description\0\0\0en\0\0secret-itxt".utf8)),
            F.chunk("eXIf", Array(F.exif(orientation: 6).dropFirst(6))),
            F.chunk("acTL", F.be32(2) + F.be32(0)), F.chunk("fcTL", [UInt8](repeating: 0, count: 26)),
            F.chunk("prVt", Array("secret-private".utf8)),
        ]
        let mixed = zip(Self.lookChunks, gone).flatMap { [$0, $1] } + gone.dropFirst(Self.lookChunks.count)
        let after = [F.chunk("tIME", [0x07, 0xEA, 11, 27, 12, 0, 0]), F.chunk("fdAT", F.be32(1) + [0x78, 0x01])]
        let input = F.png(before: mixed, after: after + [F.chunk("tEXt", Array("Late\0secret".utf8))]) + F.trailer
        let photo = try PhotoCleaner.clean(input)
        #expect(photo.bytes == F.png(before: Self.lookChunks))
        #expect(photo.format == .png && photo.width == 2 && photo.height == 2 && photo.orientation == 1)
        #expect(!F.contains(photo.bytes, "secret"))
    }

    @Test("Pillow's PNG comes through unchanged: its CRCs check against the cleaner's CRC-32")
    func pillowPNG() throws {
        #expect(try PhotoCleaner.clean(F.pillowPNG).bytes == F.pillowPNG)
        #expect(F.crc(Array("123456789".utf8)) == 0xCBF4_3926)  // the check value of CRC-32/ISO-HDLC
    }

    @Test("A chunk whose CRC is wrong is refused, whether it would be kept or dropped")
    func badChecksum() {
        var idat = F.pillowPNG
        idat[45] ^= 0x01  // in the IDAT data, which starts at 41
        #expect(Self.refusal(idat) == .badChecksum(chunk: "IDAT"))
        var iend = F.pillowPNG
        iend[iend.count - 1] ^= 0x80
        #expect(Self.refusal(iend) == .badChecksum(chunk: "IEND"))
        var text = F.chunk("tEXt", Array("Comment\0hi".utf8))
        text[10] ^= 0x20
        #expect(Self.refusal(F.png(before: [text])) == .badChecksum(chunk: "tEXt"))
    }

    @Test("IHDR's bit depth must be one its colour type allows (PNG Table 11.1)")
    func depthsAndColourTypes() {
        let allowed: [UInt8: Set<UInt8>] = [
            0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
        ]
        for colourType in UInt8(0)...7 {
            for depth: UInt8 in [0, 1, 2, 3, 4, 8, 16, 32] {
                let palette = colourType == 3 ? [F.chunk("PLTE", [0, 0, 0])] : []
                let file = Self.png(F.ihdr(width: 1, height: 1, depth: depth, colourType: colourType), palette)
                let ok = allowed[colourType]?.contains(depth) ?? false
                #expect((Self.refusal(file) == nil) == ok, "colour type \(colourType), depth \(depth)")
            }
        }
    }

    @Test(
        "IHDR is 13 bytes with a size from 1 to 2³¹−1, compression and filter 0, interlace 0 or 1",
        arguments: [
            (F.ihdr(width: 2, height: 2, compression: 1), "the PNG header names compression method 1"),
            (F.ihdr(width: 2, height: 2, filter: 1), "the PNG header names filter method 1"),
            (F.ihdr(width: 2, height: 2, interlace: 2), "the PNG header names interlace method 2"),
            (F.ihdr(width: 0, height: 2), "the PNG header gives a width or height of 0 or over 2³¹−1"),
            (F.ihdr(width: 2, height: 0), "the PNG header gives a width or height of 0 or over 2³¹−1"),
            (F.ihdr(width: 1 << 31, height: 1), "the PNG header gives a width or height of 0 or over 2³¹−1"),
            (F.chunk("IHDR", F.be32(2) + F.be32(2) + [8, 2, 0, 0]), "the PNG header chunk is not 13 bytes long"),
            (F.chunk("gAMA", F.be32(45_455)), "the PNG does not start with its header chunk"),
        ])
    func header(_ ihdr: [UInt8], _ reason: String) {
        #expect(Self.refusal(Self.png(ihdr)) == .malformed(reason))
    }

    @Test("Chunks out of their place or breaking their rules are refused with the reason")
    func layout() throws {
        let rgb = F.ihdr(width: 2, height: 2)
        let indexed = F.ihdr(width: 2, height: 2, colourType: 3)
        let grey = F.ihdr(width: 2, height: 2, colourType: 0)
        let palette = F.chunk("PLTE", [0, 0, 0, 255, 255, 255])
        let cases: [([UInt8], PhotoError)] = [
            (Self.png(rgb, idat: false), .malformed("the PNG has no image data")),
            (Self.png(rgb, iend: false), .truncated("the PNG ends before its IEND chunk")),
            (Self.png(indexed), .malformed("a palette PNG has no palette")),
            (Self.png(grey, [palette]), .malformed("a greyscale PNG has a palette")),
            (
                Self.png(indexed, [palette, palette]),
                .malformed("the PNG's palette is repeated or after its image data")
            ),
            (
                Self.png(indexed, [F.chunk("PLTE", [0, 0, 0, 0])]),
                .malformed("the PNG's palette is not 1 to 256 colours of 3 bytes")
            ),
            (Self.png(rgb, [rgb]), .malformed("the PNG has a second header chunk")),
            (Self.png(rgb, [F.chunk("ABCD", [])]), .unsupported("a PNG chunk it cannot read (ABCD)")),
            (Self.png(rgb, [F.chunk("IE D", [])]), .malformed("a PNG chunk's type is not four letters")),
            (
                Self.png(rgb, [[0x80, 0, 0, 0] + Array("tEXt".utf8)]),
                .malformed("a PNG chunk is longer than 2³¹−1 bytes")
            ),
            (Self.png(rgb, [[0x00, 0, 1, 0] + Array("tEXt".utf8)]), .truncated("the PNG ends inside its tEXt chunk")),
            (Self.png(rgb, iend: false) + F.chunk("IEND", [0]), .malformed("the PNG's IEND chunk is not empty")),
        ]
        for (bytes, expected) in cases {
            #expect(Self.refusal(bytes) == expected)
        }
        // PLTE is allowed, and kept, for truecolour (a suggested palette) and needed for indexed.
        #expect(try PhotoCleaner.clean(Self.png(rgb, [palette])).bytes == Self.png(rgb, [palette]))
        #expect(try PhotoCleaner.clean(Self.png(indexed, [palette])).bytes == Self.png(indexed, [palette]))
    }

    @Test("A look chunk after the image data, or the second of its kind, is dropped (PNG §5.6 orders them before IDAT)")
    func lookChunksInPlace() throws {
        let gamma = F.chunk("gAMA", F.be32(45_455))
        let other = F.chunk("gAMA", F.be32(100_000))
        let photo = try PhotoCleaner.clean(
            F.png(before: [gamma, other], after: [F.chunk("pHYs", [UInt8](repeating: 1, count: 9))]))
        #expect(photo.bytes == F.png(before: [gamma]))
    }

    @Test(
        "A PNG bomb (a few bytes claiming 50000 × 50000) is refused, and so is image data over 8 bytes a pixel",
        arguments: [
            (50_000, 50_000, UInt8(8), UInt8(2), UInt8(0), false), (16_385, 1, 8, 2, 0, false),
            (7_071, 7_071, 16, 6, 0, true),  // 16-bit RGBA: 399,999,399 bytes inflated
            (7_071, 7_071, 16, 6, 1, false),  // Adam7's extra rows: 400,005,587 bytes
            (7_071, 7_071, 8, 2, 1, true),
        ])
    func pngBomb(_ width: Int, _ height: Int, _ depth: UInt8, _ colourType: UInt8, _ interlace: UInt8, _ accepted: Bool)
    {
        let file = Self.png(
            F.ihdr(width: width, height: height, depth: depth, colourType: colourType, interlace: interlace))
        #expect(Self.refusal(file) == (accepted ? nil : .tooManyPixels(width: width, height: height)))
    }
}
