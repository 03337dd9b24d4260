import FuzzSupport
import WebForms

/// The upload form parser (`multipart/form-data`) on any request: a `MultipartError` or parts,
/// never a trap. The input's first line is the `Content-Type` header, the rest is the body.
/// Parts lie inside the body and none holds the next delimiter; the linear byte search finds
/// what a naive search finds, wherever it starts and stops.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    let newline = bytes.firstIndex(of: 0x0A) ?? bytes.count
    let header = Array(bytes[..<newline])
    let body = Array(bytes[min(newline + 1, bytes.count)...])

    // The search, against the obvious one, for the header's last parameter value as a needle.
    let value = header.lastIndex(of: UInt8(ascii: "=")).map { Array(header[($0 + 1)...]) } ?? header
    let needle = Array(value.prefix(72))
    for start in [0, 1, body.count / 3, body.count / 2] {
        for stop in [nil, body.count - 1, body.count / 2 + needle.count] {
            let fast = ByteSearch(needle).firstIndex(in: body, from: start, to: stop)
            let slow = naive(needle, in: body, from: start, to: stop ?? body.count)
            Fuzz.require(fast == slow, "ByteSearch found \(String(describing: fast)), not \(String(describing: slow))")
        }
    }

    guard let boundary = MultipartForm.boundary(String(decoding: header, as: UTF8.self)) else { return 0 }
    Fuzz.require((1...70).contains(boundary.utf8.count), "boundary of \(boundary.utf8.count) bytes accepted")
    guard let form = try? MultipartForm(body, boundary: boundary) else { return 0 }
    let next = [13, 10] + Array("--\(boundary)".utf8)
    for part in form.parts {
        Fuzz.require(part.body.startIndex >= 0 && part.body.endIndex <= body.count, "a part lies outside the body")
        Fuzz.require(naive(next, in: Array(part.body), from: 0, to: part.body.count) == nil, "a part holds a delimiter")
    }
    Fuzz.require(form.parts.count <= MultipartForm.Limits().parts, "more parts than the limit")
    return 0
}

/// The first index of `needle` in `haystack[from..<to]`, the slow and obvious way.
private func naive(_ needle: [UInt8], in haystack: [UInt8], from: Int, to: Int) -> Int? {
    let end = min(to, haystack.count)
    guard !needle.isEmpty, from >= 0, end - from >= needle.count else { return nil }
    for i in from...(end - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
    return nil
}

@_cdecl("fuzz_multipart_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv, fuzzMultipart)
}
