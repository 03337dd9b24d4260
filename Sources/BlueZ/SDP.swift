import SensorCodecs

/// The Service Discovery Protocol (Core Vol 3 Part B), as far as the pack needs it: one Service
/// Search Attribute transaction that finds a classic device's Serial Port service and the RFCOMM
/// channel it listens on. Pure: `SDPClient` carries these bytes over an L2CAP socket.
public enum SDP {
    /// Serial Port (Assigned Numbers, Service Class 0x1101).
    public static let serialPort: UInt16 = 0x1101
    static let l2capUUID: UInt16 = 0x0100
    static let rfcommUUID: UInt16 = 0x0003

    /// Attribute ids (Core Vol 3 Part B §5.1).
    public static let serviceRecordHandle: UInt16 = 0x0000
    public static let serviceClassIDList: UInt16 = 0x0001
    public static let protocolDescriptorList: UInt16 = 0x0004
    /// The primary language's service name (base 0x0100 + offset 0).
    public static let serviceName: UInt16 = 0x0100

    /// Why an SDP exchange failed, said for the person reading the log.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The bytes do not follow the data element rules: `what` at byte `offset`.
        case malformed(String, offset: Int)
        /// The server answered with an SDP error (§4.4.1): 1 version, 2 bad handle, 3 bad syntax,
        /// 4 bad PDU size, 5 bad continuation state, 6 out of resources.
        case errorResponse(code: UInt16)
        /// A PDU that is not the answer to our request.
        case unexpectedPDU(id: UInt8, transaction: UInt16)
        /// The server kept sending continuations past any sane size.
        case tooLong(bytes: Int)

        public var description: String {
            switch self {
            case .malformed(let what, let offset): "malformed SDP response: \(what) at byte \(offset)"
            case .errorResponse(let code):
                "the device's SDP server answered error 0x\(String(code, radix: 16)) (\(Self.errorText(code)))"
            case .unexpectedPDU(let id, let transaction):
                "unexpected SDP PDU 0x\(String(id, radix: 16)) (transaction \(transaction))"
            case .tooLong(let bytes): "the SDP response grew past \(bytes) bytes; gave up"
            }
        }

