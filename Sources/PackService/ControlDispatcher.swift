import ActivityFormats
import Foundation
import HandoffModel
import PackControl
import PackSync

/// Maps requests to the engine and replies to JSON: errors in one place.
enum ControlDispatcher {
    /// A request's `units`, `nil` when it names none.
    static func units(_ name: String?) throws(ControlError) -> Units? {
        guard let name else { return nil }
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
        do {
            request = try ControlJSON.decode(ControlRequest.self, from: line)
        } catch let error as UnknownControlCommand {
            return encode(ControlResponse<String>(error: unknown(error.command)))
        } catch {
            return encode(
                ControlResponse<String>(
                    error: ControlError(
                        code: "bad_request", message: "the request is not a control API object: \(error)")))
        }
        return await respond(
            to: request, engine: engine, bluetooth: bluetooth, sync: sync, doctor: doctor, passed: passed)
    }

    static func respond(
        to request: ControlRequest, engine: PackEngine, bluetooth: BluetoothControl? = nil, sync: SyncWorker? = nil,
        doctor: Doctor? = nil, passed: Int32? = nil
    ) async -> String {
        do {
            switch request {
            case .status:
                return encode(ControlResponse(result: await engine.status()))
            case .start(let solo, let sport, let live):
                return encode(
                    ControlResponse(
                        result: try await start(
                            solo: solo ?? false, sport: sport, live: live, engine: engine, sync: sync)))
            case .baton:
                let sync = try syncing(sync)
                let status = await engine.status()
                let recording = status.state.isOpen ? status.run.id : nil
                return encode(ControlResponse(result: BatonReport(try await sync.batonStatus(recording: recording))))
            case .batonPass(let target):
                let sync = try syncing(sync)
                if await engine.status().state.isOpen {
                    throw ControlError(
                        code: "recording",
                        message: "a run is being recorded: `handoff stop`, let it sync, then pass the baton")
                }
                return encode(ControlResponse(result: BatonReport(try await sync.passBaton(to: target))))
            case .stop(let keep, let units):
                return encode(
                    ControlResponse(
                        result: try await engine.command(.stop, keep: keep ?? false, units: try Self.units(units))))
            case .pause(let units), .resume(let units), .lap(let units):
                let command: SessionCommand =
                    switch request {
                    case .pause: .pause
                    case .resume: .resume
                    default: .lap
                    }
                return encode(ControlResponse(result: try await engine.command(command, units: try Self.units(units))))
            case .delete(let run, let localOnly):
                guard let run else {
                    throw ControlError(
                        code: "bad_request", message: "delete needs a run: its number, `last`, or a UUID prefix")
                }
                return encode(
                    ControlResponse(
                        result: try await delete(run, localOnly: localOnly ?? false, engine: engine, sync: sync)))
            case .runs(let limit):
                return encode(ControlResponse(result: try await engine.runs(limit: limit ?? 20)))
            case .show(let run, let units):
                guard let run else {
                    throw ControlError(
                        code: "bad_request", message: "show needs a run: its number, `last`, or a UUID prefix")
                }
                return encode(
                    ControlResponse(result: try await engine.show(run, mileSplits: try Self.units(units) == .miles)))
            case .export(let run, let format):
                return try await export(run: run, format: format, engine: engine, passed: passed)
            case .import(let name):
                return try await importFile(name: name, engine: engine, passed: passed)
            case .steps:
                return encode(ControlResponse(result: try await engine.stepsToday()))
            case .doctor:
                guard let doctor else {
                    throw ControlError(code: "unavailable", message: "this handoffd cannot run its checks")
                }
                return encode(ControlResponse(result: DoctorReport(checks: await doctor.run())))
            case .debugStall(let seconds):
                guard ProcessInfo.processInfo.environment["HANDOFF_DEBUG_COMMANDS"] == "1" else {
                    throw unknown(request.command)
                }
                await engine.debugStall(seconds: min(max(seconds ?? 1, 0), 120))
                return encode(ControlResponse(result: "stalled"))
            case .link, .linkStatus, .unlink, .sync, .syncStatus, .home, .homeAdd, .homeRemove:
                return try await respond(to: request, sync: try syncing(sync))
            case .scan, .pair, .sensors, .forget, .sensor:
                return try await respond(to: request, bluetooth: try await bluetoothControl(bluetooth, engine: engine))
            }
        } catch let error as ControlError {
            return encode(ControlResponse<String>(error: error))
        } catch let error as SyncError {
            return encode(ControlResponse<String>(error: ControlError(error)))
        } catch {
            return encode(ControlResponse<String>(error: ControlError(code: "internal", message: "\(error)")))
        }
    }

    static func unknown(_ command: String) -> ControlError {
        ControlError(
            code: "unknown_command",
            message: "handoffd does not know the command \"\(command)\"; is handoff newer than handoffd?")
    }

    /// The sync worker, or why this handoffd has none.
    static func syncing(_ sync: SyncWorker?) throws(ControlError) -> SyncWorker {
        guard let sync else {
            throw ControlError(
                code: "sync_disabled",
                message: "this handoffd does not sync (sync.enabled is false in its configuration)")
        }
        return sync
    }

