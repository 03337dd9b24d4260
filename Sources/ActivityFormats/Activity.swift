import HandoffModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A recorded activity as the files carry it: what the writers take and the readers give back.
///
/// Times are offsets from `start`, as in the pack's journal. Points are in time order, at most
/// one per second (FIT's and our own resolution); files from watches that record every few
/// seconds give sparser points.
public struct Activity: Hashable, Sendable {
    /// When the activity started (the timer's first start).
    public var start: WallInstant
    public var sport: Sport
    public var points: [RecordPoint]
    /// Start, pause, resume, lap and stop, in time order. Pauses exclude time from the timer.
    public var events: [SessionEvent]
    public var laps: [Lap]
    public var rrIntervals: [RRIntervalBatch]
    /// Totals over the whole activity; `splits` is left to the recorder.
    public var summary: RunSummary
    /// The device that recorded it.
    public var creator: Creator

    public init(
        start: WallInstant, sport: Sport = .running, points: [RecordPoint] = [], events: [SessionEvent] = [],
        laps: [Lap] = [], rrIntervals: [RRIntervalBatch] = [], summary: RunSummary, creator: Creator = .handoff
    ) {
        self.start = start
        self.sport = sport
        self.points = points
        self.events = events
        self.laps = laps
        self.rrIntervals = rrIntervals
        self.summary = summary
        self.creator = creator
    }

    /// The activity's kind, as FIT, GPX and TCX name it.
    public enum Sport: String, Hashable, Sendable, CaseIterable {
        case running, walking, hiking, cycling, other

        /// FIT's `sport` enum value.
        var fit: UInt8 {
            switch self {
            case .running: 1
            case .cycling: 2
            case .walking: 11
            case .hiking: 17
            case .other: 0
            }
        }

        init(fit: UInt8) {
            self = Self.allCases.first { $0.fit == fit } ?? .other
        }

        /// The pack's sport as the files name it.
        public init(_ sport: RunSport) {
            switch sport {
            case .run: self = .running
            case .bike: self = .cycling
            case .walk: self = .walking
            }
        }

        /// What the pack keeps an imported file as: a hike is a walk, and what it cannot name
        /// (a swim, a row) a run, as every run was before sports.
        public var runSport: RunSport {
            switch self {
            case .cycling: .bike
            case .walking, .hiking: .walk
            case .running, .other: .run
            }
        }

        /// FIT's `sub_sport`: a ride is on the road, anything else generic.
        var fitSubSport: UInt8 { self == .cycling ? 7 : 0 }

        /// TCX's `Sport` attribute: Running, Biking or Other.
        var tcx: String {
            switch self {
            case .running: "Running"
            case .cycling: "Biking"
            default: "Other"
            }
        }
    }

    /// Who made the file: FIT's manufacturer and product numbers and the names behind them.
    public struct Creator: Hashable, Sendable {
        /// FIT manufacturer (1 Garmin, 255 development).
        public var manufacturer: UInt16
        public var product: UInt16
        public var serialNumber: UInt32?
        /// "Handoff 0.1.0", a GPX `creator`, a TCX `Creator/Name`.
        public var name: String
        public var softwareVersion: String?

        public init(
            manufacturer: UInt16, product: UInt16, serialNumber: UInt32? = nil, name: String,
            softwareVersion: String? = nil
        ) {
            self.manufacturer = manufacturer
            self.product = product
            self.serialNumber = serialNumber
            self.name = name
            self.softwareVersion = softwareVersion
        }

        /// The pack: FIT's "development" manufacturer, as FIT asks of software without its own number.
        public static let handoff = Creator(
            manufacturer: 255, product: 1, name: "Handoff \(HandoffVersion.current)",
            softwareVersion: HandoffVersion.current)
    }

    /// The elapsed seconds at which each pause began and the timer resumed; a pause still open
    /// at the end has no resume.
    public var pauses: [(pause: Int64, resume: Int64?)] {
        var result: [(pause: Int64, resume: Int64?)] = []
        for event in events {
            if event.kind == .pause, result.last.map({ $0.resume != nil }) ?? true {
                result.append((event.offsetNanoseconds, nil))
            } else if event.kind == .resume, let last = result.last, last.resume == nil {
                result[result.count - 1].resume = event.offsetNanoseconds
            }
        }
        return result
    }

    /// The points split where the timer was paused: the parts a GPX file keeps as track segments.
    public var parts: [ArraySlice<RecordPoint>] {
        let resumes = pauses.compactMap(\.resume)
        var result: [ArraySlice<RecordPoint>] = []
        var begin = points.startIndex
        for resume in resumes {
            let end = points[begin...].firstIndex { Int64($0.elapsedSeconds) * nanosecondsPerSecond >= resume }
            guard let end else { break }
            if end > begin { result.append(points[begin..<end]) }
            begin = end
        }
        if begin < points.endIndex || result.isEmpty { result.append(points[begin...]) }
        return result
    }
}

/// Why a file could not be read, naming the problem and where it is.
public enum ActivityFileError: Error, Hashable, Sendable, CustomStringConvertible {
    case fit(FIT.ContainerError)
    /// A FIT file whose first part is whole but whose chained next part (starting at `offset`) is not.
    case fitChain(part: Int, offset: Int, FIT.ContainerError)
    /// A FIT record that cannot be what it says (an undefined local message, a field past the end…).
    case fitRecord(offset: Int, problem: String)
    /// XML that is not well formed, at a 1-based line.
    case xml(line: Int, problem: String)
    /// Well-formed XML that is not a GPX or TCX file, or breaks its schema in a way we cannot read past.
    case format(String)
    /// A value out of its range: a latitude of 100°, a time that does not parse.
    case value(line: Int?, problem: String)
    /// More than the reader will hold (absurd counts, a file larger than any run).
    case tooLarge(String)

