import Foundation
import HandoffModel
import PackControl
import PackStorage
import Recorder

extension PackEngine {
    /// One sensor with its latest values (`handoff sensor test`); `nil` when the pack does not know it.
    func sensorReport(_ id: SensorID) -> SensorReport? {
        let (monotonic, _) = now()
        guard let s = pipeline.recorder.snapshot(at: monotonic).sensors.first(where: { $0.id == id }) else {
            return nil
        }
        return sensorReport(s, values: true)
    }

    func sensorReport(_ s: SensorSnapshot, values: Bool) -> SensorReport {
        let counts = pipeline.decoding[s.id] ?? RunPipeline.DecodeCounts()
        var report = SensorReport(
            id: s.id.rawValue, kind: s.kind, name: sensors[s.id]?.name, link: s.link.map(SensorLink.init),
            lastSeenS: s.secondsSinceData.map { Format.rounded($0, 1) }, fresh: s.isFresh, inGap: s.inGap,
            payloads: SensorPayloadsReport(counts))
        report.batteryPercent = s.batteryPercent.map(Int.init)
        guard values else { return report }
        var v = SensorValuesReport()
        if let hrm = s.heartRate {
            v.hrBpm = Int(hrm.heartRate)
            v.rrMs = hrm.rrIntervals1024ths.map { Format.rounded(Double($0) * 1000 / 1024, 1) }
            v.contact =
                switch hrm.sensorContact {
                case .notSupported: nil
                case .detected: "detected"
                case .notDetected: "not_detected"
                }
            v.energyKj = hrm.energyExpendedKilojoules.map(Int.init)
        }
        if let rsc = s.rsc {
            v.speedMps = Format.rounded(rsc.speedMetersPerSecond, 2)
            v.cadenceSpm = Int(rsc.cadence)
            v.strideM = rsc.strideLengthMeters
            v.totalDistanceM = rsc.totalDistanceMeters
            v.running = rsc.isRunning
        }
        v.wheelRps = s.wheelPerSecond.map { Format.rounded($0, 2) }
        v.crankRpm = s.crankPerMinute.map { Format.rounded($0, 1) }
        v.steps = s.steps
        report.values = v
        return report
    }

    func status() -> StatusReport {
        let (monotonic, _) = now()
        let snapshot = pipeline.recorder.snapshot(at: monotonic)
        let fix = snapshot.gps
        var report = StatusReport(
            state: snapshot.state, gps: GPSReport(fix),
            sensors: snapshot.sensors.map { sensorReport($0, values: false) }, recoveredRuns: recoveredRuns,
            version: HandoffVersion.current)
        if let session, snapshot.state == .recording || snapshot.state == .paused {
            report.run.id = session.id?.rawValue
            report.run.uuid = session.uuid
            report.run.startTime = CivilTime(session.startWall).iso8601()
            report.run.elapsedS = snapshot.elapsedSeconds.map { Format.rounded($0, 1) }
            report.run.timerS = snapshot.timerSeconds.map { Format.rounded($0, 1) }
            report.run.distanceM = snapshot.distanceMeters.map { Format.rounded($0, 1) }
            report.run.lap = snapshot.lapIndex
            report.run.lapDistanceM = snapshot.lapDistanceMeters.map { Format.rounded($0, 1) }
            report.run.points = snapshot.pointCount
            report.run.steps = snapshot.steps
            report.gps.clock = RunClock(session.clockSource)
        } else {
            // Between runs: where the next run's times would come from.
            let recorder = pipeline.recorder
            report.gps.clock =
                recorder.wallClockSynchronized ? .system : recorder.knowsGPSTime ? .gps : .unsynchronized
        }
        report.pack.commitLatency = commitLatency.report
        report.pack.pointCommitDelay = pointCommitDelay.report
        if let gps = snapshot.sensors.first(where: { $0.kind == .gps }) {
            report.gps.receiver.sensor = gps.id.rawValue
            report.gps.receiver.source = sensors[gps.id].map {
                [$0.transport?.rawValue, $0.address].compactMap { $0 }.joined(separator: " ")
            }
            report.gps.receiver.lastFixS = gps.secondsSinceData.map { Format.rounded($0, 1) }
        }
        report.live.hrBpm = snapshot.heartRateBPM
        report.live.cadenceSpm = snapshot.cadenceSPM
        report.live.speedMps = snapshot.speedMetersPerSecond.map { Format.rounded($0, 2) }
        if let speed = snapshot.speedMetersPerSecond, speed >= 0.5 {
            report.live.paceSPerKm = Format.rounded(1000 / speed, 0)
        }
        report.replay = replay
        report.gps.startWaitS = startWaitSeconds
        report.pack.units = units
        if mode == .replay, replay?.finished == true {
            // The capture has ended: its clock stopped with its last event, so nothing it held
            // is current. Its sensors are not live, and there is no fix and no reading.
            for i in report.sensors.indices {
                report.sensors[i].fresh = false
                report.sensors[i].link = .ended
            }
            report.gps.fix = .none
            report.gps.receiver.lastFixS = nil
            report.live = LiveValuesReport()
        }
        return report
    }

