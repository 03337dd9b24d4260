/// A photo: a person's profile photo or one of a run's, cleaned of its metadata (EXIF and its
/// GPS position, XMP, comments) when it was stored. `url` is where it is served, to whoever may
/// see it (`GET /photos/{key}`, with a session's cookie or bearer token).
public struct PhotoView: Codable, Sendable, Hashable {
    public var key: String
    public var url: String
    /// `jpeg` or `png`.
    public var format: String
    /// The picture's size in pixels, as shown (turned as its orientation says).
    public var width: Int
    public var height: Int
    /// Bytes, as stored.
    public var size: Int
    /// Who sees it: a profile photo's own level; absent on a run's photo (whoever sees the run).
    public var visibility: String?

    public init(key: String, url: String, format: String, width: Int, height: Int, size: Int, visibility: String?) {
        self.key = key
        self.url = url
        self.format = format
        self.width = width
        self.height = height
        self.size = size
        self.visibility = visibility
    }
}

/// `GET /v1/runs/{uuid}/photos`: a run's photos in their order.
public struct PhotoList: Codable, Sendable, Hashable {
    public var photos: [PhotoView]

    public init(photos: [PhotoView]) { self.photos = photos }
}
