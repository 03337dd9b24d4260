import ActivityFormats
import Foundation
import HandoffModel
import PackControl
import PackStorage
import PackSystem
import Recorder

/// Runs out as activity files (`handoff export`) and in from other devices (`handoff import`).
/// The files themselves are read and written outside the engine's actor: a long GPX must not
/// hold up the sensor events of a run being recorded.
extension PackEngine {
    /// A finished run as an activity, for a writer.
    func activity(_ reference: String) throws(ControlError) -> (record: RunRecord, activity: Activity) {
        do {
            let (id, record) = try record(reference)
            guard let summary = record.summary, record.state == .finished else {
                throw ControlError(
                    code: "not_finished",
                    message: "run \(id) is still being recorded: `handoff stop` finishes it, then export it")
            }
            let activity = Activity(
                start: record.startWall, sport: Activity.Sport(record.sport), points: try database.points(of: id),
                events: try database.events(of: id), laps: try database.laps(of: id),
                rrIntervals: try database.rrIntervals(of: id), summary: summary)
            return (record, activity)
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(code: "storage", message: "could not read the run: \(error)")
        }
    }

    /// Adds an imported activity to the history (and the outbox) unless the same run is there.
    func store(imported activity: Activity, format: ActivityFormat) throws(ControlError) -> RunReport {
        do {
            if let existing = try database.finishedRun(startingNear: activity.start) {
                throw ControlError(
                    code: "duplicate",
                    message:
                        "this run is already in the history as run \(existing) (it starts at the same second): `handoff show \(existing)`"
                )
            }
            var summary = activity.summary
            summary.splits = Self.splits(activity)
            let id = try database.importRun(
                uuid: UUID().uuidString.lowercased(), source: "import:\(format.rawValue)", startWall: activity.start,
                points: activity.points, rrIntervals: activity.rrIntervals, events: activity.events,
                laps: activity.laps,
                summary: summary, now: clock.wall(), sport: activity.sport.runSport)
            journal.runFinished?()
            logger.info(
                "Imported a run",
                metadata: [
                    "session.id": "\(id)", "format": "\(format.rawValue)", "points": "\(activity.points.count)",
                ])
            return try show(String(id.rawValue))
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(code: "storage", message: "could not store the imported run: \(error)")
        }
    }

    /// Kilometre splits, as the recorder makes them, from the points and the timer.
    static func splits(_ activity: Activity) -> [Split] {
        SplitTracker.splits(
            lengthMeters: 1000, points: activity.points, events: activity.events,
            distanceMeters: activity.summary.statistics.distanceMeters,
            timerSeconds: activity.summary.statistics.timerSeconds)
    }
}

/// Reading the file a client passed, and writing into it.
enum PassedFile {
    /// A 10-hour run at 1 Hz is about 12 MB of GPX; anything far larger is not a run.
    static let maximumImportBytes = 64 << 20

    static func read(_ descriptor: Int32, name: String) throws(ControlError) -> [UInt8] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ControlError(code: "io", message: "could not read \(name): \(String(cString: strerror(errno)))")
        }
        if info.st_mode & S_IFMT == S_IFDIR { throw ControlError(code: "io", message: "\(name) is a directory") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let (n, code) = retryingEINTR {
                chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            }
            guard n >= 0 else {
                throw ControlError(code: "io", message: "could not read \(name): \(String(cString: strerror(code)))")
            }
            if n == 0 { break }
            bytes += chunk[..<n]
            guard bytes.count <= maximumImportBytes else {
                throw ControlError(
                    code: "too_large",
                    message: "\(name) is larger than \(maximumImportBytes >> 20) MB: no run file is that large")
            }
        }
        return bytes
    }

    static func write(_ bytes: [UInt8], to descriptor: Int32) throws(ControlError) {
        var offset = 0
        while offset < bytes.count {
            let start = offset
            let (n, code) = retryingEINTR {
                bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + start, $0.count - start) }
            }
            guard n > 0 else {
                throw ControlError(code: "io", message: "could not write the file: \(String(cString: strerror(code)))")
            }
            offset += n
        }
        // A regular file is made durable before the reply says it was written; a pipe cannot be.
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG { _ = fsync(descriptor) }
    }
}
