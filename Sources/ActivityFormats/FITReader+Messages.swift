import HandoffModel

extension FITReader {
    /// The messages an activity is made from, kept compactly: each record message becomes a
    /// point as it is read (its `elapsedSeconds` holding the FIT timestamp until the start is
    /// known), so a file's records are never held twice.
    struct Messages {
        struct Summary {
            var timestamp: Int64?
            var startTime: Int64?
            var elapsed: Int64?, timer: Int64?, distance: Int64?, moving: Int64?
            var heartRate: (average: Int64?, maximum: Int64?)
            /// Steps per minute, its fractional part included.
            var averageCadence: Double?
            /// The enhanced maximum speed, or the plain one (mm/s).
            var maximumSpeed: Int64?
            var trigger: Int64?
            var sport: Int64?
            /// `total_cycles`: strides when running or walking, crank revolutions when riding.
            var cycles: Int64? = nil
        }
        let limits: ActivityLimits
        var fileType: Int64?
        var creator: Activity.Creator?
        /// Points by FIT timestamp, at most one a second, in time order.
        var points: [RecordPoint] = []
        var firstRecordTimestamp: Int64?
        var lastRecordTimestamp: Int64?
        /// Distance so far: the device's own, or measured along the positions when it records none.
        var odometer = Odometer()
        var timerEvents: [(timestamp: Int64, type: Int64)] = []
        var laps: [Summary] = []
        var sessions: [Summary] = []
        /// RR intervals in ms, with the timestamp of the last record before them, and their count.
        var hrv = RRIntervals()
        var emptyMessages = 0

        /// A FIT `date_time` that is a date in 1980–2100, not a time since power-on.
        static func date(_ value: Int64?) -> Int64? {
            guard let value, value >= Int64(FIT.minimumDateTime), value <= FIT.maximumDateTime else { return nil }
            return value
        }

        mutating func add(_ m: DataMessage, timestamp: Int64?, offset: Int) throws(ActivityFileError) {
            switch m.definition.global {
            case FIT.Message.fileID:
                guard fileType == nil else { return }
                fileType = m.value(0)
                creator = Activity.Creator(
                    manufacturer: UInt16(clamping: m.value(1) ?? 0xFFFF), product: UInt16(clamping: m.value(2) ?? 0),
                    serialNumber: m.value(3).map { UInt32(clamping: $0) },
                    name: "FIT manufacturer \(m.value(1) ?? 0xFFFF), product \(m.value(2) ?? 0)")
            case FIT.Message.record:
                guard let timestamp = Self.date(timestamp) else { return }
                try addRecord(m, timestamp: timestamp)
            case FIT.Message.event:
                guard let timestamp = Self.date(timestamp), m.value(0) == Int64(FIT.Event.timer),
                    let type = m.value(1)
                else { return }
                guard timerEvents.count < limits.maximumTimerEvents else {
                    throw .tooLarge("the FIT file holds more than \(limits.maximumTimerEvents) timer events")
                }
                timerEvents.append((timestamp, type))
            case FIT.Message.lap:
                guard laps.count < limits.maximumLaps else {
                    throw .tooLarge("the FIT file holds more than \(limits.maximumLaps) laps")
                }
                laps.append(try summary(m, timestamp: timestamp, lap: true, offset: offset))
            case FIT.Message.session:
                guard sessions.count < limits.maximumSessions else {
                    throw .tooLarge("the FIT file holds more than \(limits.maximumSessions) sessions")
                }
                sessions.append(try summary(m, timestamp: timestamp, lap: false, offset: offset))
            case FIT.Message.hrv:
                let values = m.values(0)
                hrv.count += values.count
                guard hrv.count <= limits.maximumRRIntervals else {
                    throw .tooLarge(
                        "the FIT file holds more than \(limits.maximumRRIntervals) beat-to-beat (RR) intervals")
                }
                if !values.isEmpty { hrv.batches.append((lastRecordTimestamp, values)) }
            default:
                return
            }
        }

