/// Why a sync request (link, baton, home networks, deleting from the store) failed: a code a
/// script can test and a sentence a person can act on. PackService answers it on the control
/// socket as a control error with the same code and message.
public struct SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
