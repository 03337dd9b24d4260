/// Why a `multipart/form-data` body (RFC 7578, RFC 2046 §5.1) cannot be read.
public enum MultipartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body never has the delimiter line `--BOUNDARY`.
    case noBoundary(String)
    /// A delimiter is followed by neither CRLF nor the closing `--`.
    case boundaryNotFollowedByCRLF
    /// A part's header block has no blank line ending it.
    case headersDoNotEnd
    /// A part's header block is longer than the limit.
    case headersTooLong(limit: Int)
    /// A header line has no colon.
    case headerWithoutColon
    /// A part's content runs to the end of the body without the next delimiter.
    case partDoesNotEnd
    /// A part has no `Content-Disposition: form-data; name=…`.
    case partWithoutName
    /// The body has more parts than the limit.
    case tooManyParts(limit: Int)

    /// What is wrong, in words that fit after "the body is malformed: ".
    public var description: String {
        switch self {
        case .noBoundary(let boundary): "no boundary \(boundary)"
        case .boundaryNotFollowedByCRLF: "a boundary is not followed by CRLF"
        case .headersDoNotEnd: "a part's headers do not end"
        case .headersTooLong(let limit): "a part's headers are longer than \(limit) bytes"
        case .headerWithoutColon: "a header line has no colon"
        case .partDoesNotEnd: "a part does not end with the boundary"
        case .partWithoutName: "a part has no Content-Disposition name"
        case .tooManyParts(let limit): "it has more than \(limit) parts"
        }
    }
}