        /// One record message, as a point (two in one second: the later one's values).
        private mutating func addRecord(_ r: DataMessage, timestamp: Int64) throws(ActivityFileError) {
            if firstRecordTimestamp == nil { firstRecordTimestamp = timestamp }
            lastRecordTimestamp = timestamp
            let lat = r.value(0).map { Double($0) / FIT.semicirclesPerDegree }
            let lon = r.value(1).map { Double($0) / FIT.semicirclesPerDegree }
            if let lat, let lon {
                guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                    let time = WallInstant(nanosecondsSinceEpoch: (timestamp + FIT.epochOffset) * nanosecondsPerSecond)
                    throw .value(
                        line: nil,
                        problem:
                            "a record at \(CivilTime(time).iso8601()) has position \(lat)°, \(lon)°, which is not on Earth"
                    )
                }
            }
            odometer.add(deviceDistance: r.value(5), latitude: lat, longitude: lon)
            let distance = odometer.distance
            let altitude = (r.value(78) ?? r.value(2)).map { Double($0) / 5 - 500 }
            let speed = (r.value(73) ?? r.value(6)).map { Double($0) / 1000 }
            let cadence = r.value(4).map { whole -> Int in
                let strides = Double(whole) + Double(r.value(53) ?? 0) / 128
                return Int((min(strides, ActivityLimits.maximumCadence) * 2).rounded())
            }
            let heartRate = r.value(3).map { Int(min($0, Int64(ActivityLimits.maximumHeartRate))) }
            let previous = points.last
            let hasPosition = lat != nil && lon != nil
            let point = RecordPoint(
                elapsedSeconds: Int(timestamp), latitude: hasPosition ? lat : nil,
                longitude: hasPosition ? lon : nil, altitudeMeters: altitude,
                gpsFix: hasPosition ? (altitude != nil ? .threeD : .twoD) : .none,
                speedMetersPerSecond: speed, distanceMeters: distance, heartRateBPM: heartRate,
                cadenceSPM: cadence,
                isMoving: (speed ?? 0) >= Totals.movingSpeed || distance > (previous?.distanceMeters ?? 0) + 0.5)
            if let previous, previous.elapsedSeconds >= point.elapsedSeconds {
                // Two records in one second (or out of order): keep the later one's values.
                if previous.elapsedSeconds == point.elapsedSeconds { points[points.count - 1] = point }
                return
            }
            guard points.count < limits.maximumPoints else { throw limits.tooManyPoints }
            points.append(point)
        }

        /// A lap's or session's totals; times past a month are refused, naming the field.
        private func summary(
            _ m: DataMessage, timestamp: Int64?, lap: Bool, offset: Int
        ) throws(ActivityFileError) -> Summary {
            let owner = lap ? "a lap" : "a session"
            func milliseconds(_ field: UInt8, _ name: String) throws(ActivityFileError) -> Int64? {
                guard let v = m.value(field) else { return nil }
                guard v >= 0, Double(v) <= limits.maximumDurationSeconds * 1000 else {
                    throw .fitRecord(
                        offset: offset,
                        problem:
                            "\(owner)'s \(name) is \(ActivityLimits.describeDuration(Double(v) / 1000)), longer than the \(ActivityLimits.describeDuration(limits.maximumDurationSeconds)) Handoff reads"
                    )
                }
                return v
            }
            return Summary(
                timestamp: Self.date(timestamp), startTime: Self.date(m.value(2)),
                elapsed: try milliseconds(7, "total_elapsed_time"), timer: try milliseconds(8, "total_timer_time"),
                distance: m.value(9), moving: try milliseconds(lap ? 52 : 59, "total_moving_time"),
                heartRate: (m.value(lap ? 15 : 16), m.value(lap ? 16 : 17)),
                averageCadence: m.value(lap ? 17 : 18).map {
                    (Double($0) + Double(m.value(lap ? 80 : 92) ?? 0) / 128) * 2
                },
                maximumSpeed: m.value(lap ? 111 : 125) ?? m.value(lap ? 14 : 15),
                trigger: m.value(lap ? 24 : 28), sport: m.value(lap ? 25 : 5), cycles: m.value(10))
        }

