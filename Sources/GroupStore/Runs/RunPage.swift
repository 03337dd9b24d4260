import ActivityFormats
import Foundation
import HandoffAPI
import HandoffModel

/// A run's page as text: the summary, the route, the charts, splits, laps, pauses and gaps,
/// downloads and where it counted. Built by `RunPage.init` from what the owner may see.
struct RunPage: PageModel {
    static let template = "run"
    var frame: Frame
    var stats: [Stat]
    var map: RunMap?
    /// Why there is no route, when there is none.
    var noMap: String?
    var charts: [RunChart]
    var splits: Splits?
    var laps: Laps?
    var breaks: [String]
    /// The owner's: downloads, deleting, who sees it.
    var actions: Actions?
    /// Who ran it (on another person's page), kudos and comments.
    var social: RunSocial
    /// Where it counted; for another person, only shown when it counted in one of their groups.
    var groups: Groups?
    /// Said when the stored file can no longer be read (a reader that changed since).
    var unreadable: String?

    struct Stat: Sendable, Equatable {
        var label: String
        var value: String
    }

    struct Splits: Sendable, Equatable {
        var unit: String
        var rows: [SplitRow]
        var pace: String
    }

    struct SplitRow: Sendable, Equatable {
        var number: String
        var time: String
        var pace: String
        var heartRate: String
        var climb: String
    }

    struct Laps: Sendable, Equatable {
        var pace: String
        var rows: [LapRow]
    }

    struct LapRow: Sendable, Equatable {
        var number: String
        var trigger: String
        var distance: String
        var time: String
        var pace: String
        var heartRate: String
    }

    /// The run's files to download, and where to delete it.
    struct Actions: Sendable, Equatable {
        var downloads: [Link]
        var delete: String
        /// Who sees the run and its map.
        var audience: AudienceForm
        /// The run's sport, to change (it counts again by the new one).
        var sport: SportForm
    }

    /// Where the run counted, and where not and why.
    struct Groups: Sendable, Equatable {
        var counted: [Counted]
        var notCounted: [String]
    }

    struct Counted: Sendable, Equatable {
        var group: Link
        var distance: String
        var baton: Bool
    }
}

extension RunPage {
    /// The page of `run`, from the facts computed from its file (nil when the file cannot be read).
    /// `runner`: the page another person sees (nil: the owner's), whose map lacks the route's
    /// ends and who has no downloads nor the owner's forms; `viewer` nil: nobody signed in.
    init(
        run: StoredRun, counts: [RunCount], notCounted: [RunNotCounted], facts: RunFacts?, reader: Reader,
        viewer: String?, tiles: MapTiles? = nil, maximumHeartRate: Int? = nil, runner: String? = nil,
        mapShown: Bool = true
    ) {
        let units = reader.units
        let sport = Self.sportName(run.sport)
        let when = PageFormat.time(run.started, zone: reader.zone)
        frame = Frame(
            runner.map { "\($0)'s \(sport.lowercased()), \(when.text)" } ?? "\(sport), \(when.text)", viewer: viewer)
        social = RunSocial(runner: runner)
        let meters = Double(run.distanceMM) / 1000
        let timer = Double(run.timerMS) / 1000
        stats = [
            Stat(label: "Distance", value: units.distance(meters: meters)),
            Stat(label: "Elapsed time", value: Units.clock(Double(run.elapsedMS) / 1000)),
        ]
        map = nil
        charts = []
        laps = nil
        breaks = []
        let uuid = run.uuid
        let manual = ManualEntry.details(run)
        actions =
            runner != nil
            ? nil
            : Actions(
                downloads: manual != nil
                    ? []
                    : [
                        Link(
                            href: SitePath.runDownload(uuid, format: nil).path,
                            label: "Original \(run.format.uppercased()) file")
                    ]
                        + ["fit", "gpx", "tcx"].map {
                            Link(href: SitePath.runDownload(uuid, format: $0).path, label: $0.uppercased())
                        },
                delete: SitePath.runDelete(uuid).path,
                audience: AudienceForm(
                    action: SitePath.runAudience(uuid).path, runLabel: "Who sees this run", run.audience),
                sport: SportForm(action: SitePath.runSport(uuid).path, selected: run.sport))
        let counted = counts.map { count in
            Counted(
                group: Link(href: SitePath.group(count.groupID).path, label: count.groupName),
                distance: units.distance(meters: Double(count.distanceMM) / 1000), baton: count.legID != nil)
        }
        groups =
            runner != nil && counted.isEmpty
            ? nil
            : Groups(
                counted: counted,
                notCounted: notCounted.map { "\($0.groupName): not counted, as \($0.reason.sentence)." })
        guard let facts else {
            stats.append(Stat(label: "Time", value: Units.clock(timer)))
            if let manual {
                stats += Self.entered(run, manual, timer: timer, meters: meters, units: units)
            } else {
                stats.append(Stat(label: "Pace", value: units.pace(seconds: timer, meters: meters)))
                unreadable = "The stored file cannot be drawn: download it to look at it elsewhere."
            }
            return
        }
        let summary = facts.summary
        let moving = summary.moving
        stats.append(Stat(label: "Moving time", value: Units.clock(moving)))
        stats.append(
            facts.cycling
                ? Stat(label: "Speed", value: units.speed(moving > 0 ? meters / moving : 0))
                : Stat(label: "Pace", value: units.pace(seconds: moving > 0 ? moving : timer, meters: meters)))
        if let average = summary.averageHeartRate {
            stats.append(Stat(label: "Heart rate", value: "\(PageFormat.whole(average)) bpm"))
        }
        if let highest = summary.maximumHeartRate {
            stats.append(Stat(label: "Highest heart rate", value: "\(highest) bpm"))
        }
        if let gain = summary.climb {
            stats.append(Stat(label: "Elevation gain", value: "\(PageFormat.whole(gain)) m"))
        }
        if let cadence = summary.averageCadence {
            stats.append(Stat(label: "Cadence", value: "\(PageFormat.whole(cadence)) \(facts.cycling ? "rpm" : "spm")"))
        }
        if let steps = summary.steps {
            stats.append(Stat(label: "Steps", value: String(steps)))
        }
        stats += Self.hrvStats(facts.hrv)
        if runner == nil {
            map = RunMap(facts, units: units, tiles: tiles)
            if map == nil { noMap = "This run has no positions: it was recorded without GPS." }
        } else if !mapShown {
            noMap = "The route is not shown: \(runner ?? "the runner") shows it to fewer people."
        } else if facts.track != nil {
            map = RunMap(facts.withoutEnds(), units: units, tiles: tiles, withoutEnds: true)
            if map == nil {
                noMap = "The route is too short to show without its first and last \(Int(RunFacts.hiddenEnds)) m."
            }
        }
        charts = RunChart.charts(facts, units: units, maximumHeartRate: maximumHeartRate, own: runner == nil)
        let rows = Self.splits(facts, units: units)
        splits = rows.isEmpty ? nil : Splits(unit: units.name, rows: rows, pace: "Pace /" + units.name)
        let lapRows = facts.laps.enumerated().map { number, lap in
            LapRow(
                number: String(number + 1), trigger: lap.trigger, distance: units.distance(meters: lap.distance),
                time: Units.clock(lap.timer),
                pace: lap.distance > 0 ? Units.clock(lap.timer / (lap.distance / units.meters)) : "–",
                heartRate: lap.heartRate.map(PageFormat.whole) ?? "–")
        }
        laps = lapRows.count < 2 ? nil : Laps(pace: "Pace /" + units.name, rows: lapRows)
        breaks = Self.breaks(facts) + Self.hrvNote(facts.hrv)
    }

