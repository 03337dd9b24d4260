import SensorCodecs

/// A pairing request the kernel passes to user space on the mgmt socket (BlueZ
/// `doc/mgmt-api.txt`), when no bluetoothd agent answers it. The pack has no screen or keyboard:
/// it answers for the straps it knows, with the PIN they need or a "just works" confirmation,
/// and leaves every other device's request alone.
public enum PairingRequest: Hashable, Sendable {
    /// PIN Code Request (0x000E): a legacy (pre-2.1) device pairs; `secure` asks for 16 digits.
    case pinCode(BluetoothAddress, addressType: UInt8, secure: Bool)
    /// User Confirmation Request (0x000F): Secure Simple Pairing's numeric comparison or just works.
    case confirmation(BluetoothAddress, addressType: UInt8, justWorks: Bool, value: UInt32)
    /// Authentication Failed (0x0011), with the HCI status.
    case failed(BluetoothAddress, status: UInt8)

    public static let pinCodeRequest: UInt16 = 0x000E
    public static let userConfirmationRequest: UInt16 = 0x000F
    public static let authenticationFailed: UInt16 = 0x0011

    /// Reads one mgmt event; `nil` for other events and short ones.
    public init?(event: UInt16, parameters p: [UInt8]) {
        guard p.count >= 7, let address = BluetoothAddress(littleEndian: p[0..<6]) else { return nil }
        switch event {
        case Self.pinCodeRequest where p.count >= 8:
            self = .pinCode(address, addressType: p[6], secure: p[7] != 0)
        case Self.userConfirmationRequest where p.count >= 12:
            let value = UInt32(p[8]) | UInt32(p[9]) << 8 | UInt32(p[10]) << 16 | UInt32(p[11]) << 24
            self = .confirmation(address, addressType: p[6], justWorks: p[7] != 0, value: value)
        case Self.authenticationFailed where p.count >= 8:
            // Address, address type, status.
            self = .failed(address, status: p[7])
        default:
            return nil
        }
    }

    public var address: BluetoothAddress {
        switch self {
        case .pinCode(let a, _, _), .confirmation(let a, _, _, _), .failed(let a, _): a
        }
    }

    /// The reply: (mgmt opcode, parameters). PIN Code Reply 0x0016 carries the length and 16
    /// bytes of PIN; User Confirmation Reply 0x001C. Nothing for a failure, or a PIN that does
    /// not fit.
    public func reply(pin: String?) -> (opcode: UInt16, parameters: [UInt8])? {
        switch self {
        case .pinCode(let address, let type, _):
            guard let pin, !pin.isEmpty, pin.utf8.count <= 16 else { return nil }
            let code = Array(pin.utf8)
            return (
                0x0016,
                address.littleEndian + [type, UInt8(code.count)] + code + Array(repeating: 0, count: 16 - code.count)
            )
        case .confirmation(let address, let type, _, _):
            return (0x001C, address.littleEndian + [type])
        case .failed:
            return nil
        }
    }
}

/// Answers the kernel's pairing requests for the straps `policy` knows (it returns the PIN to
/// use, `""` for a strap that needs none); stays silent for other devices so that a desktop's
/// bluetoothd agent, if there is one, answers them. Runs until `stop` returns true.
public enum PairingResponder {
    public static func run(
        policy: (BluetoothAddress) -> String?, stop: () -> Bool, log: (String) -> Void
    ) throws(BlueZError) {
        let socket = try ManagementSocket()
        while !stop() {
            guard let event = try socket.nextEvent(timeout: 0.25),
                let request = PairingRequest(event: event.code, parameters: event.parameters)
            else { continue }
            if case .failed(let address, let status) = request {
                log(
                    "pairing with \(address) failed (HCI status 0x\(String(status, radix: 16))): wrong PIN, or the strap was not in pairing mode"
                )
                continue
            }
            guard let pin = policy(request.address) else { continue }
            guard let (opcode, parameters) = request.reply(pin: pin) else {
                log("\(request.address) asks for a PIN and none is set: pair it with --pin")
                continue
            }
            try socket.write(opcode: opcode, index: event.index, parameters)
            switch request {
            case .pinCode: log("answered \(request.address)'s PIN request")
            case .confirmation: log("confirmed pairing with \(request.address)")
            case .failed: break
            }
        }
    }
}