        /// The activity these messages describe.
        mutating func activity() throws(ActivityFileError) -> Activity {
            if let type = fileType, type != 4 {
                throw .format(
                    "this FIT file is not an activity (its file type is \(type); activities are 4): export the activity from the device or its app"
                )
            }
            let firstStart = timerEvents.first { $0.type == Int64(FIT.Event.start) }?.timestamp
            let candidates = [sessions.first?.startTime, firstStart, firstRecordTimestamp, laps.first?.startTime]
            guard var startSecond = candidates.compactMap({ $0 }).first else {
                throw .format("this FIT file holds no timed records, laps or sessions: there is no activity in it")
            }
            if let first = firstRecordTimestamp { startSecond = min(startSecond, first) }
            let start = WallInstant(nanosecondsSinceEpoch: (startSecond + FIT.epochOffset) * nanosecondsPerSecond)
            // Every time below is a checked FIT date (1998–2100), so these differences fit an Int.
            func elapsed(_ t: Int64) -> Int { Int(t - startSecond) }

            for i in points.indices { points[i].elapsedSeconds -= Int(startSecond) }
            let points = self.points
            self.points = []

            var events: [SessionEvent] = []
            var running = false
            for (t, type) in timerEvents {
                let offset = Int64(elapsed(t)) * nanosecondsPerSecond
                if type == Int64(FIT.Event.start) {
                    if !running {
                        events.append(SessionEvent(offsetNanoseconds: offset, kind: events.isEmpty ? .start : .resume))
                    }
                    running = true
                } else if running {
                    events.append(SessionEvent(offsetNanoseconds: offset, kind: .pause))
                    running = false
                }
            }
            if let last = events.last, last.kind == .pause { events[events.count - 1].kind = .stop }

            let lastSecond =
                [lastRecordTimestamp, sessions.last?.timestamp, laps.last?.timestamp]
                .compactMap { $0 }.max() ?? startSecond
            guard Double(lastSecond - startSecond) <= limits.maximumDurationSeconds else {
                throw limits.tooLong(Double(lastSecond - startSecond))
            }
            var activity = Activity(
                start: start, sport: Activity.Sport(fit: UInt8(clamping: sessions.first?.sport ?? 0)), points: points,
                events: events,
                summary: RunSummary(
                    elapsedSeconds: Double(lastSecond - startSecond), statistics: RunStatistics(), splits: []),
                creator: creator ?? Activity.Creator(manufacturer: 0xFFFF, product: 0, name: "unknown FIT device"))
            let wholeTimer = Totals.timerSeconds(
                activity, from: 0, to: (lastSecond - startSecond) * nanosecondsPerSecond)

            // Laps take their points by binary search. Laps of real files do not overlap, so the
            // points they cover add up to about the whole; once crafted, overlapping laps have
            // looked at four times that many, the rest keep their own totals only.
            var budget = 4 * points.count + 4 * laps.count
            activity.laps = laps.enumerated().map { i, lap in
                let lapStart = elapsed(lap.startTime ?? lap.timestamp ?? startSecond)
                let lapEnd = lap.timestamp.map(elapsed) ?? lapStart + Int((lap.elapsed ?? 0) / 1000)
                let first = points.partitioningIndex { $0.elapsedSeconds >= lapStart }
                let end = max(first, points.partitioningIndex { $0.elapsedSeconds > lapEnd })
                budget -= end - first
                let inside = budget >= 0 ? points[first..<end] : []
                return Lap(
                    index: i + 1, trigger: Self.trigger(lap.trigger), startElapsedSeconds: lapStart,
                    endElapsedSeconds: lapEnd, statistics: Self.statistics(lap, points: inside))
            }

            if sessions.isEmpty {
                let distance =
                    laps.isEmpty
                    ? (points.last?.distanceMeters ?? 0) : laps.reduce(0) { $0 + Double($1.distance ?? 0) / 100 }
                let timer = laps.isEmpty ? wholeTimer : laps.reduce(0) { $0 + Double($1.timer ?? 0) / 1000 }
                activity.summary.statistics = Totals.statistics(points, distance: distance, timer: timer)
            } else {
                var total = Self.statistics(sessions[0], points: points[...])
                for s in sessions.dropFirst() {
                    let more = Self.statistics(s, points: [])
                    total.distanceMeters += more.distanceMeters
                    total.timerSeconds += more.timerSeconds
                    total.movingSeconds += more.movingSeconds
                }
                activity.summary.statistics = total
                // Steps are two a stride; a ride's cycles are its crank's, not steps.
                if activity.sport != .cycling {
                    let strides = sessions.compactMap(\.cycles).filter { $0 >= 0 && $0 <= Int64(UInt32.max) }
                    if !strides.isEmpty { activity.summary.steps = strides.reduce(0) { $0 + Int($1) } * 2 }
                }
                if let first = sessions.first, let last = sessions.last, let s = first.startTime,
                    let e = last.timestamp,
                    e >= s
                {
                    activity.summary.elapsedSeconds = Double(e - startSecond)
                    if sessions.count == 1, let elapsed = first.elapsed {
                        activity.summary.elapsedSeconds = Double(elapsed) / 1000
                    }
                }
            }

            activity.rrIntervals = hrv.batches.map { t, ms in
                RRIntervalBatch(
                    sensor: "fit", offsetNanoseconds: Int64(t.map(elapsed) ?? 0) * nanosecondsPerSecond,
                    intervals1024ths: ms.map { UInt16(clamping: (min(max($0, 0), 65_535) * 1024 + 500) / 1000) })
            }
            if activity.sport == .cycling { activity.cadenceIsCrank() }
            return activity
        }

