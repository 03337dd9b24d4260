import Foundation

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

/// Why talking to the store failed, and what comes next.
public struct SyncFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Action: String, Sendable, Hashable {
        /// Network trouble, a timeout, a 5xx: try again later by itself.
        case retry
        /// The store refused this run or request (4xx): a person must look.
        case needsPerson = "needs_person"
        /// The store no longer accepts the pack's token: link again.
        case unlinked
    }

    /// What went wrong, as the worker and the person who asked tell failures apart.
    public enum Cause: Sendable, Hashable {
        /// The store did not answer: no route, refused, reset, timed out, TLS.
        case unreachable
        /// handoffd is stopping: not the store's fault, and not worth a retry time.
        case cancelled
        /// A 5xx, or an answer that is not a Handoff store's.
        case storeFailed
        /// The store asked to wait (408, 425, 429).
        case busy
        /// The store refused the request (a 4xx), or what a person gave cannot work.
        case refused
        /// The store no longer accepts the pack's link (401, 403).
        case unlinked
        /// The pack could not make what it meant to send (the run, the link file).
        case pack
    }

    public var cause: Cause
    public var code: String
    public var message: String
    /// What happened, without what the worker does next ("; trying again later"): the sentence
    /// a person who asked for this attempt reads.
    public var what: String
    /// The store's Retry-After, in seconds.
    public var retryAfter: Double?

    public init(_ cause: Cause, code: String, message: String, what: String? = nil, retryAfter: Double? = nil) {
        self.cause = cause
        self.code = code
        self.message = message
        self.what = what ?? message
        self.retryAfter = retryAfter
    }

    public var action: Action {
        switch cause {
        case .unreachable, .cancelled, .storeFailed, .busy: .retry
        case .refused, .pack: .needsPerson
        case .unlinked: .unlinked
        }
    }

    public var description: String { message }

    /// A transport error (no route, refused, reset, timed out, TLS) in words.
    static func network(_ error: any Error, store: URL) -> SyncFailure {
        let nsError = error as NSError
        let host = store.host ?? store.absoluteString
        let what: String
        var code = "network"
        switch nsError.code {
        case NSURLErrorTimedOut:
            what = "the store did not answer in time"
            code = "timeout"
        case NSURLErrorCannotConnectToHost: what = "nothing answers at \(host)"
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: what = "\(host) cannot be found (DNS)"
        case NSURLErrorNetworkConnectionLost: what = "the connection to \(host) broke"
        case NSURLErrorNotConnectedToInternet: what = "the pack has no network"
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted,
            NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateNotYetValid,
            NSURLErrorServerCertificateHasUnknownRoot:
            what = "the TLS connection to \(host) failed (is the pack's clock right, and the certificate valid?)"
            code = "tls"
        default:
            what = "the request to \(host) failed"
        }
        let detail =
            (nsError.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription
            ?? nsError.localizedDescription
        return SyncFailure(
            .unreachable, code: code, message: "\(what) (\(detail)); trying again later", what: "\(what) (\(detail))")
    }
}
