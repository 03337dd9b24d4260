import HandoffModel

/// Reads a FIT activity file: the container is checked first (header, length, CRC), then every
/// record header, definition and data message is bounds-checked before it is read. Definitions
/// in either byte order, developer fields (skipped by their declared sizes), compressed
/// timestamp headers and unknown messages are all handled; what we do not use is skipped.
/// Memory grows with the records kept, which each take at least one byte of the file.
public enum FITReader {
    /// Reads `bytes`, refusing anything past `limits`.
    public static func read(_ bytes: [UInt8], limits: ActivityLimits = .standard) throws(ActivityFileError) -> Activity
    {
        var messages = try decode(bytes, limits: limits)
        return try messages.activity().checked(against: limits)
    }

    /// A definition message, ready to read the data messages that follow it.
    struct Definition {
        var global: UInt16
        var bigEndian: Bool
        /// Field number, offset in the message, size and base type, in file order.
        var fields: [(number: UInt8, offset: Int, size: Int, type: FIT.BaseType?)]
        /// The message's size in bytes, developer fields included.
        var size: Int
        /// Field number → index in `fields`, for the fields we read.
        var index: [Int16]
    }

    /// A data message's view: reads fields by number.
    struct DataMessage {
        let bytes: [UInt8]
        let start: Int
        let definition: Definition

        /// The field's first value, or nil when absent or FIT's invalid value.
        func value(_ number: UInt8) -> Int64? {
            let i = Int(definition.index[Int(number)])
            guard i >= 0 else { return nil }
            let field = definition.fields[i]
            guard let type = field.type, field.size >= type.size else { return nil }
            return FITReader.value(bytes, at: start + field.offset, type: type, bigEndian: definition.bigEndian)
        }

        /// Every value of an array field, invalid ones left out.
        func values(_ number: UInt8) -> [Int64] {
            let i = Int(definition.index[Int(number)])
            guard i >= 0 else { return [] }
            let field = definition.fields[i]
            guard let type = field.type, type.size > 0 else { return [] }
            var result: [Int64] = []
            var offset = 0
            while offset + type.size <= field.size {
                if let v = FITReader.value(
                    bytes, at: start + field.offset + offset, type: type, bigEndian: definition.bigEndian)
                {
                    result.append(v)
                }
                offset += type.size
            }
            return result
        }
    }

    static func value(_ bytes: [UInt8], at offset: Int, type: FIT.BaseType, bigEndian: Bool) -> Int64? {
        var bits: UInt64 = 0
        for i in 0..<type.size {
            let byte = UInt64(bytes[offset + (bigEndian ? i : type.size - 1 - i)])
            bits = bits << 8 | byte
        }
        guard bits != type.invalid else { return nil }
        switch type {
        case .sint8: return Int64(Int8(truncatingIfNeeded: bits))
        case .sint16: return Int64(Int16(truncatingIfNeeded: bits))
        case .sint32: return Int64(Int32(truncatingIfNeeded: bits))
        case .sint64: return Int64(bitPattern: bits)
        case .float32, .float64, .string: return nil
        default: return bits > UInt64(Int64.max) ? nil : Int64(bits)
        }
    }

    /// Walks every record of the file, and of each FIT file chained after it, and keeps the
    /// messages an activity needs.
    ///
    /// Chained parts (FIT protocol §3.3: files written one after the other) are read like the
    /// first, each with its own definitions. Bytes after a part that are not a whole, valid FIT
    /// file are refused, naming what is wrong with them: reading the first part alone would
    /// import a run with its end silently missing (fitdecode refuses such files too).
    static func decode(_ bytes: [UInt8], limits: ActivityLimits) throws(ActivityFileError) -> Messages {
        var messages = Messages(limits: limits)
        var partStart = 0
        var part = 1
        while true {
            let records: Range<Int>
            do {
                records = try FIT.checkContainer(partStart == 0 ? bytes : Array(bytes[partStart...])).records
            } catch {
                guard partStart > 0 else { throw .fit(error) }
                throw .fitChain(part: part, offset: partStart, error)
            }
            let shifted = (records.lowerBound + partStart)..<(records.upperBound + partStart)
            try decodeRecords(bytes, shifted, into: &messages)
            partStart = shifted.upperBound + 2
            part += 1
            // Zeros after the last part are padding some devices leave in fixed-size files.
            if partStart >= bytes.count || bytes[partStart...].allSatisfy({ $0 == 0 }) { break }
        }
        return messages
    }