        static func trigger(_ value: Int64?) -> LapTrigger {
            switch value {
            case Int64(FIT.LapTriggerValue.distance): .distance
            case Int64(FIT.LapTriggerValue.sessionEnd): .sessionEnd
            default: .manual
            }
        }

        /// A lap's or session's own totals, the points filling in what it leaves out.
        static func statistics(_ s: Summary, points: ArraySlice<RecordPoint>) -> RunStatistics {
            let fromPoints = Totals.statistics(
                points, distance: Double(s.distance ?? 0) / 100, timer: Double(s.timer ?? s.elapsed ?? 0) / 1000)
            var statistics = fromPoints
            if let moving = s.moving { statistics.movingSeconds = Int((Double(moving) / 1000).rounded()) }
            if let hr = s.heartRate.average { statistics.averageHeartRate = Double(hr) }
            if let hr = s.heartRate.maximum { statistics.maximumHeartRate = Int(hr) }  // Int64 to Int: exact
            if let cadence = s.averageCadence {
                statistics.averageCadence = cadence
            }
            if let speed = s.maximumSpeed { statistics.maximumSpeed = Double(speed) / 1000 }
            return statistics
        }
    }
}

/// Distance along a file's records: the device's own when it records one, else measured along
/// the positions (a file that records distance anywhere is trusted from then on).
struct Odometer {
    private(set) var distance = 0.0
    private var lastPosition: (Double, Double)?
    private var anyDistance = false

    /// A record's distance field (cm) and position.
    mutating func add(deviceDistance: Int64?, latitude: Double?, longitude: Double?) {
        if let d = deviceDistance {
            distance = Double(d) / 100
            anyDistance = true
        } else if !anyDistance, let latitude, let longitude {
            if let (plat, plon) = lastPosition { distance += Totals.haversine(plat, plon, latitude, longitude) }
        }
        if let latitude, let longitude { lastPosition = (latitude, longitude) }
    }
}

/// A file's RR intervals in ms, each batch with the timestamp of the last record before it, and
/// how many there are.
struct RRIntervals {
    var batches: [(timestamp: Int64?, milliseconds: [Int64])] = []
    var count = 0
}
