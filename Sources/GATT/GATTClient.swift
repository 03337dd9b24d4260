import SensorCodecs

/// A GATT client over one ATT bearer: MTU exchange, discovery of primary services,
/// characteristics and descriptors, reads (long ones with Read Blob), writes, subscriptions, and
/// the notifications and indications that follow (Core 5.4 Vol 3 Part G §4).
///
/// Synchronous on purpose: a pack's sensor runs on a thread of its own with blocking reads, and
/// one ATT request is outstanding at a time anyway (Part F §3.3.2). Values the server pushes while
/// a procedure waits for its response are queued (indications confirmed at once) and handed out
/// by `nextValue(timeout:)` in the order they came. Requests the server sends us are answered:
/// this client has no attributes of its own.
public final class GATTClient {
    public let bearer: any ATTBearer
    /// How long a request may wait for its response before the bearer is given up (30 s).
    public let transactionTimeout: Double
    /// The MTU this client asks for; the effective one is `mtu`.
    public let preferredMTU: UInt16
    /// The ATT_MTU both sides agreed (23 until an exchange).
    public private(set) var mtu: UInt16 = 23
    /// PDUs that could not be decoded, or responses nobody asked for: counted and dropped.
    public private(set) var malformedPDUs = 0
    /// Pushed values dropped because nobody took them (the queue holds `queueLimit`).
    public private(set) var droppedValues = 0
    public let queueLimit = 256

    private var queue: [GATTValue] = []
    private var queueHead = 0
    /// Set when a transaction timed out or the bearer failed: every later call fails with it.
    private var failure: GATTError?
    private let now: () -> Double

    /// - Parameter now: a monotonic clock in seconds, for deadlines (tests pass their own).
    public init(
        bearer: any ATTBearer, transactionTimeout: Double = 30, preferredMTU: UInt16 = 247,
        now: @escaping () -> Double
    ) {
        self.bearer = bearer
        self.transactionTimeout = transactionTimeout
        self.preferredMTU = max(23, preferredMTU)
        self.now = now
    }

    // MARK: Procedures

    /// Exchange MTU (§4.3.1). A server that does not support it leaves the MTU at 23.
    @discardableResult
    public func exchangeMTU() throws(GATTError) -> UInt16 {
        do throws(GATTError) {
            let response = try transact(.exchangeMTURequest(mtu: preferredMTU))
            guard case .exchangeMTUResponse(let serverMTU) = response else { throw unexpected(response) }
            mtu = max(23, min(preferredMTU, serverMTU))
        } catch let error where error.isATT(.requestNotSupported) {
            mtu = 23
        }
        return mtu
    }

    /// Discover All Primary Services (§4.4.1).
    public func discoverPrimaryServices() throws(GATTError) -> [GATTService] {
        var services: [GATTService] = []
        var start: UInt16 = 0x0001
        while true {
            let response: ATTPDU
            do throws(GATTError) {
                response = try transact(.readByGroupTypeRequest(start: start, end: 0xFFFF, type: .primaryService))
            } catch let error where error.isATT(.attributeNotFound) {
                break
            }
            guard case .readByGroupTypeResponse(let groups) = response else { throw unexpected(response) }
            var last: UInt16 = 0
            for (first, end, value) in groups {
                guard first >= start, end >= first, let uuid = BluetoothUUID(littleEndian: value) else {
                    throw .protocolViolation("service group \(first)–\(end) is out of order or has a bad UUID")
                }
                services.append(GATTService(uuid: uuid, startHandle: first, endHandle: end))
                last = end
            }
            if last == 0xFFFF { break }
            start = last + 1
        }
        return services
    }

    /// Discover All Characteristics of a Service (§4.6.1).
    public func discoverCharacteristics(of service: GATTService) throws(GATTError) -> [GATTCharacteristic] {
        var found: [GATTCharacteristic] = []
        var start = service.startHandle
        while start <= service.endHandle {
            let response: ATTPDU
            do throws(GATTError) {
                response = try transact(
                    .readByTypeRequest(start: start, end: service.endHandle, type: .characteristicDeclaration))
            } catch let error where error.isATT(.attributeNotFound) {
                break
            }
            guard case .readByTypeResponse(let entries) = response else { throw unexpected(response) }
            var last: UInt16 = 0
            for (handle, value) in entries {
                guard handle >= start, handle <= service.endHandle, value.count == 5 || value.count == 19,
                    let uuid = BluetoothUUID(littleEndian: value[3...])
                else {
                    throw .protocolViolation(
                        "characteristic declaration at 0x\(String(handle, radix: 16)) is malformed")
                }
                let valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
                found.append(
                    GATTCharacteristic(
                        uuid: uuid, declarationHandle: handle, valueHandle: valueHandle,
                        properties: GATTProperties(rawValue: value[0]), endHandle: service.endHandle))
                last = handle
            }
            if last == 0xFFFF { break }
            start = last + 1
        }
        for i in found.indices.dropLast() { found[i].endHandle = found[i + 1].declarationHandle - 1 }
        return found
    }