    /// Reads the records of one FIT part into `messages`.
    private static func decodeRecords(
        _ bytes: [UInt8], _ records: Range<Int>, into messages: inout Messages
    ) throws(ActivityFileError) {
        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: Int64?
        var position = records.lowerBound
        let end = records.upperBound
        while position < end {
            let headerOffset = position
            let header = bytes[position]
            position += 1
            if header & 0x80 == 0, header & 0x40 != 0 {
                let definition = try readDefinition(bytes, at: &position, end: end, developer: header & 0x20 != 0)
                definitions[Int(header & 0x0F)] = definition
                continue
            }
            let local = header & 0x80 != 0 ? Int(header >> 5 & 0x03) : Int(header & 0x0F)
            guard let definition = definitions[local] else {
                throw .fitRecord(
                    offset: headerOffset,
                    problem: "a data message uses local message type \(local), which was never defined")
            }
            guard definition.size <= end - position else {
                throw .fitRecord(
                    offset: headerOffset,
                    problem:
                        "a \(definition.size)-byte message runs past the end of the records (\(end - position) bytes left)"
                )
            }
            if definition.fields.isEmpty {
                messages.emptyMessages += 1
                guard messages.emptyMessages <= messages.limits.maximumEmptyMessages else {
                    throw .tooLarge(
                        "the FIT file holds more than \(messages.limits.maximumEmptyMessages) data messages that carry no field at all; a device writes none, so this is not an activity file"
                    )
                }
            }
            let message = DataMessage(bytes: bytes, start: position, definition: definition)
            position += definition.size
            var timestamp = message.value(FIT.timestampField)
            if header & 0x80 != 0 {
                // Compressed timestamp: the low five bits of the seconds since the last full timestamp.
                guard let last = lastTimestamp else {
                    throw .fitRecord(
                        offset: headerOffset, problem: "a compressed-timestamp header comes before any full timestamp")
                }
                let offset = Int64(header & 0x1F)
                var t = (last & ~0x1F) + offset
                if offset < last & 0x1F { t += 0x20 }
                timestamp = t
            }
            if let t = timestamp {
                // Every later time is reckoned from this one: one past 2100 (or a 64-bit field
                // near 2^63) is refused here, before any arithmetic could overflow.
                guard t <= FIT.maximumDateTime else {
                    throw .fitRecord(
                        offset: headerOffset, problem: "a message's timestamp (\(t)) is after the year 2100")
                }
                lastTimestamp = t
            }
            try messages.add(message, timestamp: timestamp, offset: headerOffset)
        }
    }

    private static func readDefinition(
        _ bytes: [UInt8], at position: inout Int, end: Int, developer: Bool
    ) throws(ActivityFileError) -> Definition {
        let start = position - 1
        guard end - position >= 5 else { throw .fitRecord(offset: start, problem: "a definition message is cut short") }
        let architecture = bytes[position + 1]
        guard architecture <= 1 else {
            throw .fitRecord(
                offset: start, problem: "a definition gives architecture \(architecture) (only 0 and 1 exist)")
        }
        let bigEndian = architecture == 1
        let global =
            bigEndian
            ? UInt16(bytes[position + 2]) << 8 | UInt16(bytes[position + 3])
            : UInt16(bytes[position + 3]) << 8 | UInt16(bytes[position + 2])
        let count = Int(bytes[position + 4])
        position += 5
        guard end - position >= count * 3 else {
            throw .fitRecord(offset: start, problem: "a definition of \(count) fields is cut short")
        }
        var definition = Definition(
            global: global, bigEndian: bigEndian, fields: [], size: 0, index: Array(repeating: -1, count: 256))
        definition.fields.reserveCapacity(count)
        for _ in 0..<count {
            let number = bytes[position]
            let size = Int(bytes[position + 1])
            let type = FIT.BaseType(rawValue: bytes[position + 2] & 0x9F)
            guard size > 0 else {
                throw .fitRecord(offset: start, problem: "field \(number) of message \(global) has size 0")
            }
            // A size that is not a whole number of values makes the field plain bytes (FIT protocol 4.2).
            let usable = type.flatMap { size % $0.size == 0 ? $0 : nil }
            if definition.index[Int(number)] < 0 { definition.index[Int(number)] = Int16(definition.fields.count) }
            definition.fields.append((number, definition.size, size, usable))
            definition.size += size
            position += 3
        }
        if developer {
            guard end - position >= 1 else { throw .fitRecord(offset: start, problem: "a definition is cut short") }
            let developerCount = Int(bytes[position])
            position += 1
            guard end - position >= developerCount * 3 else {
                throw .fitRecord(
                    offset: start, problem: "a definition of \(developerCount) developer fields is cut short")
            }
            for _ in 0..<developerCount {
                definition.size += Int(bytes[position + 1])
                position += 3
            }
        }
        return definition
    }
}
