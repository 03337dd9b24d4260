/// A receiver's byte stream in, fixes out: framing, checksums, sentence decoding and epoch
/// assembly together, with a count of everything that was not used and why.
public struct NMEADecoder: Sendable {
    public var checksumPolicy: NMEAChecksumPolicy
    public private(set) var counts = Counts()
    private var framer = NMEAFramer()
    private var assembler = NMEAFixAssembler()

    /// What became of the input.
    public struct Counts: Hashable, Sendable {
        /// Sentences decoded and used.
        public var decoded = 0
        /// Proprietary sentences (`$P…`), skipped.
        public var proprietary = 0
        /// Valid sentences of types the pack does not read (GST, GBS, TXT, …), skipped.
        public var unsupported = 0
        /// Lines that failed framing, checksum or field checks.
        public var rejected = 0
        /// Bytes outside any sentence (binary protocols, noise, truncated lines).
        public var discardedBytes = 0
        public var lastError: NMEAError?
        public var fixes = 0

        public init() {}
    }

    public init(checksumPolicy: NMEAChecksumPolicy = .required) {
        self.checksumPolicy = checksumPolicy
    }

    /// Takes the next bytes as they were read; calls `body` with each fix they complete.
    public mutating func append(_ bytes: some Sequence<UInt8>, _ body: (GNSSFix) throws -> Void) rethrows {
        var lines: [[UInt8]] = []
        framer.append(bytes) { lines.append($0) }
        counts.discardedBytes = framer.discardedBytes
        for line in lines {
            if let fix = decode(line: line) { try body(fix) }
        }
    }

    /// Takes one framed line; returns the fix it completes, if any.
    public mutating func decode(line: [UInt8]) -> GNSSFix? {
        let report: NMEAReport
        let address: String
        do {
            let sentence = try NMEASentence(bytes: line, checksum: checksumPolicy)
            address = sentence.isProprietary ? "P" + sentence.type : sentence.talker + sentence.type
            report = try NMEAReport(sentence)
        } catch {
            switch error {
            case .proprietary: counts.proprietary += 1
            case .unsupported: counts.unsupported += 1
            default:
                counts.rejected += 1
                counts.lastError = error
            }
            return nil
        }
        counts.decoded += 1
        guard let fix = assembler.add(report, address: address) else { return nil }
        counts.fixes += 1
        return fix
    }

    /// Ends the input: a last line without a line ending, and the last burst's fix.
    public mutating func finish(_ body: (GNSSFix) throws -> Void) rethrows {
        var lines: [[UInt8]] = []
        framer.finish { lines.append($0) }
        counts.discardedBytes = framer.discardedBytes
        for line in lines {
            if let fix = decode(line: line) { try body(fix) }
        }
        if let fix = assembler.finish() {
            counts.fixes += 1
            try body(fix)
        }
    }

    /// Every fix in a whole log.
    public static func fixes(
        in bytes: some Sequence<UInt8>, checksumPolicy: NMEAChecksumPolicy = .required
    )
        -> (fixes: [GNSSFix], counts: Counts)
    {
        var decoder = NMEADecoder(checksumPolicy: checksumPolicy)
        var fixes: [GNSSFix] = []
        decoder.append(bytes) { fixes.append($0) }
        decoder.finish { fixes.append($0) }
        return (fixes, decoder.counts)
    }
}
