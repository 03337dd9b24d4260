import HandoffModel

/// TCX (Training Center Database v2) out: one Activity, a Lap per lap with its totals, a Track
/// per pause-separated part of it, heart rate in the track points, and speed and running
/// cadence (strides per minute) in ActivityExtension v2.
public enum TCXWriter {
    public static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    public static let activityExtension = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"

    public static func write(_ activity: Activity) -> String {
        let start = CivilTime(activity.start).iso8601(milliseconds: true)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="\(namespace)" xmlns:ns3="\(activityExtension)" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="\(namespace) \
            http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd">
             <Activities>
              <Activity Sport="\(activity.sport.tcx)">
               <Id>\(start)</Id>

            """
        out.reserveCapacity(activity.points.count * 420)
        let laps = activity.laps.isEmpty ? [Totals.wholeLap(activity)] : activity.laps
        let resumes = Set(activity.parts.dropFirst().compactMap { $0.first?.elapsedSeconds })
        var next = activity.points.startIndex
        for (i, lap) in laps.enumerated() {
            let s = lap.statistics
            let lapStart = activity.start.advanced(byNanoseconds: Int64(lap.startElapsedSeconds) * nanosecondsPerSecond)
            out += "   <Lap StartTime=\"\(CivilTime(lapStart).iso8601(milliseconds: true))\">\n"
            out += "    <TotalTimeSeconds>\(XMLText.decimal(s.timerSeconds, 3))</TotalTimeSeconds>\n"
            out += "    <DistanceMeters>\(XMLText.decimal(s.distanceMeters, 3))</DistanceMeters>\n"
            if let max = s.maximumSpeed { out += "    <MaximumSpeed>\(XMLText.decimal(max, 3))</MaximumSpeed>\n" }
            out += "    <Calories>0</Calories>\n"
            if let avg = s.averageHeartRate, avg >= 1 {
                out += "    <AverageHeartRateBpm><Value>\(min(255, Int(avg.rounded())))</Value></AverageHeartRateBpm>\n"
            }
            if let max = s.maximumHeartRate, max >= 1 {
                out += "    <MaximumHeartRateBpm><Value>\(min(255, max))</Value></MaximumHeartRateBpm>\n"
            }
            out += "    <Intensity>Active</Intensity>\n"
            if activity.sport == .cycling, let rpm = s.averageCrankCadence, rpm >= 0, rpm < 254.5 {
                out += "    <Cadence>\(Int(rpm.rounded()))</Cadence>\n"
            }
            out += "    <TriggerMethod>\(lap.trigger == .distance ? "Distance" : "Manual")</TriggerMethod>\n"
            // The lap's points: those after the previous lap's end, up to its own.
            let last =
                i == laps.count - 1
                ? activity.points.endIndex
                : activity.points[next...].firstIndex { $0.elapsedSeconds > lap.endElapsedSeconds }
                    ?? activity.points.endIndex
            var open = false
            for p in activity.points[next..<last] {
                if !open || resumes.contains(p.elapsedSeconds) {
                    if open { out += "    </Track>\n" }
                    out += "    <Track>\n"
                    open = true
                }
                trackpoint(p, activity: activity, into: &out)
            }
            if open { out += "    </Track>\n" }
            next = last
            out += "    <Extensions>\n     <ns3:LX>\n"
            if s.timerSeconds > 0 {
                out += "      <ns3:AvgSpeed>\(XMLText.decimal(s.distanceMeters / s.timerSeconds, 3))</ns3:AvgSpeed>\n"
            }
            if activity.sport != .cycling, let cadence = s.averageCadence, cadence >= 0, cadence < 509 {
                out += "      <ns3:AvgRunCadence>\(Int((cadence / 2).rounded()))</ns3:AvgRunCadence>\n"
            }
            out += "     </ns3:LX>\n    </Extensions>\n   </Lap>\n"
        }
        let version = (activity.creator.softwareVersion ?? "0.0").split(separator: ".").compactMap { Int($0) }
        out += """
                <Creator xsi:type="Device_t">
                 <Name>\(XMLText.escape(activity.creator.name))</Name>
                 <UnitId>\(activity.creator.serialNumber ?? 0)</UnitId>
                 <ProductID>\(activity.creator.product)</ProductID>
                 <Version><VersionMajor>\(version.first ?? 0)</VersionMajor><VersionMinor>\(version.dropFirst().first ?? 0)</VersionMinor><BuildMajor>\(version.dropFirst(2).first ?? 0)</BuildMajor><BuildMinor>0</BuildMinor></Version>
                </Creator>
               </Activity>
              </Activities>
             </TrainingCenterDatabase>

            """
        return out
    }

    private static func trackpoint(_ p: RecordPoint, activity: Activity, into out: inout String) {
        let time = activity.start.advanced(byNanoseconds: Int64(p.elapsedSeconds) * nanosecondsPerSecond)
        out += "     <Trackpoint>\n      <Time>\(CivilTime(time).iso8601(milliseconds: true))</Time>\n"
        if let lat = p.latitude, let lon = p.longitude {
            out += "      <Position><LatitudeDegrees>\(XMLText.decimal(lat, 8))</LatitudeDegrees>"
            out += "<LongitudeDegrees>\(XMLText.decimal(lon, 8))</LongitudeDegrees></Position>\n"
        }
        if let alt = p.altitudeMeters { out += "      <AltitudeMeters>\(XMLText.decimal(alt, 2))</AltitudeMeters>\n" }
        out += "      <DistanceMeters>\(XMLText.decimal(p.distanceMeters, 2))</DistanceMeters>\n"
        if let hr = p.heartRateBPM, (1...255).contains(hr) {
            out += "      <HeartRateBpm><Value>\(hr)</Value></HeartRateBpm>\n"
        }
        // A ride's crank in `<Cadence>`; a runner's strides in the extension's `<RunCadence>`.
        if let rpm = p.cadenceRPM, activity.sport == .cycling, (0...254).contains(rpm) {
            out += "      <Cadence>\(rpm)</Cadence>\n"
        }
        let cadence =
            activity.sport == .cycling ? nil : p.cadenceSPM.flatMap { (0...508).contains($0) ? $0 / 2 : nil }
        if p.speedMetersPerSecond != nil || cadence != nil {
            out += "      <Extensions><ns3:TPX>"
            if let speed = p.speedMetersPerSecond, speed >= 0 {
                out += "<ns3:Speed>\(XMLText.decimal(speed, 3))</ns3:Speed>"
            }
            if let cadence { out += "<ns3:RunCadence>\(cadence)</ns3:RunCadence>" }
            out += "</ns3:TPX></Extensions>\n"
        }
        out += "     </Trackpoint>\n"
    }
}

/// TCX in: the first Activity's laps, with their own totals (the file's session totals are
/// their sums), and track points. A new Track inside a lap, or a lap that began later than the
/// previous one's time allows, is a pause.
public enum TCXReader {
    /// Reads `bytes`, refusing anything past `limits`.
    public static func read(_ bytes: [UInt8], limits: ActivityLimits = .standard) throws(ActivityFileError) -> Activity
    {
        var parser = try XMLPullParser(bytes)
        struct LapData {
            var start: WallInstant
            var totalTime = 0.0, distance = 0.0
            var maximumSpeed: Double?, averageHeartRate: Double?, maximumHeartRate: Int?, averageCadence: Double?
            var trigger: LapTrigger = .manual
            var tracks: [[(WallInstant, RecordPoint)]] = []
        }
        var laps: [LapData] = []
        var tracks = 0
        var pointCount = 0
        var activities = 0
        var sport: Activity.Sport = .other
        var id: WallInstant?
        var point: (time: WallInstant?, point: RecordPoint)?
        var path: [Substring] = []
        var creatorName: String?
        while let event = try parser.next() {
            switch event {
            case .start(let name, let attributes):
                path.append(name)
                switch name {
                case "TrainingCenterDatabase":
                    guard parser.rootNamespace == TCXWriter.namespace else {
                        throw .format(
                            "not a TCX v2 file: its namespace is \(parser.rootNamespace.map { "\"\($0)\"" } ?? "missing")"
                        )
                    }
                case "Activity":
                    activities += 1
                    if activities == 1 {
                        switch attributes.first(where: { $0.name == "Sport" })?.value {
                        case "Running": sport = .running
                        case "Biking": sport = .cycling
                        default: sport = .other
                        }
                    }
                case "Lap" where activities == 1:
                    guard let text = attributes.first(where: { $0.name == "StartTime" })?.value,
                        let start = XMLText.time(text)
                    else { throw .value(line: parser.line, problem: "a <Lap> has no valid StartTime") }
                    guard laps.count < limits.maximumLaps else {
                        throw .tooLarge("the TCX file holds more than \(limits.maximumLaps) laps")
                    }
                    laps.append(LapData(start: start))
                case "Track" where activities == 1 && !laps.isEmpty:
                    tracks += 1
                    guard tracks <= limits.maximumPoints else { throw limits.tooManyPoints }
                    laps[laps.count - 1].tracks.append([])
                case "Trackpoint" where activities == 1 && !(laps.last?.tracks.isEmpty ?? true):
                    point = (nil, RecordPoint(elapsedSeconds: 0, distanceMeters: -1))
                default: break
                }
            case .end(let name, let text):
                let parent = path.count >= 2 ? path[path.count - 2] : ""
                path.removeLast()
                guard activities == 1 else { continue }
                if var p = point {
                    if name == "Trackpoint" {
                        // A <Lap> opened inside this <Trackpoint> (found by fuzzing) has no track
                        // yet: the point has nowhere to go and is dropped.
                        if let time = p.time, !laps[laps.count - 1].tracks.isEmpty {
                            pointCount += 1
                            guard pointCount <= limits.maximumPoints else { throw limits.tooManyPoints }
                            laps[laps.count - 1].tracks[laps[laps.count - 1].tracks.count - 1].append((time, p.point))
                        }
                        point = nil
                    } else {
                        try set(&p, name: name, parent: parent, text: text, line: parser.line)
                        point = p
                    }
                    continue
                }
                if name == "Id", parent == "Activity" { id = XMLText.time(String(text.trimmingSpaces)) }
                if name == "Name", parent == "Creator" { creatorName = String(text.trimmingSpaces) }
                guard !laps.isEmpty else { continue }
                let value = XMLText.number(text)
                switch (name, parent) {
                case ("TotalTimeSeconds", "Lap"):
                    laps[laps.count - 1].totalTime = try positive(value, name, parser.line)
                case ("DistanceMeters", "Lap"): laps[laps.count - 1].distance = try positive(value, name, parser.line)
                case ("MaximumSpeed", "Lap"): laps[laps.count - 1].maximumSpeed = value
                case ("Value", "AverageHeartRateBpm"): laps[laps.count - 1].averageHeartRate = value
                case ("Value", "MaximumHeartRateBpm"):
                    laps[laps.count - 1].maximumHeartRate = try value.map { v throws(ActivityFileError) in
                        try ActivityLimits.integer(
                            v, "<MaximumHeartRateBpm>", in: 0...ActivityLimits.maximumHeartRate, line: parser.line)
                    }
                case ("AvgRunCadence", "LX"):
                    laps[laps.count - 1].averageCadence = try value.map { v throws(ActivityFileError) in
                        try ActivityLimits.number(
                            v, "<AvgRunCadence>", in: 0...ActivityLimits.maximumCadence / 2, line: parser.line) * 2
                    }
                case ("Cadence", "Lap"):
                    laps[laps.count - 1].averageCadence = laps[laps.count - 1].averageCadence ?? value
                case ("TriggerMethod", "Lap"):
                    laps[laps.count - 1].trigger = text.trimmingSpaces == "Distance" ? .distance : .manual
                default: break
                }
            }
        }
        guard parser.rootName == "TrainingCenterDatabase" else {
            throw .format(
                "not a TCX file: the root element is <\(parser.rootName ?? "")>, not <TrainingCenterDatabase>")
        }
        guard let firstLap = laps.first else {
            throw .format("the TCX file has no activity with laps: nothing in it was recorded")
        }
        let firstPoint = laps.lazy.flatMap { $0.tracks }.flatMap { $0 }.first?.0
        let start = [firstLap.start, id, firstPoint].compactMap { $0 }.min()!

        // Parts: each track; a pause before it when it is not its lap's first, or when its lap
        // began more than a second after the previous lap's last point.
        var parts: [[RecordPoint]] = []
        var times: [[WallInstant]] = []
        var pauseBefore: [Bool] = []
        var lastTime: WallInstant?
        for lap in laps {
            for (j, track) in lap.tracks.enumerated() where !track.isEmpty {
                var pause = j > 0
                if j == 0, let lastTime {
                    pause = lap.start.nanosecondsSinceEpoch - lastTime.nanosecondsSinceEpoch > nanosecondsPerSecond
                }
                lastTime = track.last?.0
                parts.append(track.map(\.1))
                times.append(track.map(\.0))
                pauseBefore.append(pause)
            }
        }
        var activity = TrackAssembly.activity(start: start, parts: parts, times: times, pauseBefore: pauseBefore)
        activity.sport = sport
        activity.creator = Activity.Creator(
            manufacturer: 0xFFFF, product: 0, name: creatorName ?? "unknown TCX creator")
        let points = activity.points
        activity.laps = laps.enumerated().map { i, lap in
            let lapStart = Int((Double(lap.start.nanosecondsSinceEpoch - start.nanosecondsSinceEpoch) / 1e9).rounded())
            let nextStart =
                i + 1 < laps.count
                ? Int((Double(laps[i + 1].start.nanosecondsSinceEpoch - start.nanosecondsSinceEpoch) / 1e9).rounded())
                : nil
            // Points are in time order: each lap's are found by binary search, not by a scan.
            let first = points.partitioningIndex {
                $0.elapsedSeconds > lapStart || (i == 0 && $0.elapsedSeconds == lapStart)
            }
            let stop = max(
                first,
                nextStart.map { next in points.partitioningIndex { $0.elapsedSeconds > next } } ?? points.endIndex)
            let inside = points[first..<stop]
            var statistics = Totals.statistics(inside, distance: lap.distance, timer: lap.totalTime)
            statistics.averageHeartRate = lap.averageHeartRate ?? statistics.averageHeartRate
            statistics.maximumHeartRate = lap.maximumHeartRate ?? statistics.maximumHeartRate
            statistics.maximumSpeed = lap.maximumSpeed ?? statistics.maximumSpeed
            statistics.averageCadence = lap.averageCadence ?? statistics.averageCadence
            let end = max(lapStart, inside.last?.elapsedSeconds ?? lapStart)
            return Lap(
                index: i + 1, trigger: lap.trigger, startElapsedSeconds: lapStart, endElapsedSeconds: end,
                statistics: statistics)
        }
        var total = Totals.statistics(
            points, distance: laps.reduce(0) { $0 + $1.distance }, timer: laps.reduce(0) { $0 + $1.totalTime })
        if total.distanceMeters == 0 { total.distanceMeters = points.last?.distanceMeters ?? 0 }
        activity.summary.statistics = total
        activity.summary.elapsedSeconds = max(
            activity.summary.elapsedSeconds, Double(activity.laps.last?.endElapsedSeconds ?? 0))
        // A ride's `<Cadence>` is its crank's, kept as read.
        if sport == .cycling { activity.cadenceIsCrank(stepsPerRevolution: 1) }
        return try activity.checked(against: limits)
    }

    private static func positive(_ value: Double?, _ name: Substring, _ line: Int) throws(ActivityFileError) -> Double {
        guard let value, value >= 0 else { throw .value(line: line, problem: "<\(name)> is not a number of 0 or more") }
        return value
    }

    private static func set(
        _ p: inout (time: WallInstant?, point: RecordPoint), name: Substring, parent: Substring, text: String, line: Int
    ) throws(ActivityFileError) {
        func number() throws(ActivityFileError) -> Double {
            guard let v = XMLText.number(text) else {
                throw .value(line: line, problem: "<\(name)> holds \"\(text.trimmingSpaces)\", which is not a number")
            }
            return v
        }
        switch (name, parent) {
        case ("Time", _):
            guard let t = XMLText.time(String(text.trimmingSpaces)) else {
                throw .value(
                    line: line, problem: "<Time> holds \"\(text.trimmingSpaces)\", which is not an ISO 8601 time")
            }
            p.time = t
        case ("LatitudeDegrees", _):
            let lat = try number()
            guard (-90...90).contains(lat) else {
                throw .value(line: line, problem: "latitude \(lat) is not from -90 to 90")
            }
            p.point.latitude = lat
            p.point.gpsFix = .twoD
        case ("LongitudeDegrees", _):
            let lon = try number()
            guard (-180...180).contains(lon) else {
                throw .value(line: line, problem: "longitude \(lon) is not from -180 to 180")
            }
            p.point.longitude = lon
        case ("AltitudeMeters", _):
            p.point.altitudeMeters = try number()
            if p.point.gpsFix == .twoD { p.point.gpsFix = .threeD }
        case ("DistanceMeters", _):
            let d = try number()
            guard d >= 0 else { throw .value(line: line, problem: "distance \(d) m is negative") }
            p.point.distanceMeters = d
        case ("Value", "HeartRateBpm"):
            let hr = try number()
            guard (0...255).contains(hr) else { throw .value(line: line, problem: "heart rate \(hr) is not 0–255 bpm") }
            p.point.heartRateBPM = Int(hr.rounded())
        case ("RunCadence", _):
            // Strides a minute; the point keeps steps, so it is doubled once it is known to fit.
            p.point.cadenceSPM =
                try ActivityLimits.integer(
                    try number(), "<RunCadence>", in: 0...ActivityLimits.maximumCadence / 2, line: line) * 2
        case ("Cadence", "Trackpoint"):
            let cadence = try ActivityLimits.integer(
                try number(), "<Cadence>", in: 0...ActivityLimits.maximumCadence, line: line)
            p.point.cadenceSPM = p.point.cadenceSPM ?? cadence
        case ("Speed", _):
            let speed = try number()
            guard speed >= 0, speed < 1000 else {
                throw .value(line: line, problem: "speed \(speed) m/s is impossible")
            }
            p.point.speedMetersPerSecond = speed
        default: break
        }
    }
}

/// CSV out, one row per record point, for spreadsheets: times in UTC and seconds from the
/// start, empty cells where a value is absent.
public enum CSVWriter {
    public static let header =
        "time,elapsed_s,latitude,longitude,altitude_m,distance_m,speed_mps,heart_rate_bpm,cadence_spm,gps_fix,hdop,moving"

    public static func write(_ activity: Activity) -> String {
        var out = header + "\n"
        out.reserveCapacity(activity.points.count * 110)
        for p in activity.points {
            let time = activity.start.advanced(byNanoseconds: Int64(p.elapsedSeconds) * nanosecondsPerSecond)
            var cells = [CivilTime(time).iso8601(milliseconds: true), String(p.elapsedSeconds)]
            cells.append(p.latitude.map { XMLText.decimal($0, 8) } ?? "")
            cells.append(p.longitude.map { XMLText.decimal($0, 8) } ?? "")
            cells.append(p.altitudeMeters.map { XMLText.decimal($0, 2) } ?? "")
            cells.append(XMLText.decimal(p.distanceMeters, 2))
            cells.append(p.speedMetersPerSecond.map { XMLText.decimal($0, 3) } ?? "")
            cells.append(p.heartRateBPM.map(String.init) ?? "")
            cells.append(p.cadenceSPM.map(String.init) ?? "")
            cells.append(p.gpsFix == .none ? "" : p.gpsFix == .twoD ? "2d" : "3d")
            cells.append(p.hdop.map { XMLText.decimal($0, 2) } ?? "")
            cells.append(p.isMoving ? "1" : "0")
            out += cells.joined(separator: ",") + "\n"
        }
        return out
    }
}
