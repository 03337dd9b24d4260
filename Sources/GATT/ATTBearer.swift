/// The channel ATT PDUs travel on: an L2CAP LE socket on CID 4 in the pack, one end of a
/// `socketpair` in tests. One PDU per send and per receive (the channel keeps PDU boundaries).
///
/// The GATT client takes a bearer it does not own the file descriptor of, in the manner of
/// BlueZ's `bt_att`: the caller opens it, passes it in and closes it.
public protocol ATTBearer: AnyObject {
    /// Sends one PDU.
    func send(_ pdu: [UInt8]) throws(ATTBearerError)
    /// Waits up to `timeout` seconds for the next PDU; `nil` when none came in that time.
    func receive(timeout: Double) throws(ATTBearerError) -> [UInt8]?
}

/// The bearer failed: the link is gone or the socket refused. `errno` is the system's error
/// number when there is one, so that a supervisor can tell a supervision timeout from a
/// remote disconnect.
public struct ATTBearerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var errno: Int32
    public var message: String

    public init(errno: Int32, message: String) {
        self.errno = errno
        self.message = message
    }

    public var description: String { message }
}
