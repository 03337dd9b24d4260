import ActivityFormats
import Dispatch
import Foundation
import HandoffModel
import Logging
import PackControl
import PackSync
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

/// Maps requests to the engine and replies to JSON: errors in one place.
enum ControlDispatcher {
    /// A request's `units`, `nil` when it names none.
    static func units(_ request: ControlRequest) throws(ControlError) -> Units? {
        guard let name = request.units else { return nil }
        guard let units = Units(rawValue: name) else {
            throw ControlError(code: "bad_request", message: "units must be \"km\" or \"mi\", not \"\(name)\"")
        }
        return units
    }

    static func respond(
        to line: String, engine: PackEngine, bluetooth: BluetoothControl? = nil, sync: SyncWorker? = nil,
        doctor: Doctor? = nil, passed: Int32? = nil
    ) async -> String {
        let request: ControlRequest
        do { request = try ControlJSON.decode(ControlRequest.self, from: line) } catch {
            return encode(
                ControlResponse<String>(
                    error: ControlError(
                        code: "bad_request", message: "the request is not a control API object: \(error)")))
        }
        do {
            switch request.command {
            case "status":
                return encode(ControlResponse(result: await engine.status()))
            case "start":
                return encode(ControlResponse(result: try await start(request, engine: engine, sync: sync)))
            case "baton", "baton_pass":
                guard let sync else {
                    throw ControlError(
                        code: "sync_disabled",
                        message: "this handoffd does not sync (sync.enabled is false in its configuration)")
                }
                if request.command == "baton" {
                    let status = await engine.status()
                    let recording = ["recording", "paused"].contains(status.state) ? status.runId : nil
                    return encode(ControlResponse(result: try await sync.batonStatus(recording: recording)))
                }
                if await ["recording", "paused"].contains(engine.status().state) {
                    throw ControlError(
                        code: "recording",
                        message: "a run is being recorded: `handoff stop`, let it sync, then pass the baton")
                }
                return encode(ControlResponse(result: try await sync.passBaton(to: request.target)))
            case "stop", "pause", "resume", "lap":
                let command = SessionCommandName(rawValue: request.command)!.command
                return encode(
                    ControlResponse(
                        result: try await engine.command(
                            command, keep: request.keep ?? false, units: try units(request))))
            case "delete":
                guard let run = request.run else {
                    throw ControlError(
                        code: "bad_request", message: "delete needs a run: its number, `last`, or a UUID prefix")
                }
                return encode(
                    ControlResponse(
                        result: try await delete(run, localOnly: request.localOnly ?? false, engine: engine, sync: sync)
                    ))
            case "runs":
                return encode(ControlResponse(result: try await engine.runs(limit: request.limit ?? 20)))
            case "show":
                guard let run = request.run else {
                    throw ControlError(
                        code: "bad_request", message: "show needs a run: its number, `last`, or a UUID prefix")
                }
                return encode(
                    ControlResponse(result: try await engine.show(run, mileSplits: try units(request) == .miles)))
            case "export", "import":
                return try await files(request, engine: engine, passed: passed)
            case "doctor":
                guard let doctor else {
                    throw ControlError(code: "unavailable", message: "this handoffd cannot run its checks")
                }
                return encode(ControlResponse(result: DoctorReport(checks: await doctor.run())))
            case "debug_stall" where ProcessInfo.processInfo.environment["HANDOFF_DEBUG_COMMANDS"] == "1":
                await engine.debugStall(seconds: min(max(request.seconds ?? 1, 0), 120))
                return encode(ControlResponse(result: "stalled"))
            case "link", "link_status", "unlink", "sync", "sync_status", "home", "home_add", "home_remove":
                guard let sync else {
                    throw ControlError(
                        code: "sync_disabled",
                        message: "this handoffd does not sync (sync.enabled is false in its configuration)")
                }
                return try await respond(to: request, sync: sync)
            case "scan", "pair", "sensors", "forget", "sensor":
                guard let bluetooth else {
                    if let replay = await engine.status().replay {
                        // `handoff sensors` then lists the capture's sensors from `status`.
                        throw ControlError(
                            code: "replaying",
                            message:
                                "this handoffd replays the capture \(replay.file) instead of using Bluetooth: `handoff status` shows the replayed sensors; scanning and pairing need a handoffd that reads real sensors"
                        )
                    }
                    throw ControlError(
                        code: "no_bluetooth",
                        message:
                            "this handoffd does not use Bluetooth (it replays a capture, or bluetooth.enabled is false in its configuration)"
                    )
                }
                return try await respond(to: request, bluetooth: bluetooth)
            default:
                throw ControlError(
                    code: "unknown_command",
                    message:
                        "handoffd does not know the command \"\(request.command)\"; is handoff newer than handoffd?")
            }
        } catch let error as ControlError {
            return encode(ControlResponse<String>(error: error))
        } catch {
            return encode(ControlResponse<String>(error: ControlError(code: "internal", message: "\(error)")))
        }
    }