    /// Discover All Characteristic Descriptors (§4.7.1).
    public func discoverDescriptors(of characteristic: GATTCharacteristic) throws(GATTError) -> [GATTDescriptor] {
        var found: [GATTDescriptor] = []
        guard characteristic.valueHandle < characteristic.endHandle else { return found }
        var start = characteristic.valueHandle + 1
        while start <= characteristic.endHandle {
            let response: ATTPDU
            do throws(GATTError) {
                response = try transact(.findInformationRequest(start: start, end: characteristic.endHandle))
            } catch let error where error.isATT(.attributeNotFound) {
                break
            }
            guard case .findInformationResponse(let entries) = response else { throw unexpected(response) }
            var last: UInt16 = 0
            for (handle, uuid) in entries {
                guard handle >= start, handle <= characteristic.endHandle else {
                    throw .protocolViolation("descriptor handle 0x\(String(handle, radix: 16)) is outside the request")
                }
                found.append(GATTDescriptor(handle: handle, uuid: uuid))
                last = handle
            }
            if last == 0xFFFF { break }
            start = last + 1
        }
        return found
    }

    /// Read Characteristic Value (§4.8.1), continued with Read Blob while the value fills the MTU
    /// (Read Long Characteristic Values, §4.8.3).
    public func read(_ handle: UInt16) throws(GATTError) -> [UInt8] {
        let response = try transact(.readRequest(handle: handle))
        guard case .readResponse(var value) = response else { throw unexpected(response) }
        while value.count >= Int(mtu) - 1, value.count < 512 {
            let blob: ATTPDU
            do throws(GATTError) {
                blob = try transact(.readBlobRequest(handle: handle, offset: UInt16(value.count)))
            } catch let error where error.isATT(.attributeNotLong) {
                break
            } catch let error where error.isATT(.invalidOffset) {
                break
            }
            guard case .readBlobResponse(let part) = blob else { throw unexpected(blob) }
            value += part
            if part.count < Int(mtu) - 1 { break }
        }
        return value
    }

    /// Write Characteristic Value (§4.9.3).
    public func write(_ handle: UInt16, _ value: [UInt8]) throws(GATTError) {
        let response = try transact(.writeRequest(handle: handle, value: value))
        guard case .writeResponse = response else { throw unexpected(response) }
    }

    /// Turns on notifications (or indications, when the characteristic only indicates) by writing
    /// its Client Characteristic Configuration descriptor (§4.10, §4.11).
    @discardableResult
    public func subscribe(_ characteristic: GATTCharacteristic) throws(GATTError) -> GATTDescriptor {
        let bits: [UInt8]
        if characteristic.properties.contains(.notify) {
            bits = [0x01, 0x00]
        } else if characteristic.properties.contains(.indicate) {
            bits = [0x02, 0x00]
        } else {
            throw .cannotSubscribe(characteristic.uuid)
        }
        guard
            let cccd = try discoverDescriptors(of: characteristic).first(where: {
                $0.uuid == .clientCharacteristicConfiguration
            })
        else { throw .cannotSubscribe(characteristic.uuid) }
        try write(cccd.handle, bits)
        return cccd
    }

    /// The next notified or indicated value, queued ones first; `nil` when none came within
    /// `timeout` seconds.
    public func nextValue(timeout: Double) throws(GATTError) -> GATTValue? {
        if let value = dequeue() { return value }
        if let failure { throw failure }
        let deadline = now() + timeout
        while true {
            let left = deadline - now()
            guard left > 0 else { return nil }
            let bytes: [UInt8]?
            do { bytes = try bearer.receive(timeout: left) } catch { throw fail(.bearer(error)) }
            guard let bytes else { return nil }
            _ = try handleIncoming(bytes, awaiting: nil)
            if let value = dequeue() { return value }
        }
    }

