/// A byte pattern searched for in linear time (Knuth–Morris–Pratt): O(n + m) for a haystack of
/// n bytes and a needle of m, whatever the bytes, so no input (near-miss boundaries repeated a
/// million times) makes a search quadratic.
public struct ByteSearch: Sendable {
    /// The bytes looked for.
    public let needle: [UInt8]
    /// `failure[i]`: the length of the longest proper prefix of `needle[0...i]` that is also its
    /// suffix, where a search resumes after a mismatch.
    private let failure: [Int]

    /// Prepares the search for `needle` (empty needles match nowhere).
    public init(_ needle: [UInt8]) {
        self.needle = needle
        var failure = [Int](repeating: 0, count: needle.count)
        var k = 0
        var i = 1
        while i < needle.count {
            while k > 0 && needle[i] != needle[k] { k = failure[k - 1] }
            if needle[i] == needle[k] { k += 1 }
            failure[i] = k
            i += 1
        }
        self.failure = failure
    }

    /// The first index of the needle in `haystack[from..<to]` (`to` defaults to the end), or nil.
    public func firstIndex(in haystack: [UInt8], from: Int, to: Int? = nil) -> Int? {
        search(in: haystack, from: from, to: to).index
    }

    /// `firstIndex`, with the number of byte comparisons it made: at most twice the bytes
    /// searched, whatever they are (each comparison either moves on a byte or shortens the match,
    /// which never grows by more than a byte a step). Tests count these instead of timing.
    public func search(in haystack: [UInt8], from: Int, to: Int? = nil) -> (index: Int?, comparisons: Int) {
        let end = min(to ?? haystack.count, haystack.count)
        guard !needle.isEmpty, from >= 0, end - from >= needle.count else { return (nil, 0) }
        var matched = 0
        var comparisons = 0
        var i = from
        while i < end {
            let byte = haystack[i]
            while matched > 0 && byte != needle[matched] {
                comparisons += 1
                matched = failure[matched - 1]
            }
            comparisons += 1
            if byte == needle[matched] { matched += 1 }
            if matched == needle.count { return (i + 1 - needle.count, comparisons) }
            i += 1
        }
        return (nil, comparisons)
    }
}
