import Logging
import NIOCore
import PostgresNIO

/// The store's PostgreSQL connections: at most `limit` open, idle ones reused last-in first-out,
/// tasks waiting for one served first-come first-served.
///
/// It fails fast rather than queue: when a connection cannot be opened, the pool is *down*, and
/// until one can, every request that needs a new connection fails at once with
/// `SQLError.unavailable` (the API's 503 with Retry-After). While down it tries the server at most
/// once per `retryInterval`, on a request's behalf, so the first request after the server returns
/// brings it back. A waiter gives up after `leaseTimeout`. (PostgresNIO's own pool queued requests
/// for a minute when the server was gone, which held SIGTERM up as long.)
actor PostgresPool {
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    /// `host:port/database`, for messages.
    let endpoint: String
    private let limit: Int
    private let leaseTimeout: Duration
    private static let retryInterval: Duration = .milliseconds(250)
    /// How long a request waits for a lent connection while the server is down (a 503 within 2 s).
    private static let downWait: Duration = .milliseconds(1500)
    private var idle: [PostgresConnection] = []
    /// Connections open or being opened, idle and lent ones.
    private var count = 0
    private var waiters: [Waiter] = []
    private var down: Outage?
    private var nextID = 1
    private var closed = false
    /// Whether a connection ever opened: before that, a failure is the caller's to report (the
    /// store's start prints it as one sentence), not an outage to log.
    private var reached = false

    /// A task waiting for a connection: it gets one, or nil when a slot is free for it to open one.
    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<PostgresConnection?, any Error>
        let deadline: Task<Void, Never>
    }

    private struct Outage {
        let since: ContinuousClock.Instant
        var lastTry: ContinuousClock.Instant
        var error: SQLError
    }

    init(
        configuration: PostgresConnection.Configuration, endpoint: String, logger: Logger, limit: Int = 20,
        leaseTimeout: Duration = .seconds(10)
    ) {
        self.configuration = configuration
        self.endpoint = endpoint
        self.logger = logger
        self.limit = limit
        self.leaseTimeout = leaseTimeout
    }

    /// A connection for one transaction; give it back with `release`. `fresh` skips the idle ones
    /// (after one of them turned out dead).
    ///
    /// While the server is down, a request opens a connection only when a retry is due or no
    /// connection is out; otherwise, and when its own connect fails while connections are out, it
    /// waits for one of those, `downWait` at most in all: a server that refuses only new
    /// connections, or a connect that timed out on a busy machine, must not fail requests that the
    /// connections at work can serve a moment later.
    func lease(fresh: Bool = false) async throws -> PostgresConnection {
        let began = ContinuousClock.now
        // A slot counted for this task: taken here, or handed over by `freeSlot`.
        var slot = false
        while true {
            if !slot {
                if closed { throw closedError }
                while !fresh, let connection = idle.popLast() {
                    if !connection.isClosed { return connection }
                    count -= 1
                }
                if count < limit, !waitForLent {
                    count += 1
                    slot = true
                }
            }
            if slot {
                slot = false
                do {
                    return try await open()  // frees the slot when it fails
                } catch SQLError.unavailable where count > 0 && down != nil {
                    // Connections are out: wait for one of them below.
                }
            }
            let wait: Duration
            if let down {
                if count == 0 { throw down.error }
                wait = Self.downWait - (ContinuousClock.now - began)
                if wait <= .zero { throw down.error }
            } else {
                wait = leaseTimeout
            }
            if let granted = try await waitForConnection(wait) { return granted }
            slot = true
        }
    }

    /// Waits in line: a connection given back, or nil with a slot to open one.
    private func waitForConnection(_ wait: Duration) async throws -> PostgresConnection? {
        let id = nextID
        nextID += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let deadline = Task {
                    try? await Task.sleep(for: wait)
                    if !Task.isCancelled { self.expire(id) }
                }
                waiters.append(Waiter(id: id, continuation: continuation, deadline: deadline))
            }
        } onCancel: {
            Task { await self.remove(id, throwing: CancellationError()) }
        }
    }

    /// Takes a connection back. One that is closed, or that `reusable` says is in an unknown
    /// state, is closed and its slot freed.
    func release(_ connection: PostgresConnection, reusable: Bool = true) {
        if closed || !reusable || connection.isClosed {
            if !connection.isClosed {
                // Held until its channel has closed: PostgresNIO asserts that a connection is
                // closed when it is freed, and the close runs later on its event loop.
                let closing: EventLoopFuture<Void> = connection.close()
                closing.whenComplete { _ in withExtendedLifetime(connection) {} }
            }
            freeSlot()
            return
        }
        if waiters.isEmpty { idle.append(connection) } else { resumeFirst(returning: connection) }
    }

    /// Closes the idle connections and refuses new leases; lent ones close as they come back.
    func close() async {
        closed = true
        for waiter in waiters {
            waiter.deadline.cancel()
            waiter.continuation.resume(throwing: closedError)
        }
        waiters = []
        let connections = idle
        idle = []
        count -= connections.count
        for connection in connections { try? await connection.close() }
    }

    private var closedError: SQLError {
        .unavailable("the connections to the PostgreSQL database at \(endpoint) are closed (shut down)")
    }

    /// Whether the server is down and a retry is not yet due.
    private var retryNotDue: Bool {
        guard let down else { return false }
        return ContinuousClock.now - down.lastTry < Self.retryInterval
    }

    /// Whether a request should wait for a lent connection rather than open one.
    private var waitForLent: Bool { retryNotDue && count > 0 }

    /// Opens a connection in a slot already counted; frees the slot when it fails.
    private func open() async throws -> PostgresConnection {
        let now = ContinuousClock.now
        if let down {
            guard now - down.lastTry >= Self.retryInterval else {
                freeSlot()
                throw down.error
            }
            self.down?.lastTry = now
        }
        let id = nextID
        nextID += 1
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        } catch {
            freeSlot()
            if error is CancellationError || Task.isCancelled { throw CancellationError() }
            let failure = PostgresDatabase.connectFailure(error, endpoint)
            markDown(failure, at: now)
            throw failure
        }
        if closed {
            freeSlot()
            try? await connection.close()
            throw closedError
        }
        defer { reached = true }
        if let down, reached {
            let seconds = Double((ContinuousClock.now - down.since) / .milliseconds(1)) / 1000
            logger.notice(
                "PostgreSQL is back: requests are served again",
                metadata: ["database": "\(endpoint)", "outage_s": "\(seconds)"])
        }
        down = nil
        return connection
    }

    /// The server cannot be reached: say so once, and fail the waiters (nothing will come back to
    /// them soon).
    private func markDown(_ failure: SQLError, at now: ContinuousClock.Instant) {
        if down == nil, reached {
            logger.error(
                "PostgreSQL cannot be reached: requests get 503 until it returns",
                metadata: ["database": "\(endpoint)", "error": "\(failure)"])
        }
        if down == nil {
            down = Outage(since: now, lastTry: now, error: failure)
        } else {
            down?.error = failure
        }
        failWaitersIfNothingOut()
    }

    /// While down, waiters wait only for lent connections: with none out, nothing will come.
    private func failWaitersIfNothingOut() {
        guard let down, count == 0 else { return }
        let failing = waiters
        waiters = []
        for waiter in failing {
            waiter.deadline.cancel()
            waiter.continuation.resume(throwing: down.error)
        }
    }

    /// A connection's slot is free: a waiter gets it to open one (unless the server is down and
    /// no retry is due), else it is no longer counted.
    private func freeSlot() {
        if !waiters.isEmpty, !closed, !retryNotDue {
            resumeFirst(returning: nil)
        } else {
            count -= 1
            failWaitersIfNothingOut()
        }
    }

    private func resumeFirst(returning connection: PostgresConnection?) {
        let waiter = waiters.removeFirst()
        waiter.deadline.cancel()
        waiter.continuation.resume(returning: connection)
    }

    private func expire(_ id: Int) {
        remove(
            id,
            throwing: down?.error
                ?? SQLError.unavailable(
                    "all \(limit) connections to the PostgreSQL database at \(endpoint) stayed busy for \(leaseTimeout)"
                ))
    }

    private func remove(_ id: Int, throwing error: any Error) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        let waiter = waiters.remove(at: index)
        waiter.deadline.cancel()
        waiter.continuation.resume(throwing: error)
    }
}