    // MARK: Transactions

    /// Sends a request and waits for its response or error, taking care of everything else that
    /// arrives meanwhile.
    func transact(_ request: ATTPDU) throws(GATTError) -> ATTPDU {
        if let failure { throw failure }
        do { try bearer.send(request.encoded()) } catch { throw fail(.bearer(error)) }
        let deadline = now() + transactionTimeout
        while true {
            let left = deadline - now()
            guard left > 0 else { throw fail(.timeout(request: request.opcode, seconds: transactionTimeout)) }
            let bytes: [UInt8]?
            do { bytes = try bearer.receive(timeout: left) } catch { throw fail(.bearer(error)) }
            guard let bytes else { continue }
            if let response = try handleIncoming(bytes, awaiting: request.opcode) {
                if case .errorResponse(_, let handle, let code) = response {
                    throw .att(code, request: request.opcode, handle: handle)
                }
                return response
            }
        }
    }

    /// Handles one incoming PDU. Returns it when it answers `awaiting`.
    private func handleIncoming(_ bytes: [UInt8], awaiting: ATTOpcode?) throws(GATTError) -> ATTPDU? {
        let pdu: ATTPDU
        do { pdu = try ATTPDU(decoding: bytes) } catch {
            let opcode = ATTOpcode(rawValue: bytes.first ?? 0)
            if let awaiting, opcode == Self.responseOpcode(for: awaiting) {
                throw .malformedResponse(request: awaiting, error)
            }
            malformedPDUs += 1
            return nil
        }
        switch pdu {
        case .notification(let handle, let value):
            enqueue(GATTValue(handle: handle, value: value))
        case .indication(let handle, let value):
            enqueue(GATTValue(handle: handle, value: value, isIndication: true))
            do { try bearer.send(ATTPDU.confirmation.encoded()) } catch { throw fail(.bearer(error)) }
        case .errorResponse(let request, _, _):
            if let awaiting, request == awaiting { return pdu }
            malformedPDUs += 1
        default:
            if let awaiting, pdu.opcode == Self.responseOpcode(for: awaiting) { return pdu }
            if pdu.opcode.isResponse || pdu.opcode == .handleValueConfirmation {
                malformedPDUs += 1  // a response to nothing we asked
            } else if !pdu.opcode.isCommand {
                try answer(pdu)
            }
        }
        return nil
    }

    /// Answers a request from the server: MTU exchanges get our MTU; discovery finds nothing (this
    /// client holds no attributes); anything else is not supported. Left unanswered, a request
    /// would make the peripheral drop the link after its own 30-second timeout.
    private func answer(_ request: ATTPDU) throws(GATTError) {
        let reply: ATTPDU
        switch request {
        case .exchangeMTURequest(let clientMTU):
            mtu = max(23, min(preferredMTU, clientMTU))
            reply = .exchangeMTUResponse(mtu: preferredMTU)
        case .readByGroupTypeRequest(let start, _, _), .readByTypeRequest(let start, _, _),
            .findInformationRequest(let start, _):
            reply = .errorResponse(request: request.opcode, handle: start, code: .attributeNotFound)
        case .other(let opcode, _) where opcode == .findByTypeValueRequest:
            reply = .errorResponse(request: opcode, handle: 0, code: .attributeNotFound)
        case .readRequest(let handle), .readBlobRequest(let handle, _), .writeRequest(let handle, _):
            reply = .errorResponse(request: request.opcode, handle: handle, code: .invalidHandle)
        default:
            reply = .errorResponse(request: request.opcode, handle: 0, code: .requestNotSupported)
        }
        do { try bearer.send(reply.encoded()) } catch { throw fail(.bearer(error)) }
    }

    static func responseOpcode(for request: ATTOpcode) -> ATTOpcode {
        ATTOpcode(rawValue: request.rawValue + 1)
    }

    private func unexpected(_ pdu: ATTPDU) -> GATTError {
        .protocolViolation("unexpected \(pdu.opcode)")
    }

    private func fail(_ error: GATTError) -> GATTError {
        failure = error
        return error
    }

    private func enqueue(_ value: GATTValue) {
        if queue.count - queueHead >= queueLimit {
            queueHead += 1
            droppedValues += 1
        }
        queue.append(value)
    }

    private func dequeue() -> GATTValue? {
        guard queueHead < queue.count else { return nil }
        let value = queue[queueHead]
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        return value
    }
}
