import SensorCodecs

/// An ATT opcode (Core 5.4 Vol 3 Part F §3.4.8). An open set: unknown opcodes still decode.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = Self(rawValue: 0x01)
    public static let exchangeMTURequest = Self(rawValue: 0x02)
    public static let exchangeMTUResponse = Self(rawValue: 0x03)
    public static let findInformationRequest = Self(rawValue: 0x04)
    public static let findInformationResponse = Self(rawValue: 0x05)
    public static let findByTypeValueRequest = Self(rawValue: 0x06)
    public static let readByTypeRequest = Self(rawValue: 0x08)
    public static let readByTypeResponse = Self(rawValue: 0x09)
    public static let readRequest = Self(rawValue: 0x0A)
    public static let readResponse = Self(rawValue: 0x0B)
    public static let readBlobRequest = Self(rawValue: 0x0C)
    public static let readBlobResponse = Self(rawValue: 0x0D)
    public static let readByGroupTypeRequest = Self(rawValue: 0x10)
    public static let readByGroupTypeResponse = Self(rawValue: 0x11)
    public static let writeRequest = Self(rawValue: 0x12)
    public static let writeResponse = Self(rawValue: 0x13)
    public static let handleValueNotification = Self(rawValue: 0x1B)
    public static let handleValueIndication = Self(rawValue: 0x1D)
    public static let handleValueConfirmation = Self(rawValue: 0x1E)
    public static let writeCommand = Self(rawValue: 0x52)

    /// Bit 6: a command, which gets no response (§3.3.1).
    public var isCommand: Bool { rawValue & 0x40 != 0 }

    /// Whether a server sends this in reply to a request.
    public var isResponse: Bool {
        switch self {
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .readByTypeResponse, .readResponse,
            .readBlobResponse, .readByGroupTypeResponse, .writeResponse, Self(rawValue: 0x07), Self(rawValue: 0x0F),
            Self(rawValue: 0x17), Self(rawValue: 0x19), Self(rawValue: 0x21):
            true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .errorResponse: "Error Response"
        case .exchangeMTURequest: "Exchange MTU Request"
        case .exchangeMTUResponse: "Exchange MTU Response"
        case .findInformationRequest: "Find Information Request"
        case .findInformationResponse: "Find Information Response"
        case .readByTypeRequest: "Read By Type Request"
        case .readByTypeResponse: "Read By Type Response"
        case .readRequest: "Read Request"
        case .readResponse: "Read Response"
        case .readBlobRequest: "Read Blob Request"
        case .readBlobResponse: "Read Blob Response"
        case .readByGroupTypeRequest: "Read By Group Type Request"
        case .readByGroupTypeResponse: "Read By Group Type Response"
        case .writeRequest: "Write Request"
        case .writeResponse: "Write Response"
        case .handleValueNotification: "Handle Value Notification"
        case .handleValueIndication: "Handle Value Indication"
        case .handleValueConfirmation: "Handle Value Confirmation"
        case .writeCommand: "Write Command"
        default: "ATT opcode 0x\(Hex.encode([rawValue]))"
        }
    }
}

/// An ATT error code (Core 5.4 Vol 3 Part F §3.4.1.1, and CSS Part B for the common profile
/// codes). An open set.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = Self(rawValue: 0x01)
    public static let readNotPermitted = Self(rawValue: 0x02)
    public static let writeNotPermitted = Self(rawValue: 0x03)
    public static let invalidPDU = Self(rawValue: 0x04)
    public static let insufficientAuthentication = Self(rawValue: 0x05)
    public static let requestNotSupported = Self(rawValue: 0x06)
    public static let invalidOffset = Self(rawValue: 0x07)
    public static let insufficientAuthorization = Self(rawValue: 0x08)
    public static let attributeNotFound = Self(rawValue: 0x0A)
    public static let attributeNotLong = Self(rawValue: 0x0B)
    public static let insufficientEncryptionKeySize = Self(rawValue: 0x0C)
    public static let invalidAttributeValueLength = Self(rawValue: 0x0D)
    public static let unlikelyError = Self(rawValue: 0x0E)
    public static let insufficientEncryption = Self(rawValue: 0x0F)
    public static let unsupportedGroupType = Self(rawValue: 0x10)
    public static let insufficientResources = Self(rawValue: 0x11)
    public static let cccdImproperlyConfigured = Self(rawValue: 0xFD)

    /// The peripheral wants a paired (encrypted) link before it answers.
    public var needsSecurity: Bool {
        [.insufficientAuthentication, .insufficientEncryption, .insufficientEncryptionKeySize].contains(self)
    }

    public var description: String {
        switch self {
        case .invalidHandle: "invalid handle"
        case .readNotPermitted: "read not permitted"
        case .writeNotPermitted: "write not permitted"
        case .invalidPDU: "invalid PDU"
        case .insufficientAuthentication: "insufficient authentication"
        case .requestNotSupported: "request not supported"
        case .invalidOffset: "invalid offset"
        case .insufficientAuthorization: "insufficient authorization"
        case .attributeNotFound: "attribute not found"
        case .attributeNotLong: "attribute not long"
        case .insufficientEncryptionKeySize: "insufficient encryption key size"
        case .invalidAttributeValueLength: "invalid attribute value length"
        case .unlikelyError: "unlikely error"
        case .insufficientEncryption: "insufficient encryption"
        case .unsupportedGroupType: "unsupported group type"
        case .insufficientResources: "insufficient resources"
        case .cccdImproperlyConfigured: "client characteristic configuration descriptor improperly configured"
        default: "ATT error 0x\(Hex.encode([rawValue]))"
        }
    }
}

