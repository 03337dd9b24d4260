import ActivityFormats
import Dispatch
import Foundation
import HandoffModel
import Logging
import PackControl
import PackSync
import PackSystem
import ServiceLifecycle
import Synchronization

/// Serves the control API on a Unix socket: one JSON request per line, one reply per line.
///
/// Accepting and reading happen on threads of their own (blocking calls stay off Swift's
/// cooperative pool); each request is then answered by the engine.
final class ControlServer: Service {
    let path: String
    let engine: PackEngine
    let bluetooth: BluetoothControl?
    let sync: SyncWorker?
    let doctor: Doctor?
    let logger: Logger
    /// Called once the socket listens: the pack is then ready (systemd's READY=1).
    let onListening: @Sendable () -> Void
    /// At most this many requests are served at once; more wait in the listen backlog.
    let maximumConnections = 8
    private let active = Atomic<Int>(0)

    init(
        path: String, engine: PackEngine, bluetooth: BluetoothControl?, sync: SyncWorker?, doctor: Doctor? = nil,
        logger: Logger, onListening: @escaping @Sendable () -> Void = {}
    ) {
        self.doctor = doctor
        self.onListening = onListening
        self.path = path
        self.engine = engine
        self.bluetooth = bluetooth
        self.sync = sync
        self.logger = logger
    }

    func run() async throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        }
        let listener: UnixListener
        do { listener = try UnixListener(path: path, mode: 0o660) } catch {
            if error.errno == EADDRINUSE {
                logger.critical("Another handoffd is already listening on \(path); stop it first")
            }
            throw error
        }
        logger.info("Control socket ready", metadata: ["socket": "\(path)"])
        onListening()
        let stopping = StopFlag()
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            while !stopping.isSet {
                guard let connection = try? listener.accept(timeoutMilliseconds: 200) else { continue }
                if active.wrappingAdd(1, ordering: .relaxed).newValue > maximumConnections {
                    active.wrappingSubtract(1, ordering: .relaxed)
                    try? connection.writeLine(
                        #"{"ok":false,"error":{"code":"busy","message":"handoffd is busy; try again"}}"#)
                    connection.close()
                    continue
                }
                Thread.detachNewThread { [self] in
                    serve(connection)
                    active.wrappingSubtract(1, ordering: .relaxed)
                }
            }
            listener.close()
            finished.signal()
        }
        thread.name = "control-accept"
        thread.start()
        try? await gracefulShutdown()
        stopping.set()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                finished.wait()
                continuation.resume()
            }
        }
    }

    /// Reads one request, answers it, closes. Runs on its own thread.
    private func serve(_ connection: UnixSocket) {
        defer { connection.close() }
        try? connection.setTimeout(seconds: 5)
        guard let line = try? connection.readLine(), !line.isEmpty else { return }
        let engine = self.engine
        let bluetooth = self.bluetooth
        let sync = self.sync
        let doctor = self.doctor
        // `export` and `import` come with the client's file (SCM_RIGHTS): ours to close.
        let passed = connection.takeReceivedDescriptor()
        defer { if let passed { close(passed) } }
        let reply = waitFor {
            await ControlDispatcher.respond(
                to: line, engine: engine, bluetooth: bluetooth, sync: sync, doctor: doctor, passed: passed)
        }
        try? connection.writeLine(reply)
    }
}

/// Runs async work from a plain thread and waits for its result there.
func waitFor<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await work()
        box.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return box.withLock { $0! }
}