    /// An entry by hand: its pace (a swim's per 100 m), pool and strokes, and that it was typed.
    static func entered(
        _ run: StoredRun, _ manual: (poolLength: Double?, strokes: Int?), timer: Double, meters: Double, units: Units
    ) -> [Stat] {
        var stats: [Stat] = []
        if run.sport == Sport.swim.rawValue {
            if meters > 0 { stats.append(Stat(label: "Pace", value: Units.clock(timer / (meters / 100)) + " /100 m")) }
            stats.append(
                Stat(label: "Pool", value: manual.poolLength.map { "\(PageFormat.whole($0)) m" } ?? "Open water"))
            if let strokes = manual.strokes { stats.append(Stat(label: "Strokes", value: String(strokes))) }
        } else {
            stats.append(Stat(label: "Pace", value: units.pace(seconds: timer, meters: meters)))
        }
        stats.append(Stat(label: "Recorded", value: "Entered by hand"))
        return stats
    }

    static func sportName(_ sport: String) -> String { Sport(rawValue: sport)?.title ?? "Activity" }

    /// One row per kilometre or mile (the last one partial): time, pace, heart rate, climb.
    static func splits(_ facts: RunFacts, units: Units) -> [SplitRow] {
        facts.marked(units).splits.enumerated().map { index, split in
            SplitRow(
                number: split.distance >= units.meters * 0.995
                    ? String(index + 1) : String(format: "%.2f", Double(index) + split.distance / units.meters),
                time: Units.clock(split.timer), pace: Units.clock(split.timer / (split.distance / units.meters)),
                heartRate: split.heartRate.map { PageFormat.whole($0.rounded(.down)) } ?? "–",
                climb: split.climb.map { ($0.rounded() > 0 ? "+" : "") + PageFormat.whole($0) + " m" } ?? "–")
        }
    }

    /// The pauses and the sensors' gaps, as sentences.
    static func breaks(_ facts: RunFacts) -> [String] {
        let pauses = facts.pauses.map { pause in
            let at = Units.clock(Double(pause.pause) / 1e9)
            guard let resume = pause.resume else { return "Paused at \(at) to the end." }
            return "Paused at \(at) for \(Units.clock(Double(resume - pause.pause) / 1e9))."
        }
        return pauses
            + facts.gaps.map { gap in
                let at = Units.clock(Double(gap.start) / 1e9)
                guard let end = gap.end else { return "No values from \(gap.sensor) from \(at) to the end." }
                return "No values from \(gap.sensor) at \(at) for \(Units.clock(Double(end - gap.start) / 1e9))."
            }
    }
}