    func runs(limit: Int) throws(ControlError) -> [RunReport] {
        do { return try database.runs(limit: max(1, min(limit, 10_000))).map { Self.report($0) } } catch {
            throw ControlError(code: "storage", message: "could not read the runs: \(error)")
        }
    }

    /// The run a reference names (a number, `last`, a UUID prefix), or the error that says how to name one.
    func record(_ reference: String) throws -> (id: SessionID, record: RunRecord) {
        guard let id = try database.resolveRun(reference), let record = try database.run(id) else {
            throw ControlError(
                code: "no_such_run",
                message:
                    "no run matches \"\(reference)\": give its number from `handoff runs`, `last`, or the start of its UUID"
            )
        }
        return (id, record)
    }

    /// The run; with `mileSplits`, its splits per mile as well (for the CLI's text in miles).
    func show(_ reference: String, mileSplits: Bool = false) throws(ControlError) -> RunReport {
        do {
            let (id, record) = try record(reference)
            var report = Self.report(record)
            report.detail.splits = record.summary?.splits.map {
                SplitReport(
                    km: $0.kilometer, distanceM: Format.rounded($0.distanceMeters, 1),
                    timeS: Format.rounded($0.seconds, 1),
                    paceSPerKm: $0.paceSecondsPerKilometer.map { Format.rounded($0, 1) },
                    avgHrBpm: $0.averageHeartRate.map { Format.rounded($0, 1) })
            }
            report.detail.laps = try database.laps(of: id).map { lap in
                let s = lap.statistics
                return LapReport(
                    lap: lap.index, trigger: lap.trigger.rawValue, startElapsedS: lap.startElapsedSeconds,
                    endElapsedS: lap.endElapsedSeconds, distanceM: Format.rounded(s.distanceMeters, 1),
                    timerS: Format.rounded(s.timerSeconds, 1), movingS: s.movingSeconds,
                    avgHrBpm: s.averageHeartRate.map { Format.rounded($0, 1) }, maxHrBpm: s.maximumHeartRate,
                    avgCadenceSpm: s.averageCadence.map { Format.rounded($0, 1) },
                    avgPaceSPerKm: s.averagePaceSecondsPerKilometer.map { Format.rounded($0, 1) })
            }
            let events = try database.events(of: id)
            report.detail.events = events.map {
                EventReport(
                    offsetS: Format.rounded(Double($0.offsetNanoseconds) / 1e9, 3), kind: $0.kind.rawValue,
                    sensor: $0.sensor?.rawValue, detail: $0.detail)
            }
            if let counting = try database.counting(id) {
                report.detail.countedIn = counting.countedIn
                report.detail.notCounted = counting.notCounted
            }
            if mileSplits, let summary = record.summary {
                // The journal keeps kilometre splits only; miles come from the points, as the
                // recorder made the kilometres from them.
                report.detail.mileSplits = SplitTracker.splits(
                    lengthMeters: Units.metersPerMile, points: try database.points(of: id), events: events,
                    distanceMeters: summary.statistics.distanceMeters, timerSeconds: summary.statistics.timerSeconds
                ).map {
                    MileSplitReport(
                        mile: $0.kilometer, distanceM: Format.rounded($0.distanceMeters, 1),
                        timeS: Format.rounded($0.seconds, 1),
                        paceSPerKm: $0.paceSecondsPerKilometer.map { Format.rounded($0, 1) },
                        avgHrBpm: $0.averageHeartRate.map { Format.rounded($0, 1) })
                }
            }
            return report
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(code: "storage", message: "could not read the run: \(error)")
        }
    }

