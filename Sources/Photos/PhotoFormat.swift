/// A kind of photo the store takes, known from the file's first bytes (never from its name or a
/// declared type).
public enum PhotoFormat: String, Sendable, CaseIterable {
    /// JPEG (ITU T.81), as JFIF or Exif files.
    case jpeg
    /// PNG (the PNG specification, third edition; RFC 2083).
    case png

    /// The magic bytes a file of this format starts with: SOI and the next marker's 0xFF for JPEG
    /// (T.81 B.2.1), the 8-byte signature for PNG (PNG §5.2).
    public var magic: [UInt8] {
        switch self {
        case .jpeg: [0xFF, 0xD8, 0xFF]
        case .png: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        }
    }

    /// The media type to serve it as: `image/jpeg` or `image/png`.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }

    /// The file name extension to store it under, without the dot: `jpg` or `png`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        }
    }

    /// The format whose magic bytes `bytes` starts with, or nil.
    public init?(sniffing bytes: some Collection<UInt8>) {
        guard let format = Self.allCases.first(where: { bytes.starts(with: $0.magic) }) else { return nil }
        self = format
    }
}

/// How large a photo may be: in the file, and in the picture it decodes to.
public struct PhotoLimits: Sendable, Equatable {
    /// The largest file, in bytes: checked before anything in it is read.
    public var bytes = 5 * 1024 * 1024
    /// The most pixels (width × height). With `side`, this refuses decompression bombs: a small
    /// file that claims a picture a browser or a thumbnailer would need gigabytes to decode.
    public var pixels = 50_000_000
    /// The longest side, in pixels.
    public var side = 16_384

    /// The store's limits: 5 MB, 50 megapixels, 16384 pixels a side.
    public init() {}
}

/// A photo with everything but its picture taken out: what the store keeps.
public struct CleanPhoto: Sendable, Equatable {
    /// The format, from the file's magic bytes.
    public let format: PhotoFormat
    /// The width in pixels, from the JPEG frame header or the PNG IHDR chunk.
    public let width: Int
    /// The height in pixels, as stored (before any orientation is applied).
    public let height: Int
    /// The EXIF orientation (1–8; 1 is upright as stored). A JPEG's 2–8 is kept in the output as
    /// a minimal Exif segment; a PNG's is always 1 (its eXIf chunk is dropped).
    public let orientation: Int
    /// The cleaned file.
    public let bytes: [UInt8]
}
