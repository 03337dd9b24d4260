import Logging
import PostgresNIO
import ServiceLifecycle

/// With PostgreSQL, the events of every store instance over the database (issue 35): a
/// connection of its own `LISTEN`s on `handoff_events`, where each transaction that records an
/// event notifies its group's id when it commits, and tells this instance's subscribers. While
/// the connection is down (the server restarting) it tries again every second, up to every 10 s;
/// once back, it tells every subscriber, who then read whatever they missed (nothing is lost:
/// the events are in the table, and a heartbeat reads it anyway). It starts once the schema is
/// up to date, so a store that cannot reach its database says so once, at its start.
struct EventListener: Service {
    static let channel = "handoff_events"
    let database: PostgresDatabase
    let hub: EventHub
    let logger: Logger
    /// Yields once the schema is up to date (finishes without a value if it never is).
    let ready: AsyncStream<Void>

    func run() async throws {
        var schema = ready.makeAsyncIterator()
        guard await schema.next() != nil else { return }
        var wait = Duration.seconds(1)
        var id = 1
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: database.connection, id: id, logger: logger)
                id += 1
                do {
                    try await connection.listen(on: Self.channel) { notifications in
                        wait = .seconds(1)
                        hub.changedAll()
                        for try await notification in notifications.cancelOnGracefulShutdown() {
                            guard let team = Int64(notification.payload) else { continue }
                            hub.changed([team])
                        }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning(
                    "the events' LISTEN connection to PostgreSQL failed: other instances' events arrive with each heartbeat until it is back",
                    metadata: ["database": "\(database.endpoint)", "error": "\(String(reflecting: error))"])
            }
            let pause = wait
            _ = try? await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
            wait = min(wait * 2, .seconds(10))
        }
    }
}