    /// `export` writes a run into the file passed with the request; `import` reads one from it.
    static func files(_ request: ControlRequest, engine: PackEngine, passed: Int32?) async throws -> String {
        guard let passed else {
            throw ControlError(
                code: "bad_request",
                message:
                    "\(request.command) needs the file passed with the request (SCM_RIGHTS); `handoff \(request.command)` does that"
            )
        }
        if request.command == "export" {
            guard let run = request.run else { throw ControlError(code: "bad_request", message: "export needs a run") }
            guard let format = ActivityFormat(rawValue: request.format ?? "fit") else {
                throw ControlError(
                    code: "bad_request", message: "export writes fit, gpx, tcx or csv, not \"\(request.format ?? "")\"")
            }
            let (record, activity) = try await engine.activity(run)
            let bytes = format.write(activity)
            try PassedFile.write(bytes, to: passed)
            return encode(
                ControlResponse(
                    result: ExportReport(
                        run: record.id.rawValue, uuid: record.uuid, format: format.rawValue, bytes: bytes.count,
                        points: activity.points.count)))
        }
        let name = request.name ?? "the file"
        let bytes = try PassedFile.read(passed, name: name)
        let byName = ActivityFormat(rawValue: ((name as NSString).pathExtension).lowercased())
        guard let format = ActivityFormat.sniff(bytes) ?? byName, format != .csv else {
            throw ControlError(
                code: "unknown_format",
                message:
                    "\(name) is not a FIT, GPX or TCX file (nothing in its first bytes says which); export it from your device or app as one of those"
            )
        }
        let activity: Activity
        do { activity = try format.read(bytes) } catch {
            throw ControlError(code: "invalid_file", message: "\(name): \(error.description)")
        }
        return encode(ControlResponse(result: try await engine.store(imported: activity, format: format)))
    }

    static func respond(to request: ControlRequest, bluetooth: BluetoothControl) async throws -> String {
        func need(_ value: String?, _ what: String) throws -> String {
            guard let value, !value.isEmpty else {
                throw ControlError(code: "bad_request", message: "\(request.command) needs \(what)")
            }
            return value
        }
        switch request.command {
        case "scan":
            return encode(
                ControlResponse(
                    result: try await bluetooth.scan(seconds: request.seconds ?? 10, classic: request.classic ?? false))
            )
        case "pair":
            let target = try need(request.target, "a sensor's address or name")
            return encode(
                ControlResponse(
                    result: try await bluetooth.pair(
                        target: target, kind: request.kind, channel: request.channel, pin: request.pin)))
        case "sensors": return encode(ControlResponse(result: try await bluetooth.sensors()))
        case "forget":
            return encode(ControlResponse(result: try await bluetooth.forget(try need(request.sensor, "a sensor"))))
        default:
            return encode(ControlResponse(result: try await bluetooth.sensor(try need(request.sensor, "a sensor"))))
        }
    }