    /// The Bluetooth control, or why this handoffd has none.
    static func bluetoothControl(
        _ bluetooth: BluetoothControl?, engine: PackEngine
    ) async throws(ControlError)
        -> BluetoothControl
    {
        if let bluetooth { return bluetooth }
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

    /// The file passed with `export` or `import`, or why it is needed.
    static func passedFile(_ passed: Int32?, for command: String) throws(ControlError) -> Int32 {
        guard let passed else {
            throw ControlError(
                code: "bad_request",
                message:
                    "\(command) needs the file passed with the request (SCM_RIGHTS); `handoff \(command)` does that"
            )
        }
        return passed
    }

    /// `export` writes a run into the file passed with the request.
    static func export(run: String?, format: String?, engine: PackEngine, passed: Int32?) async throws -> String {
        let passed = try passedFile(passed, for: "export")
        guard let run else { throw ControlError(code: "bad_request", message: "export needs a run") }
        guard let format = ActivityFormat(rawValue: format ?? "fit") else {
            throw ControlError(
                code: "bad_request", message: "export writes fit, gpx, tcx or csv, not \"\(format ?? "")\"")
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

    /// `import` reads a run from the file passed with the request.
    static func importFile(name: String?, engine: PackEngine, passed: Int32?) async throws -> String {
        let passed = try passedFile(passed, for: "import")
        let name = name ?? "the file"
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
        switch request {
        case .scan(let seconds, let classic):
            return encode(
                ControlResponse(result: try await bluetooth.scan(seconds: seconds ?? 10, classic: classic ?? false)))
        case .pair(let target, let kind, let channel, let pin):
            let target = try need(target, "a sensor's address or name")
            return encode(
                ControlResponse(
                    result: try await bluetooth.pair(target: target, kind: kind, channel: channel, pin: pin))
            )
        case .forget(let sensor):
            return encode(ControlResponse(result: try await bluetooth.forget(try need(sensor, "a sensor"))))
        case .sensor(let sensor):
            return encode(ControlResponse(result: try await bluetooth.sensor(try need(sensor, "a sensor"))))
        default: return encode(ControlResponse(result: try await bluetooth.sensors()))
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
            do { try await sync.deleteFromStore(uuid: target.uuid, run: target.id.rawValue) } catch {
                throw ControlError(error)
            }
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
    static func start(
        solo: Bool, sport name: String?, live: Bool? = nil, engine: PackEngine, sync: SyncWorker?
    ) async throws
        -> CommandReport
    {
        var sport: RunSport?
        if let name {
            guard let named = RunSport(rawValue: name) else {
                throw ControlError(
                    code: "bad_request", message: "there is no sport \"\(name)\": name one of \(RunSport.names)")
            }
            sport = named
        }
        let idle = await !engine.status().state.isOpen
        let baton = idle ? await sync?.batonForStart(solo: solo) ?? .none : .none
        var report = try await engine.command(.start, sport: sport)
        if let run = report.runId, let mode = baton.mode {
            await engine.noteBaton(run: run, group: mode.group, mode: mode.mode)
        }
        if let message = baton.message { report.message += " " + message }
        if let live, idle {
            let linked = await sync?.linkStatus().phase == .linked
            if !(await engine.setLive(live)) || !linked {
                if live {
                    report.message +=
                        " Live tracking is off: it needs sync (`[sync] enabled = true`) and a linked pack (`handoff link`)."
                }
            } else if live {
                report.message +=
                    " Live: the store shows this run as it happens, while the pack has a network (share it from the store's /me/live page)."
            }
        }
        return report
    }

    static func respond(to request: ControlRequest, sync: SyncWorker) async throws -> String {
        switch request {
        case .link(let store, let name):
            guard let store, !store.isEmpty else {
                throw ControlError(code: "bad_request", message: "link needs the store's address")
            }
            return encode(ControlResponse(result: LinkReport(try await sync.beginLink(store: store, name: name))))
        case .linkStatus: return encode(ControlResponse(result: LinkReport(await sync.linkStatus())))
        case .unlink: return encode(ControlResponse(result: LinkReport(await sync.unlink())))
        case .sync(let now, let anywhere):
            let number = await sync.requestSync(now: now ?? false, anywhere: anywhere ?? false)
            var report = SyncStatusReport(await sync.status())
            report.request = number
            return encode(ControlResponse(result: report))
        case .home: return encode(ControlResponse(result: HomeReport(await sync.homeNetworks())))
        case .homeAdd(let target): return encode(ControlResponse(result: HomeReport(try await sync.addHome(target))))
        case .homeRemove(let target):
            guard let name = target, !name.isEmpty else {
                throw ControlError(code: "bad_request", message: "home_remove needs the network's name")
            }
            return encode(ControlResponse(result: HomeReport(try await sync.removeHome(name))))
        default: return encode(ControlResponse(result: SyncStatusReport(await sync.status())))
        }
    }

    static func encode(_ value: some Encodable) -> String {
        (try? ControlJSON.encode(value))
            ?? #"{"ok":false,"error":{"code":"internal","message":"the reply could not be encoded"}}"#
    }
}

extension ControlError {
    /// A sync worker's error, answered with its own code and message.
    init(_ error: SyncError) { self.init(code: .init(rawValue: error.code), message: error.message) }
}
