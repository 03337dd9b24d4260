import ActivityFormats
import CLibFuzzer

/// What every fuzz target shares: the input as bytes, the ways a stream can be cut into reads,
/// and properties whose failure libFuzzer records as a crash (with the input that caused it).
public enum Fuzz {
    /// A fuzz target's test: libFuzzer's input, 0 when done (a failed property traps instead).
    public typealias Test = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer on `test` with the command line's flags: each target's `main`.
    public static func main(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ test: Test
    ) -> CInt {
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv, test)
    }

    /// libFuzzer's input as an array.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Stops the run with `message` when `condition` is false: libFuzzer keeps the input as a crash.
    public static func require(
        _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
        line: UInt = #line
    ) {
        if !condition() { fatalError("property failed: \(message())", file: file, line: line) }
    }

    /// Whether `a` and `b` are the same values: equal, or printed the same (a NaN is not equal to
    /// itself, but two NaNs read from the same bytes are the same reading). Printing goes through
    /// reflection and is slow, so it is the fallback only.
    public static func same<T: Equatable>(_ a: T, _ b: T) -> Bool {
        a == b || "\(a)" == "\(b)"
    }

    /// `bytes` as a stream of reads, three ways: whole, a byte at a time (the first kilobyte, then
    /// the rest at once: byte-sized reads of a whole input cost more than they find), and in
    /// irregular pieces of 1 to 17 bytes (the same pieces for the same input).
    public static func readings(_ bytes: [UInt8]) -> [[ArraySlice<UInt8>]] {
        var irregular: [ArraySlice<UInt8>] = []
        var state = UInt32(truncatingIfNeeded: bytes.count) &* 2_654_435_761 | 1
        var i = 0
        while i < bytes.count {
            state = state &* 1_103_515_245 &+ 12_345
            let n = min(bytes.count - i, Int(state >> 16) % 17 + 1)
            irregular.append(bytes[i..<(i + n)])
            i += n
        }
        let head = min(bytes.count, 1024)
        var bytewise = (0..<head).map { bytes[$0...$0] }
        if head < bytes.count { bytewise.append(bytes[head...]) }
        return [[bytes[...]], bytewise, irregular]
    }

    /// The lines of `bytes`, split at LF (a CR before it is kept), as a line-based reader sees them.
    public static func lines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    }

    /// What the pack and the store do with an activity they have read: every writer takes it,
    /// and the file written in the format it came in reads back.
    public static func checkActivity(_ activity: Activity, readAs format: ActivityFormat) {
        var written: [UInt8] = []
        for other in ActivityFormat.allCases {
            let bytes = other.write(activity)
            if other == format { written = bytes }
        }
        do {
            _ = try format.read(written)
        } catch {
            fatalError("\(format) round trip: what the writer made from what the reader gave is refused: \(error)")
        }
    }
}
