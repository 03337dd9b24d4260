/// Takes a photo as uploaded and gives back only what draws the picture: a JPEG or PNG within the
/// limits, its metadata (EXIF and its GPS position, XMP, IPTC, ICC profiles, comments, text
/// chunks, thumbnails) gone. No pixel is decoded: the cleaner walks the container (JPEG segments,
/// PNG chunks), checks every length, and rebuilds the file from the parts that carry the picture,
/// copied byte for byte. Pure and total: any bytes give a `CleanPhoto` or a `PhotoError`, never a
/// trap; linear in the file's size; cleaning a cleaned photo gives the same bytes.
public enum PhotoCleaner {
    /// Cleans `bytes`: the size is checked first, then the format is told from the magic bytes
    /// and the file walked. The output is never longer than the input, but for the 36-byte Exif
    /// segment that keeps a JPEG's orientation.
    public static func clean(
        _ bytes: some Collection<UInt8>, limits: PhotoLimits = PhotoLimits()
    ) throws(PhotoError) -> CleanPhoto {
        let count = bytes.count
        guard count <= limits.bytes else { throw .tooLarge(bytes: count, limit: limits.bytes) }
        let input = Array(bytes)
        switch PhotoFormat(sniffing: input) {
        case .jpeg: return try JPEGCleaner.clean(input, limits: limits)
        case .png: return try PNGCleaner.clean(input, limits: limits)
        case nil: throw .notAnImage
        }
    }

    /// Refuses a picture of `width` × `height` that is over `limits`' side or pixel count.
    static func check(width: Int, height: Int, _ limits: PhotoLimits) throws(PhotoError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width <= limits.side, height <= limits.side, !overflow, pixels <= limits.pixels else {
            throw .tooManyPixels(width: width, height: height)
        }
    }
}