        static func errorText(_ code: UInt16) -> String {
            switch code {
            case 1: "unsupported SDP version"
            case 2: "invalid service record handle"
            case 3: "invalid request syntax"
            case 4: "invalid PDU size"
            case 5: "invalid continuation state"
            case 6: "insufficient resources"
            default: "unknown"
            }
        }
    }

    /// A data element (§3): the types a service record uses.
    public indirect enum Element: Hashable, Sendable {
        case null
        case unsigned(UInt64, bytes: Int)
        case signed(Int64, bytes: Int)
        case uuid(BluetoothUUID)
        case text(String)
        case bool(Bool)
        case sequence([Element])
        case alternative([Element])
        case url(String)
        /// 128-bit integers, which nothing here reads.
        case wide([UInt8])

        public var elements: [Element]? {
            switch self {
            case .sequence(let items), .alternative(let items): items
            default: nil
            }
        }

        public var uuid: BluetoothUUID? { if case .uuid(let u) = self { u } else { nil } }
        public var unsignedValue: UInt64? { if case .unsigned(let v, _) = self { v } else { nil } }

        /// The element's encoding (for requests, and for tests that build responses).
        public func encoded() -> [UInt8] {
            func sized(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
                if body.count < 256 { return [type << 3 | 5, UInt8(body.count)] + body }
                return [type << 3 | 6, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
            }
            func fixed(_ type: UInt8, _ value: UInt64, _ bytes: Int) -> [UInt8] {
                let index: UInt8 = [1: 0, 2: 1, 4: 2, 8: 3][bytes] ?? 3
                return [type << 3 | index] + (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            }
            switch self {
            case .null: return [0]
            case .unsigned(let v, let bytes): return fixed(1, v, bytes)
            case .signed(let v, let bytes): return fixed(2, UInt64(bitPattern: v), bytes)
            case .uuid(let u):
                if let short = u.short { return fixed(3, UInt64(short), 2) }
                return [3 << 3 | 4] + u.bytes
            case .text(let s): return sized(4, Array(s.utf8))
            case .bool(let b): return [5 << 3, b ? 1 : 0]
            case .sequence(let items): return sized(6, items.flatMap { $0.encoded() })
            case .alternative(let items): return sized(7, items.flatMap { $0.encoded() })
            case .url(let s): return sized(8, Array(s.utf8))
            case .wide(let bytes): return [1 << 3 | 4] + bytes
            }
        }
    }

    /// Reads data elements, checking every length; nesting is limited so that a hostile
    /// response cannot exhaust the stack.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0
        static let maximumDepth = 16

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func take(_ count: Int, _ what: String) throws(Failure) -> ArraySlice<UInt8> {
            guard count >= 0, bytes.count - offset >= count else {
                throw .malformed("\(what) needs \(count) bytes, \(bytes.count - offset) left", offset: offset)
            }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func element(depth: Int = 0) throws(Failure) -> Element {
            guard depth < Self.maximumDepth else { throw .malformed("sequences nested too deeply", offset: offset) }
            let start = offset
            let header = try take(1, "element header").first!
            let type = header >> 3
            let sizeIndex = header & 0x07
            var length: Int
            switch sizeIndex {
            case 0...4: length = [1, 2, 4, 8, 16][Int(sizeIndex)]
            case 5: length = Int(try take(1, "element length").first!)
            case 6: length = try take(2, "element length").reduce(0) { $0 << 8 | Int($1) }
            default: length = try take(4, "element length").reduce(0) { $0 << 8 | Int($1) }
            }
            if type == 0 {
                guard sizeIndex == 0 else {
                    throw .malformed("nil element with size index \(sizeIndex)", offset: start)
                }
                return .null
            }
            let body = Array(try take(length, "element of type \(type)"))
            func integer() -> UInt64 { body.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            switch type {
            case 1, 2:
                guard sizeIndex <= 4 else { throw .malformed("integer with size index \(sizeIndex)", offset: start) }
                if length == 16 { return .wide(body) }
                if type == 1 { return .unsigned(integer(), bytes: length) }
                let shift = UInt64(64 - 8 * length)
                return .signed(Int64(bitPattern: integer() << shift) >> Int64(shift), bytes: length)
            case 3:
                switch length {
                case 2: return .uuid(BluetoothUUID(UInt16(integer())))
                case 4: return .uuid(BluetoothUUID(uint32: UInt32(integer())))
                case 16: return .uuid(BluetoothUUID(full: body))
                default: throw .malformed("a UUID of \(length) bytes", offset: start)
                }
            case 4, 8:
                guard sizeIndex >= 5 else { throw .malformed("text with size index \(sizeIndex)", offset: start) }
                // Service names may end with a NUL.
                let text = String(decoding: body.prefix { $0 != 0 }, as: UTF8.self)
                return type == 4 ? .text(text) : .url(text)
            case 5:
                guard length == 1 else { throw .malformed("a boolean of \(length) bytes", offset: start) }
                return .bool(body[0] != 0)
            case 6, 7:
                guard sizeIndex >= 5 else { throw .malformed("sequence with size index \(sizeIndex)", offset: start) }
                var inner = Reader(body)
                var items: [Element] = []
                while inner.offset < body.count {
                    do { items.append(try inner.element(depth: depth + 1)) } catch {
                        if case .malformed(let what, let at) = error {
                            throw .malformed(what, offset: offset - length + at)
                        }
                        throw error
                    }
                }
                return type == 6 ? .sequence(items) : .alternative(items)
            default:
                throw .malformed("element type \(type) is reserved", offset: start)
            }
        }
    }

    /// One service record: its attributes by id.
    public struct Record: Hashable, Sendable {
        public var attributes: [UInt16: Element]

        public init(attributes: [UInt16: Element]) { self.attributes = attributes }

        public var serviceClasses: [BluetoothUUID] {
            attributes[SDP.serviceClassIDList]?.elements?.compactMap(\.uuid) ?? []
        }

        /// The RFCOMM server channel in the Protocol Descriptor List: ((L2CAP), (RFCOMM, channel)).
        public var rfcommChannel: UInt8? {
            guard let protocols = attributes[SDP.protocolDescriptorList]?.elements else { return nil }
            for descriptor in protocols {
                guard let parts = descriptor.elements, parts.first?.uuid == BluetoothUUID(SDP.rfcommUUID),
                    parts.count >= 2, let channel = parts[1].unsignedValue, (1...30).contains(channel)
                else { continue }
                return UInt8(channel)
            }
            return nil
        }

        public var name: String? {
            if case .text(let name) = attributes[SDP.serviceName] { return name }
            return nil
        }
    }

    /// A Service Search Attribute Request (§4.7) for records with `uuid`, asking for all of their
    /// attributes.
    public static func serviceSearchAttributeRequest(
        uuid: UInt16, transaction: UInt16, maximumBytes: UInt16 = 1024, continuation: [UInt8] = []
    ) -> [UInt8] {
        var parameters = Element.sequence([.uuid(BluetoothUUID(uuid))]).encoded()
        parameters += [UInt8(maximumBytes >> 8), UInt8(maximumBytes & 0xFF)]
        parameters += Element.sequence([.unsigned(0x0000_FFFF, bytes: 4)]).encoded()  // the range 0x0000–0xFFFF
        parameters += [UInt8(continuation.count)] + continuation
        return [0x06, UInt8(transaction >> 8), UInt8(transaction & 0xFF)]
            + [UInt8(parameters.count >> 8), UInt8(parameters.count & 0xFF)] + parameters
    }

    /// One Service Search Attribute Response PDU: its part of the attribute lists and the
    /// continuation state to send back (empty when it was the last part).
    public static func parseResponse(
        _ pdu: [UInt8], transaction: UInt16
    ) throws(Failure) -> (
        part: [UInt8], continuation: [UInt8]
    ) {
        var r = Reader(pdu)
        let header = Array(try r.take(5, "PDU header"))
        let id = header[0]
        let received = UInt16(header[1]) << 8 | UInt16(header[2])
        let length = Int(header[3]) << 8 | Int(header[4])
        guard pdu.count - 5 == length else {
            throw .malformed("parameter length \(length) but \(pdu.count - 5) bytes follow", offset: 3)
        }
        if id == 0x01 {
            let code = Array(try r.take(2, "error code"))
            throw .errorResponse(code: UInt16(code[0]) << 8 | UInt16(code[1]))
        }
        guard id == 0x07, received == transaction else { throw .unexpectedPDU(id: id, transaction: received) }
        let count = try r.take(2, "attribute list byte count").reduce(0) { $0 << 8 | Int($1) }
        let part = Array(try r.take(count, "attribute lists"))
        let continuationLength = Int(try r.take(1, "continuation state length").first!)
        guard continuationLength <= 16 else {
            throw .malformed("continuation state of \(continuationLength) bytes (at most 16)", offset: r.offset - 1)
        }
        let continuation = Array(try r.take(continuationLength, "continuation state"))
        guard r.offset == pdu.count else { throw .malformed("bytes after the continuation state", offset: r.offset) }
        return (part, continuation)
    }

    /// The records in a complete attribute list: a sequence of sequences of (id, value) pairs.
    public static func parseRecords(_ lists: [UInt8]) throws(Failure) -> [Record] {
        var r = Reader(lists)
        guard case .sequence(let records) = try r.element() else {
            throw .malformed("the attribute lists are not a sequence", offset: 0)
        }
        guard r.offset == lists.count else { throw .malformed("bytes after the attribute lists", offset: r.offset) }
        var out: [Record] = []
        for record in records {
            guard case .sequence(let items) = record, items.count % 2 == 0 else {
                throw .malformed("a record that is not a sequence of id–value pairs", offset: 0)
            }
            var attributes: [UInt16: Element] = [:]
            for pair in stride(from: 0, to: items.count, by: 2) {
                guard case .unsigned(let id, 2) = items[pair] else {
                    throw .malformed("an attribute id that is not a 16-bit integer", offset: 0)
                }
                attributes[UInt16(id)] = items[pair + 1]
            }
            out.append(Record(attributes: attributes))
        }
        return out
    }
}