    static func report(_ record: RunRecord) -> RunReport {
        var report = RunReport(
            id: record.id.rawValue, uuid: record.uuid, state: record.state, source: record.source,
            startTime: CivilTime(record.startWall).iso8601(), recovered: record.recovered,
            queuedForUpload: record.queuedForUpload)
        report.sport = record.sport
        if let summary = record.summary {
            let s = summary.statistics
            report.totals.distanceM = Format.rounded(s.distanceMeters, 1)
            report.totals.elapsedS = Format.rounded(summary.elapsedSeconds, 1)
            report.totals.timerS = Format.rounded(s.timerSeconds, 1)
            report.totals.movingS = s.movingSeconds
            report.totals.points = s.pointCount
            report.totals.steps = summary.steps
            report.rates.avgHrBpm = s.averageHeartRate.map { Format.rounded($0, 1) }
            report.rates.maxHrBpm = s.maximumHeartRate
            report.rates.avgCadenceSpm = s.averageCadence.map { Format.rounded($0, 1) }
            report.rates.avgCadenceRpm = s.averageCrankCadence.map { Format.rounded($0, 1) }
            report.rates.avgPaceSPerKm = s.averagePaceSecondsPerKilometer.map { Format.rounded($0, 1) }
            report.rates.avgMovingPaceSPerKm = s.averageMovingPaceSecondsPerKilometer.map { Format.rounded($0, 1) }
            report.rates.maxSpeedMps = s.maximumSpeed.map { Format.rounded($0, 2) }
        }
        report.clock = RunClock(record.clockSource)
        return report
    }

    /// The reply to a session command; its distance in `units` (the configured ones when `nil`).
    func commandReport(_ command: SessionCommand, runBefore: Int64?, units: Units? = nil) -> CommandReport {
        let state = pipeline.recorder.state
        let snapshot = pipeline.recorder.snapshot(at: now().0)
        let distance = Format.distance(snapshot.distanceMeters ?? 0, units ?? self.units)
        let elapsed = Format.duration(snapshot.elapsedSeconds ?? 0)
        let run = session?.id?.rawValue ?? runBefore
        let message: String
        switch command {
        case .start:
            let sport = pipeline.recorder.sport
            message = "Recording run \(run.map(String.init) ?? "?")\(sport == .run ? "" : " (\(sport))")."
        case .pause: message = "Paused at \(elapsed), \(distance). `handoff resume` continues."
        case .resume: message = "Recording again at \(elapsed), \(distance)."
        case .lap: message = "Lap \((snapshot.lapIndex ?? 2) - 1) marked at \(distance)."
        case .stop:
            if let discarded {
                var text =
                    "Run \(discarded.run.map(String.init) ?? "") discarded: it lasted \(Format.duration(discarded.seconds)) and went no distance (a run shorter than \(Format.whole(discardShorterThanSeconds)) s with no distance is not kept). Next time `handoff stop --keep` keeps one; `[recording] discard_shorter_than_s = 0` in handoff.toml keeps them all."
                if discarded.baton == .held {
                    text += " You still hold the baton: your next run is your relay leg."
                }
                var report = CommandReport(state: state, runId: discarded.run, message: text)
                report.discarded = true
                return report
            }
            message =
                "Run \(run.map(String.init) ?? "") finished: `handoff show \(run.map(String.init) ?? "last")` has its summary."
        }
        return CommandReport(state: state, runId: run, message: message)
    }
}

extension PackEngine {
    /// One line for `systemctl status handoffd` (systemd's STATUS=).
    func statusLine() -> String {
        let report = status()
        switch report.state {
        case .recording, .paused:
            let run = report.run.id.map { "run \($0)" } ?? "a run"
            let distance = Format.distanceColumn(report.run.distanceM ?? 0, units)
            let verb = report.state == .paused ? "Paused" : "Recording"
            return "\(verb) \(run), \(distance), GPS \(report.gps.fix.rawValue)"
        default:
            let connected = report.sensors.filter { $0.link == .connected || $0.fresh }.count
            return "Idle; GPS \(report.gps.fix.rawValue), \(connected) of \(report.sensors.count) sensors heard"
        }
    }

    /// An actor hop that proves the engine takes work: the watchdog's heartbeat when no tick
    /// loop drives it (a replay).
    func probe() {}

    /// Blocks the engine for `seconds`, as a hung write to a failing card would: the watchdog's
    /// test stalls the recorder with this. Only served when handoffd runs with
    /// `HANDOFF_DEBUG_COMMANDS=1`.
    func debugStall(seconds: Double) {
        logger.warning("Stalling the recorder for \(seconds) s on request (debug command)")
        Thread.sleep(forTimeInterval: seconds)
    }
}