/// One ATT PDU as the GATT client sends or receives it. Each case decodes and encodes itself;
/// every length is checked (`ATTDecodeError`), so no input can trap.
public enum ATTPDU: Hashable, Sendable {
    case errorResponse(request: ATTOpcode, handle: UInt16, code: ATTErrorCode)
    case exchangeMTURequest(mtu: UInt16)
    case exchangeMTUResponse(mtu: UInt16)
    case findInformationRequest(start: UInt16, end: UInt16)
    /// Handle–UUID pairs.
    case findInformationResponse([(UInt16, BluetoothUUID)])
    case readByTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    /// Handle–value pairs, all values of one length.
    case readByTypeResponse([(UInt16, [UInt8])])
    case readRequest(handle: UInt16)
    case readResponse([UInt8])
    case readBlobRequest(handle: UInt16, offset: UInt16)
    case readBlobResponse([UInt8])
    case readByGroupTypeRequest(start: UInt16, end: UInt16, type: BluetoothUUID)
    /// Start handle, end handle and value (a service UUID) per group.
    case readByGroupTypeResponse([(UInt16, UInt16, [UInt8])])
    case writeRequest(handle: UInt16, value: [UInt8])
    case writeResponse
    case writeCommand(handle: UInt16, value: [UInt8])
    case notification(handle: UInt16, value: [UInt8])
    case indication(handle: UInt16, value: [UInt8])
    case confirmation
    /// A PDU this client neither sends nor handles specially (a server's request to us, say).
    case other(opcode: ATTOpcode, parameters: [UInt8])

    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: .errorResponse
        case .exchangeMTURequest: .exchangeMTURequest
        case .exchangeMTUResponse: .exchangeMTUResponse
        case .findInformationRequest: .findInformationRequest
        case .findInformationResponse: .findInformationResponse
        case .readByTypeRequest: .readByTypeRequest
        case .readByTypeResponse: .readByTypeResponse
        case .readRequest: .readRequest
        case .readResponse: .readResponse
        case .readBlobRequest: .readBlobRequest
        case .readBlobResponse: .readBlobResponse
        case .readByGroupTypeRequest: .readByGroupTypeRequest
        case .readByGroupTypeResponse: .readByGroupTypeResponse
        case .writeRequest: .writeRequest
        case .writeResponse: .writeResponse
        case .writeCommand: .writeCommand
        case .notification: .handleValueNotification
        case .indication: .handleValueIndication
        case .confirmation: .handleValueConfirmation
        case .other(let opcode, _): opcode
        }
    }

    public static func == (a: ATTPDU, b: ATTPDU) -> Bool { a.encoded() == b.encoded() }
    public func hash(into hasher: inout Hasher) { hasher.combine(encoded()) }
}

/// Why bytes are not a well-formed ATT PDU.
public enum ATTDecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case truncated(opcode: ATTOpcode, needed: Int, have: Int)
    /// A list response whose entries do not fill it evenly, or with a length field that cannot be.
    case badListLength(opcode: ATTOpcode, entryLength: Int, total: Int)
    case badUUIDFormat(UInt8)

    public var description: String {
        switch self {
        case .empty: "an empty ATT PDU"
        case .truncated(let opcode, let needed, let have):
            "\(opcode) needs \(needed) bytes after its opcode, has \(have)"
        case .badListLength(let opcode, let entryLength, let total):
            "\(opcode) has \(total) bytes of entries, which entries of \(entryLength) bytes cannot fill"
        case .badUUIDFormat(let format): "Find Information Response has UUID format \(format) (only 1 and 2 exist)"
        }
    }
}

