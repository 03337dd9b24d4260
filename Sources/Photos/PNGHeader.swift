/// A PNG's IHDR chunk (PNG §11.2.2): the picture's size and how its pixels are stored.
struct PNGHeader {
    /// The colour types (PNG Table 11.1), with their channels and allowed bit depths.
    private static let colourTypes: [UInt8: (channels: Int, depths: Set<UInt8>)] = [
        0: (1, [1, 2, 4, 8, 16]),  // greyscale
        2: (3, [8, 16]),  // truecolour
        3: (1, [1, 2, 4, 8]),  // indexed
        4: (2, [8, 16]),  // greyscale with alpha
        6: (4, [8, 16]),  // truecolour with alpha
    ]

    let width: Int
    let height: Int
    let bitDepth: UInt8
    let colourType: UInt8
    let interlaced: Bool

    /// Reads and checks the 13 bytes of IHDR's data: width and height from 1 to 2³¹−1, a bit
    /// depth that the colour type allows, compression and filter method 0, interlace 0 or 1.
    init(_ data: ByteView) throws(PhotoError) {
        guard data.count == 13, let width = data.uint32(0), let height = data.uint32(4), let bitDepth = data.byte(8),
            let colourType = data.byte(9), let compression = data.byte(10), let filter = data.byte(11),
            let interlace = data.byte(12)
        else { throw .malformed("the PNG header chunk is not 13 bytes long") }
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .malformed("the PNG header gives a width or height of 0 or over 2³¹−1")
        }
        guard let kind = Self.colourTypes[colourType], kind.depths.contains(bitDepth) else {
            throw .malformed("the PNG header has bit depth \(bitDepth) with colour type \(colourType)")
        }
        guard compression == 0 else { throw .malformed("the PNG header names compression method \(compression)") }
        guard filter == 0 else { throw .malformed("the PNG header names filter method \(filter)") }
        guard interlace <= 1 else { throw .malformed("the PNG header names interlace method \(interlace)") }
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colourType = colourType
        self.interlaced = interlace == 1
    }

    /// Bits a pixel takes: channels times bit depth.
    var bitsPerPixel: Int { (Self.colourTypes[colourType]?.channels ?? 4) * Int(bitDepth) }

    /// What the IDAT stream inflates to (PNG §7.2, §8.2): each row of each pass with its filter
    /// byte; for Adam7 the seven passes' reduced pictures. Exact (at most 9 bytes a pixel), and
    /// Int.max where it would overflow.
    var decodedBytes: Int {
        func bytes(width: Int, height: Int) -> Int {
            guard width > 0, height > 0 else { return 0 }
            let (bits, overflow) = width.multipliedReportingOverflow(by: bitsPerPixel)
            let (total, overflow2) = height.multipliedReportingOverflow(by: 1 + bits / 8 + (bits % 8 == 0 ? 0 : 1))
            return overflow || overflow2 ? .max : total
        }
        guard interlaced else { return bytes(width: width, height: height) }
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        return passes.reduce(0) { total, pass in
            let (x0, y0, dx, dy) = pass
            let (sum, overflow) = total.addingReportingOverflow(
                bytes(width: (width - x0 + dx - 1) / dx, height: (height - y0 + dy - 1) / dy))
            return overflow ? .max : sum
        }
    }
}