    /// `delete`: the store first when the run is on it, then the pack. When the store cannot be
    /// told, nothing is deleted (unless `localOnly`): a run gone from the pack but still counted
    /// on the store could never be taken out of the totals from here.
    static func delete(
        _ reference: String, localOnly: Bool, engine: PackEngine, sync: SyncWorker?
    ) async throws(ControlError) -> DeleteReport {
        let target = try await engine.deletionTarget(reference)
        let name = "run \(target.id.rawValue)"
        if let sync, await sync.isUploading(target.id) {
            throw ControlError(
                code: "uploading", message: "\(name) is being uploaded right now: try again when `handoff sync` is done"
            )
        }
        var onStore = false
        if target.synced && !localOnly {
            guard let sync else {
                throw ControlError(
                    code: "store_not_told",
                    message:
                        "\(name) is on the store, and this handoffd does not sync (sync.enabled is false), so the store cannot be told: nothing was deleted. `handoff delete \(target.id.rawValue) --local-only` deletes it on the pack only (it stays on the store and in its groups' totals)"
                )
            }
            try await sync.deleteFromStore(uuid: target.uuid, run: target.id.rawValue)
            onStore = true
        }
        try await engine.deleteRun(target.id)
        let message =
            onStore
            ? "Deleted \(name) on the pack and on the store (its distance left every group total)."
            : target.synced
                ? "Deleted \(name) on the pack only: it stays on the store and in its groups' totals."
                : "Deleted \(name) (it was never on the store)."
        return DeleteReport(run: target.id.rawValue, uuid: target.uuid, deletedOnStore: onStore, message: message)
    }

    /// `start`: the baton first (taken online, claimed offline, or solo), then the run.
    static func start(_ request: ControlRequest, engine: PackEngine, sync: SyncWorker?) async throws -> CommandReport {
        let idle = await !["recording", "paused"].contains(engine.status().state)
        let baton = idle ? await sync?.batonForStart(solo: request.solo ?? false) ?? .none : .none
        var report = try await engine.command(.start)
        if let run = report.runId, let mode = baton.mode {
            await engine.noteBaton(run: run, group: mode.group, mode: mode.mode)
        }
        if let message = baton.message { report.message += " " + message }
        return report
    }

    static func respond(to request: ControlRequest, sync: SyncWorker) async throws -> String {
        switch request.command {
        case "link":
            guard let store = request.store, !store.isEmpty else {
                throw ControlError(code: "bad_request", message: "link needs the store's address")
            }
            return encode(ControlResponse(result: try await sync.beginLink(store: store, name: request.name)))
        case "link_status": return encode(ControlResponse(result: await sync.linkStatus()))
        case "unlink": return encode(ControlResponse(result: await sync.unlink()))
        case "sync":
            let number = await sync.requestSync(now: request.now ?? false, anywhere: request.anywhere ?? false)
            var report = await sync.status()
            report.request = number
            return encode(ControlResponse(result: report))
        case "home": return encode(ControlResponse(result: await sync.homeReport()))
        case "home_add": return encode(ControlResponse(result: try await sync.addHome(request.target)))
        case "home_remove":
            guard let name = request.target, !name.isEmpty else {
                throw ControlError(code: "bad_request", message: "home_remove needs the network's name")
            }
            return encode(ControlResponse(result: try await sync.removeHome(name)))
        default: return encode(ControlResponse(result: await sync.status()))
        }
    }

    static func encode(_ value: some Encodable) -> String {
        (try? ControlJSON.encode(value))
            ?? #"{"ok":false,"error":{"code":"internal","message":"the reply could not be encoded"}}"#
    }
}

/// The control API's names for session commands.
struct SessionCommandName: RawRepresentable {
    let command: SessionCommand
    init?(rawValue: String) {
        guard let command = SessionCommand(rawValue: rawValue) else { return nil }
        self.command = command
    }
    var rawValue: String { command.rawValue }
}
