import Photos
import PropertyBased
import Testing

/// No input traps the cleaner (STYLE: every codec gets property tests), and whatever it accepts
/// is clean: it starts with its format's magic, grows by at most the 36-byte Exif, and cleans to itself.
extension PhotoCleanerTests {
    /// The files mutations start from: each format, and each kind of metadata.
    static let seeds: [[UInt8]] = [
        F.baselineJPEG, F.progressiveJPEG, F.restartJPEG, F.pillowPNG,
        F.jpeg(
            F.baselineJPEG,
            inserting: [
                F.segment(0xE1, F.exif(orientation: 6)),
                F.segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1]),
            ]),
        F.png(before: Self.lookChunks + [F.chunk("PLTE", [1, 2, 3]), F.chunk("tEXt", Array("a\0b".utf8))]),
    ]

    /// Cleans `input`; when accepted, checks what the cleaner promises of its output.
    static func checkClean(_ input: [UInt8]) {
        guard let photo = try? PhotoCleaner.clean(input) else { return }
        #expect(photo.bytes.starts(with: photo.format.magic))
        #expect(photo.bytes.count <= input.count + 36)
        #expect(photo.width > 0 && photo.height > 0 && (1...8).contains(photo.orientation))
        #expect((try? PhotoCleaner.clean(photo.bytes)) == photo, "cleaning again changed it")
    }

    @Test("Random bytes, alone or behind a JPEG's or a PNG's magic, never trap")
    func randomBytes() async {
        await propertyCheck(count: 3000, input: Gen.uint8().array(of: 0...300)) { bytes in
            Self.checkClean(bytes)
            Self.checkClean([0xFF, 0xD8, 0xFF] + bytes)
            Self.checkClean(F.signature + bytes)
            Self.checkClean(Array(F.baselineJPEG[..<162]) + bytes)  // a scan's data, then anything
        }
    }

    @Test("Valid files with random bytes changed never trap, and what is accepted is clean")
    func randomMutations() async {
        let gen = Gen.int(in: 0..<Self.seeds.count)
        let edits = Gen.int(in: 0...1_000).array(of: 1...6)
        await propertyCheck(count: 4000, input: gen, edits, Gen.uint8().array(of: 6)) { seed, positions, values in
            var bytes = Self.seeds[seed]
            for (position, value) in zip(positions, values) { bytes[position % bytes.count] = value }
            Self.checkClean(bytes)
            Self.checkClean(F.withCRCsFixed(bytes))  // a PNG's change then reaches past its CRC
            Self.checkClean(
                Array(bytes[..<(positions[0] % bytes.count)])
                    + Array(bytes[(positions[0] % bytes.count)...].dropFirst()))
        }
    }
}
