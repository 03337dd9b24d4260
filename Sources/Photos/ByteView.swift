/// A window on bytes whose reads are checked: a read that would fall outside gives nil, never a
/// trap. Offsets are relative to the window's start, and big-endian unless asked otherwise.
struct ByteView {
    private let bytes: [UInt8]
    private let start: Int
    /// The number of bytes in the window.
    let count: Int

    /// A window on all of `bytes`.
    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        start = 0
        count = bytes.count
    }

    private init(_ bytes: [UInt8], start: Int, count: Int) {
        self.bytes = bytes
        self.start = start
        self.count = count
    }

    /// Whether `length` bytes from `offset` lie inside the window.
    func contains(_ offset: Int, length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= count && length <= count - offset
    }

    /// The byte at `offset`.
    func byte(_ offset: Int) -> UInt8? {
        contains(offset, length: 1) ? bytes[start + offset] : nil
    }

    /// The 16-bit unsigned integer at `offset`.
    func uint16(_ offset: Int, littleEndian: Bool = false) -> Int? {
        integer(offset, length: 2, littleEndian: littleEndian)
    }

    /// The 32-bit unsigned integer at `offset`.
    func uint32(_ offset: Int, littleEndian: Bool = false) -> Int? {
        integer(offset, length: 4, littleEndian: littleEndian)
    }

    /// Whether the window holds `pattern` at `offset`.
    func has(_ pattern: [UInt8], at offset: Int) -> Bool {
        guard contains(offset, length: pattern.count) else { return false }
        return bytes[(start + offset)..<(start + offset + pattern.count)].elementsEqual(pattern)
    }

    /// The `length` bytes from `offset`.
    func slice(_ offset: Int, length: Int) -> ArraySlice<UInt8>? {
        contains(offset, length: length) ? bytes[(start + offset)..<(start + offset + length)] : nil
    }

    /// The `length` bytes from `offset`, as a window of their own.
    func view(_ offset: Int, length: Int) -> ByteView? {
        contains(offset, length: length) ? ByteView(bytes, start: start + offset, count: length) : nil
    }

    /// The first offset at or after `offset` that holds `value`.
    func firstOffset(of value: UInt8, from offset: Int) -> Int? {
        guard contains(offset, length: 0) else { return nil }
        return bytes[(start + offset)..<(start + count)].firstIndex(of: value).map { $0 - start }
    }

    private func integer(_ offset: Int, length: Int, littleEndian: Bool) -> Int? {
        guard contains(offset, length: length) else { return nil }
        var value = 0
        for k in 0..<length {
            let byte = bytes[start + offset + (littleEndian ? length - 1 - k : k)]
            value = value << 8 | Int(byte)
        }
        return value
    }
}