extension ATTPDU {
    public init(decoding pdu: [UInt8]) throws(ATTDecodeError) {
        guard let first = pdu.first else { throw .empty }
        let opcode = ATTOpcode(rawValue: first)
        let p = Array(pdu.dropFirst())
        func need(_ n: Int) throws(ATTDecodeError) {
            if p.count < n { throw .truncated(opcode: opcode, needed: n, have: p.count) }
        }
        func u16(_ i: Int) -> UInt16 { UInt16(p[i]) | UInt16(p[i + 1]) << 8 }
        switch opcode {
        case .errorResponse:
            try need(4)
            self = .errorResponse(
                request: ATTOpcode(rawValue: p[0]), handle: u16(1), code: ATTErrorCode(rawValue: p[3]))
        case .exchangeMTURequest:
            try need(2)
            self = .exchangeMTURequest(mtu: u16(0))
        case .exchangeMTUResponse:
            try need(2)
            self = .exchangeMTUResponse(mtu: u16(0))
        case .findInformationRequest:
            try need(4)
            self = .findInformationRequest(start: u16(0), end: u16(2))
        case .findInformationResponse:
            try need(1)
            let width: Int
            switch p[0] {
            case 1: width = 2
            case 2: width = 16
            default: throw .badUUIDFormat(p[0])
            }
            let entries = p.count - 1
            guard entries > 0, entries % (2 + width) == 0 else {
                throw .badListLength(opcode: opcode, entryLength: 2 + width, total: entries)
            }
            var list: [(UInt16, BluetoothUUID)] = []
            var i = 1
            while i < p.count {
                list.append((u16(i), BluetoothUUID(littleEndian: p[(i + 2)..<(i + 2 + width)])!))
                i += 2 + width
            }
            self = .findInformationResponse(list)
        case .readByTypeRequest, .readByGroupTypeRequest:
            try need(6)
            guard let uuid = BluetoothUUID(littleEndian: p[4...]), p.count == 6 || p.count == 20 else {
                throw .truncated(opcode: opcode, needed: p.count < 20 ? 20 : 6, have: p.count)
            }
            self =
                opcode == .readByTypeRequest
                ? .readByTypeRequest(start: u16(0), end: u16(2), type: uuid)
                : .readByGroupTypeRequest(start: u16(0), end: u16(2), type: uuid)
        case .readByTypeResponse:
            try need(1)
            let length = Int(p[0])
            let entries = p.count - 1
            guard length >= 2, entries > 0, entries % length == 0 else {
                throw .badListLength(opcode: opcode, entryLength: length, total: entries)
            }
            var list: [(UInt16, [UInt8])] = []
            var i = 1
            while i < p.count {
                list.append((u16(i), Array(p[(i + 2)..<(i + length)])))
                i += length
            }
            self = .readByTypeResponse(list)
        case .readRequest:
            try need(2)
            self = .readRequest(handle: u16(0))
        case .readResponse: self = .readResponse(p)
        case .readBlobRequest:
            try need(4)
            self = .readBlobRequest(handle: u16(0), offset: u16(2))
        case .readBlobResponse: self = .readBlobResponse(p)
        case .readByGroupTypeResponse:
            try need(1)
            let length = Int(p[0])
            let entries = p.count - 1
            guard length >= 4, entries > 0, entries % length == 0 else {
                throw .badListLength(opcode: opcode, entryLength: length, total: entries)
            }
            var list: [(UInt16, UInt16, [UInt8])] = []
            var i = 1
            while i < p.count {
                list.append((u16(i), u16(i + 2), Array(p[(i + 4)..<(i + length)])))
                i += length
            }
            self = .readByGroupTypeResponse(list)
        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication:
            try need(2)
            let value = Array(p[2...])
            switch opcode {
            case .writeRequest: self = .writeRequest(handle: u16(0), value: value)
            case .writeCommand: self = .writeCommand(handle: u16(0), value: value)
            case .handleValueNotification: self = .notification(handle: u16(0), value: value)
            default: self = .indication(handle: u16(0), value: value)
            }
        case .writeResponse: self = .writeResponse
        case .handleValueConfirmation: self = .confirmation
        default: self = .other(opcode: opcode, parameters: p)
        }
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = [opcode.rawValue]
        func u16(_ v: UInt16) {
            out.append(UInt8(v & 0xFF))
            out.append(UInt8(v >> 8))
        }
        switch self {
        case .errorResponse(let request, let handle, let code):
            out.append(request.rawValue)
            u16(handle)
            out.append(code.rawValue)
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu): u16(mtu)
        case .findInformationRequest(let start, let end):
            u16(start)
            u16(end)
        case .findInformationResponse(let list):
            let wide = list.contains { $0.1.short == nil }
            out.append(wide ? 2 : 1)
            for (handle, uuid) in list {
                u16(handle)
                out.append(contentsOf: wide ? uuid.bytes.reversed() : uuid.littleEndian)
            }
        case .readByTypeRequest(let start, let end, let type), .readByGroupTypeRequest(let start, let end, let type):
            u16(start)
            u16(end)
            out.append(contentsOf: type.littleEndian)
        case .readByTypeResponse(let list):
            out.append(UInt8(2 + (list.first?.1.count ?? 0)))
            for (handle, value) in list {
                u16(handle)
                out.append(contentsOf: value)
            }
        case .readRequest(let handle): u16(handle)
        case .readResponse(let value), .readBlobResponse(let value): out.append(contentsOf: value)
        case .readBlobRequest(let handle, let offset):
            u16(handle)
            u16(offset)
        case .readByGroupTypeResponse(let list):
            out.append(UInt8(4 + (list.first?.2.count ?? 0)))
            for (start, end, value) in list {
                u16(start)
                u16(end)
                out.append(contentsOf: value)
            }
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value),
            .notification(let handle, let value), .indication(let handle, let value):
            u16(handle)
            out.append(contentsOf: value)
        case .writeResponse, .confirmation: break
        case .other(_, let parameters): out.append(contentsOf: parameters)
        }
        return out
    }
}