    public var description: String {
        switch self {
        case .fit(let error): error.description
        case .fitChain(let part, let offset, let error):
            "the FIT file's part \(part), chained after the first at byte \(offset), is not readable (\(error)); the parts before it are whole, but importing them alone would drop the rest of the activity without a word, so nothing was imported"
        case .fitRecord(let offset, let problem): "the FIT file is corrupt at byte \(offset): \(problem)"
        case .xml(let line, let problem): "not well-formed XML at line \(line): \(problem)"
        case .format(let problem): problem
        case .value(let line, let problem): line.map { "line \($0): \(problem)" } ?? problem
        case .tooLarge(let problem): problem
        }
    }
}

/// The file formats, by their usual extensions.
public enum ActivityFormat: String, Hashable, Sendable, CaseIterable {
    case fit, gpx, tcx, csv

    public var fileExtension: String { rawValue }

    /// Guesses the format from the first bytes (FIT's ".FIT" signature, an XML root element).
    public static func sniff(_ bytes: [UInt8]) -> ActivityFormat? {
        if bytes.count >= 12, Array(bytes[8..<12]) == Array(".FIT".utf8) { return .fit }
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        if head.contains("<TrainingCenterDatabase") { return .tcx }
        if head.contains("<gpx") { return .gpx }
        return nil
    }

    /// Reads a file of this format (CSV is written only), refusing anything past `limits`.
    public func read(_ bytes: [UInt8], limits: ActivityLimits = .standard) throws(ActivityFileError) -> Activity {
        switch self {
        case .fit: try FITReader.read(bytes, limits: limits)
        case .gpx: try GPXReader.read(bytes, limits: limits)
        case .tcx: try TCXReader.read(bytes, limits: limits)
        case .csv: throw .format("CSV files are written for spreadsheets, not read back: import the FIT, GPX or TCX")
        }
    }

    /// Writes the activity in this format.
    public func write(_ activity: Activity) -> [UInt8] {
        switch self {
        case .fit: FITWriter.write(activity)
        case .gpx: Array(GPXWriter.write(activity).utf8)
        case .tcx: Array(TCXWriter.write(activity).utf8)
        case .csv: Array(CSVWriter.write(activity).utf8)
        }
    }
}

/// Totals worked out from points and events, for files that do not carry their own (GPX) and
/// for laps and sessions a FIT file leaves out.
enum Totals {
    /// Timer seconds from `from` to `to` (elapsed seconds), pauses excluded.
    static func timerSeconds(_ activity: Activity, from: Int64, to: Int64) -> Double {
        var paused: Int64 = 0
        for pause in activity.pauses {
            let start = max(pause.pause, from)
            let end = min(pause.resume ?? to, to)
            if end > start { paused += end - start }
        }
        return Double(max(0, to - from - paused)) / 1e9
    }

    /// Statistics over points, with the distance and timer time given.
    static func statistics(_ points: some Collection<RecordPoint>, distance: Double, timer: Double) -> RunStatistics {
        var accumulator = StatisticsAccumulator()
        for p in points { accumulator.add(p) }
        return accumulator.statistics(distanceMeters: distance, timerSeconds: timer)
    }

    /// One lap over the whole activity, for files without laps.
    static func wholeLap(_ activity: Activity) -> Lap {
        Lap(
            index: 1, trigger: .sessionEnd, startElapsedSeconds: 0,
            endElapsedSeconds: Int(activity.summary.elapsedSeconds.rounded()), statistics: activity.summary.statistics)
    }

    /// Great-circle distance in metres (haversine, mean Earth radius), for positions without a
    /// recorded distance.
    static func haversine(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_008.8
        let p1 = lat1 * .pi / 180
        let p2 = lat2 * .pi / 180
        let dp = p2 - p1
        let dl = (lon2 - lon1) * .pi / 180
        let a = sin2(dp / 2) + cos(p1) * cos(p2) * sin2(dl / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }

    /// A point counts as moving at 0.5 m/s or more (a slow walk), the recorder's own threshold
    /// for files that do not say.
    static let movingSpeed = 0.5
}

private func sin2(_ x: Double) -> Double {
    let s = sin(x)
    return s * s
}

extension Activity {
    /// A ride's cadence is its crank's: FIT's `cadence` field and GPX's `cad` count revolutions
    /// per minute for cycling and strides for running. The readers, which may learn the sport only
    /// at the end, read every cadence as steps (`stepsPerRevolution` 2: strides doubled; 1: TCX's
    /// own `<Cadence>`); for a ride this moves it back, exact for whole revolutions, within half a
    /// revolution for a fractional one.
    mutating func cadenceIsCrank(stepsPerRevolution: Int = 2) {
        for i in points.indices where points[i].cadenceSPM != nil {
            // Rounded half up, in whole numbers: no value a file holds can overflow it.
            points[i].cadenceRPM = points[i].cadenceSPM.map {
                $0 / stepsPerRevolution + ($0 % stepsPerRevolution * 2 >= stepsPerRevolution ? 1 : 0)
            }
            points[i].cadenceSPM = nil
        }
        func move(_ s: inout RunStatistics) {
            if let cadence = s.averageCadence { s.averageCrankCadence = cadence / Double(stepsPerRevolution) }
            s.averageCadence = nil
        }
        for i in laps.indices { move(&laps[i].statistics) }
        move(&summary.statistics)
    }
}
