import SensorCodecs

/// A primary service found by discovery (Core 5.4 Vol 3 Part G §4.4.1).
public struct GATTService: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var startHandle: UInt16
    public var endHandle: UInt16

    public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
    }
}

/// Characteristic properties (Core 5.4 Vol 3 Part G §3.3.1.1).
public struct GATTProperties: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = Self(rawValue: 0x01)
    public static let read = Self(rawValue: 0x02)
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    public static let write = Self(rawValue: 0x08)
    public static let notify = Self(rawValue: 0x10)
    public static let indicate = Self(rawValue: 0x20)
}

/// A characteristic found by discovery (§4.6.1), with the last handle that belongs to it (its
/// descriptors lie between its value handle and that).
public struct GATTCharacteristic: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var declarationHandle: UInt16
    public var valueHandle: UInt16
    public var properties: GATTProperties
    public var endHandle: UInt16

    public init(
        uuid: BluetoothUUID, declarationHandle: UInt16, valueHandle: UInt16, properties: GATTProperties,
        endHandle: UInt16
    ) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
    }
}

/// A characteristic descriptor (§4.7.1).
public struct GATTDescriptor: Hashable, Sendable {
    public var handle: UInt16
    public var uuid: BluetoothUUID

    public init(handle: UInt16, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }
}

/// A value the server pushed: a notification, or an indication (already confirmed).
public struct GATTValue: Hashable, Sendable {
    public var handle: UInt16
    public var value: [UInt8]
    public var isIndication: Bool

    public init(handle: UInt16, value: [UInt8], isIndication: Bool = false) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
    }
}

/// Why a GATT procedure failed.
public enum GATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered with an Error Response.
    case att(ATTErrorCode, request: ATTOpcode, handle: UInt16)
    /// No response within the ATT transaction timeout (30 s, Core Vol 3 Part F §3.3.3): the
    /// bearer must not be used again.
    case timeout(request: ATTOpcode, seconds: Double)
    /// The bearer failed (the link dropped).
    case bearer(ATTBearerError)
    /// The server's response to `request` could not be decoded.
    case malformedResponse(request: ATTOpcode, ATTDecodeError)
    /// The server broke the procedure's rules (a discovery that does not advance, say).
    case protocolViolation(String)
    /// The characteristic cannot notify or indicate, or has no configuration descriptor.
    case cannotSubscribe(BluetoothUUID)

    /// Whether this is the server's Error Response with `code`.
    public func isATT(_ code: ATTErrorCode) -> Bool {
        if case .att(code, _, _) = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .att(let code, let request, let handle):
            "the sensor refused \(request) on handle 0x\(String(handle, radix: 16)): \(code)"
        case .timeout(let request, let seconds):
            "the sensor did not answer \(request) within \(Int(seconds)) s"
        case .bearer(let error): "the link failed: \(error)"
        case .malformedResponse(let request, let error): "the sensor's reply to \(request) is malformed: \(error)"
        case .protocolViolation(let what): "the sensor broke the GATT rules: \(what)"
        case .cannotSubscribe(let uuid): "characteristic \(uuid) cannot notify or indicate"
        }
    }
}
