import Foundation
import HandoffModel

/// The person's runs, a page at a time, newest first.
struct RunListPage: PageModel {
    static let template = "runs"
    var frame: Frame
    var rows: [Row]
    var next: Link?
    var upload = SitePath.upload.path

    struct Row: Sendable, Equatable {
        var href: String
        var date: TimeText
        var sport: String
        var distance: String
        var time: String
        var pace: String
        var heartRate: String
    }

    init(runs: [StoredRun], next: String?, reader: Reader, viewer: String) {
        let units = reader.units
        frame = Frame("Your runs", viewer: viewer, current: .runs())
        rows = runs.map { run in
            let meters = Double(run.distanceMM) / 1000
            let seconds = Double(run.timerMS) / 1000
            return Row(
                href: SitePath.run(run.uuid).path, date: PageFormat.time(run.started, zone: reader.zone),
                sport: RunPage.sportName(run.sport), distance: units.distance(meters: meters),
                time: Units.clock(seconds), pace: units.pace(seconds: seconds, meters: meters),
                heartRate: run.averageHeartRate.map { "\($0) bpm" } ?? "–")
        }
        self.next = next.map { Link(href: SitePath.runs(after: $0).path, label: "Older runs →") }
    }
}

/// The upload form, and after an upload what became of each file.
struct UploadPage: PageModel {
    static let template = "upload"
    var frame: Frame
    var action = SitePath.upload.path
    var results: [Result] = []
    var limit: String
    /// Entering an activity by hand, for what no device recorded.
    var entry: EntryForm

    struct Result: Sendable, Equatable {
        var name: String
        var stored: Link?
        var error: String?
    }

    init(
        viewer: String, limitBytes: Int, reader: Reader = .standard, now: WallInstant = .init(nanosecondsSinceEpoch: 0)
    ) {
        entry = EntryForm(reader: reader, now: now)
        frame = Frame("Upload runs", viewer: viewer, current: .upload)
        limit = "\(limitBytes / 1024 / 1024) MB"
    }
}

/// The question asked before a run is deleted.
struct RunDeletePage: PageModel {
    static let template = "run-delete"
    var frame: Frame
    var action: String
    var back: String
    var what: String
    var groups: [String]

    init(run: StoredRun, counts: [RunCount], reader: Reader, viewer: String) {
        let units = reader.units
        let when = PageFormat.time(run.started, zone: reader.zone).text
        frame = Frame("Delete this run?", viewer: viewer)
        action = SitePath.runDelete(run.uuid).path
        back = SitePath.run(run.uuid).path
        what = "\(RunPage.sportName(run.sport)) of \(units.distance(meters: Double(run.distanceMM) / 1000)), \(when)"
        groups = counts.map {
            "\($0.groupName) loses its \(units.distance(meters: Double($0.distanceMM) / 1000))"
        }
    }
}
