import HandoffModel

/// GPX 1.1 out: one track, one segment per pause-separated part, only points with a position
/// (GPX cannot hold others). Heart rate, cadence and speed go in Garmin's TrackPointExtension
/// v2; the fused distance, which GPX has no element for, in our own namespace so that a
/// reader does not re-measure a noisy track.
public enum GPXWriter {
    public static let namespace = "http://www.topografix.com/GPX/1/1"
    public static let trackPointExtensionV2 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    public static let handoffNamespace = "https://handoff.run/xmlschemas/TrackPoint/v1"

    public static func write(_ activity: Activity) -> String {
        let startText = CivilTime(activity.start).iso8601(milliseconds: true)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="\(XMLText.escape(activity.creator.name))" xmlns="\(namespace)" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:gpxtpx="\(trackPointExtensionV2)" \
            xmlns:handoff="\(handoffNamespace)" xsi:schemaLocation="\(namespace) http://www.topografix.com/GPX/1/1/gpx.xsd \
            \(trackPointExtensionV2) http://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">
             <metadata>
              <time>\(startText)</time>
             </metadata>
             <trk>
              <name>Handoff \(activity.sport.rawValue) \(startText)</name>
              <type>\(activity.sport.rawValue)</type>

            """
        out.reserveCapacity(activity.points.count * 330)
        for part in activity.parts {
            out += "  <trkseg>\n"
            for p in part {
                guard let lat = p.latitude, let lon = p.longitude else { continue }
                out += "   <trkpt lat=\"\(XMLText.decimal(lat, 8))\" lon=\"\(XMLText.decimal(lon, 8))\">\n"
                if let ele = p.altitudeMeters { out += "    <ele>\(XMLText.decimal(ele, 2))</ele>\n" }
                let time = activity.start.advanced(byNanoseconds: Int64(p.elapsedSeconds) * nanosecondsPerSecond)
                out += "    <time>\(CivilTime(time).iso8601(milliseconds: true))</time>\n"
                switch p.gpsFix {
                case .twoD: out += "    <fix>2d</fix>\n"
                case .threeD: out += "    <fix>3d</fix>\n"
                case .none: break
                }
                if let hdop = p.hdop { out += "    <hdop>\(XMLText.decimal(hdop, 2))</hdop>\n" }
                out += "    <extensions>\n     <gpxtpx:TrackPointExtension>\n"
                if let hr = p.heartRateBPM, (1...255).contains(hr) { out += "      <gpxtpx:hr>\(hr)</gpxtpx:hr>\n" }
                // Running cadence in GPX is strides (one foot) per minute, as Garmin writes it; a
                // ride's is the crank's revolutions.
                if activity.sport == .cycling {
                    if let rpm = p.cadenceRPM, (0...254).contains(rpm) {
                        out += "      <gpxtpx:cad>\(rpm)</gpxtpx:cad>\n"
                    }
                } else if let spm = p.cadenceSPM, (0...508).contains(spm) {
                    out += "      <gpxtpx:cad>\(spm / 2)</gpxtpx:cad>\n"
                }
                if let speed = p.speedMetersPerSecond, speed >= 0 {
                    out += "      <gpxtpx:speed>\(XMLText.decimal(speed, 3))</gpxtpx:speed>\n"
                }
                out += "     </gpxtpx:TrackPointExtension>\n"
                out += "     <handoff:distance>\(XMLText.decimal(p.distanceMeters, 2))</handoff:distance>\n"
                out += "    </extensions>\n   </trkpt>\n"
            }
            out += "  </trkseg>\n"
        }
        out += " </trk>\n</gpx>\n"
        return out
    }
}

/// GPX 1.0 and 1.1 in: every track's segments, in order, as pause-separated parts. Reads
/// Garmin's TrackPointExtension v1/v2 (hr, cad, speed), GPX 1.0's `<speed>`, our distance,
/// and a track's TrackStatsExtension totals when present. Routes and waypoints are plans, not
/// recordings, and are skipped.
public enum GPXReader {
    /// Reads `bytes`, refusing anything past `limits`.
    public static func read(_ bytes: [UInt8], limits: ActivityLimits = .standard) throws(ActivityFileError) -> Activity
    {
        var parser = try XMLPullParser(bytes)
        var segments: [[Sample]] = []
        var sampleCount = 0
        var current: Sample?
        var metadataTime: WallInstant?
        var inMetadata = false
        var inTrack = false
        var inSegment = false
        var stats: (distance: Double?, timer: Double?, moving: Double?) = (nil, nil, nil)
        var sport: Activity.Sport = .running
        var creator = "unknown GPX creator"
        while let event = try parser.next() {
            switch event {
            case .start(let name, let attributes):
                switch name {
                case "gpx":
                    let ns = parser.rootNamespace
                    guard ns == GPXWriter.namespace || ns == "http://www.topografix.com/GPX/1/0" else {
                        throw .format(
                            "not a GPX file: its namespace is \(ns.map { "\"\($0)\"" } ?? "missing") (GPX 1.0 and 1.1 are read)"
                        )
                    }
                    creator = attributes.first { $0.name == "creator" }?.value ?? creator
                case "metadata": inMetadata = true
                case "trk": inTrack = true
                case "trkseg" where inTrack:
                    inSegment = true
                    guard segments.count < limits.maximumPoints else { throw limits.tooManyPoints }
                    segments.append([])
                case "trkpt" where inSegment:
                    current = try Sample(attributes: attributes, line: parser.line)
                default: break
                }
            case .end(let name, let text):
                if var sample = current {
                    if name == "trkpt" {
                        if sample.time != nil {
                            sampleCount += 1
                            guard sampleCount <= limits.maximumPoints else {
                                throw limits.tooManyPoints
                            }
                            segments[segments.count - 1].append(sample)
                        }
                        current = nil
                    } else {
                        try sample.set(String(name), text, line: parser.line)
                        current = sample
                    }
                    continue
                }
                switch name {
                case "metadata": inMetadata = false
                case "time" where inMetadata: metadataTime = XMLText.time(String(text.trimmingSpaces))
                case "trk": inTrack = false
                case "trkseg": inSegment = false
                case "type" where inTrack:
                    sport = Activity.Sport(rawValue: String(text.trimmingSpaces).lowercased()) ?? sport
                case "Distance" where inTrack: stats.distance = XMLText.number(text)
                case "TimerTime" where inTrack: stats.timer = XMLText.number(text)
                case "MovingTime" where inTrack: stats.moving = XMLText.number(text)
                default: break
                }
            }
        }
        guard parser.rootName == "gpx" else {
            throw .format("not a GPX file: the root element is <\(parser.rootName ?? "")>, not <gpx>")
        }
        segments.removeAll { $0.isEmpty }
        guard let first = segments.first?.first?.time else {
            throw .format(
                "the GPX file has no track points with times: nothing in it was recorded (routes and waypoints are plans)"
            )
        }
        // The metadata time is when a file was made; Handoff writes the run's start there (its
        // first point covers the second after the start). Other creators' tracks start at their first point.
        let start = creator.hasPrefix("Handoff") ? metadataTime.map { min($0, first) } ?? first : first
        var activity = TrackAssembly.activity(
            start: start, parts: segments.map { $0.map(\.completed) }, times: segments.map { $0.map { $0.time! } })
        activity.sport = sport
        if sport == .cycling { activity.cadenceIsCrank() }
        activity.creator = Activity.Creator(manufacturer: 0xFFFF, product: 0, name: creator)
        if let distance = stats.distance, distance > 0 { activity.summary.statistics.distanceMeters = distance }
        if let timer = stats.timer, timer > 0 { activity.summary.statistics.timerSeconds = timer }
        if let moving = stats.moving, moving > 0 {
            activity.summary.statistics.movingSeconds = try ActivityLimits.integer(
                moving, "<MovingTime>", in: 0...limits.maximumDurationSeconds)
        }
        return try activity.checked(against: limits)
    }

    struct Sample {
        var time: WallInstant?
        var point = RecordPoint(elapsedSeconds: 0)
        var distance: Double?

        init(attributes: [(name: Substring, value: String)], line: Int) throws(ActivityFileError) {
            guard let latText = attributes.first(where: { $0.name == "lat" })?.value,
                let lonText = attributes.first(where: { $0.name == "lon" })?.value
            else { throw .value(line: line, problem: "a track point has no lat or lon attribute") }
            guard let lat = XMLText.number(latText), (-90...90).contains(lat) else {
                throw .value(line: line, problem: "latitude \(latText) is not a number from -90 to 90")
            }
            guard let lon = XMLText.number(lonText), (-180...180).contains(lon) else {
                throw .value(line: line, problem: "longitude \(lonText) is not a number from -180 to 180")
            }
            point.latitude = lat
            point.longitude = lon
            point.gpsFix = .twoD
        }

        mutating func set(_ name: String, _ text: String, line: Int) throws(ActivityFileError) {
            func number() throws(ActivityFileError) -> Double {
                guard let v = XMLText.number(text) else {
                    throw .value(
                        line: line, problem: "<\(name)> holds \"\(text.trimmingSpaces)\", which is not a number")
                }
                return v
            }
            switch name {
            case "time":
                guard let t = XMLText.time(String(text.trimmingSpaces)) else {
                    throw .value(
                        line: line, problem: "<time> holds \"\(text.trimmingSpaces)\", which is not an ISO 8601 time")
                }
                time = t
            case "ele":
                point.altitudeMeters = try number()
                if point.gpsFix == .twoD { point.gpsFix = .threeD }
            case "fix":
                let fix = text.trimmingSpaces
                if fix == "2d" { point.gpsFix = .twoD }
                if fix == "none" { point.gpsFix = .none }
            case "hdop": point.hdop = try number()
            case "hr":
                let hr = try number()
                guard (0...255).contains(hr) else {
                    throw .value(line: line, problem: "heart rate \(hr) is not 0–255 bpm")
                }
                point.heartRateBPM = Int(hr.rounded())
            case "cad":
                let cad = try number()
                guard (0...255).contains(cad) else {
                    throw .value(line: line, problem: "cadence \(cad) is not 0–255 rpm")
                }
                point.cadenceSPM = Int(cad.rounded()) * 2
            case "speed":
                let speed = try number()
                guard speed >= 0, speed < 1000 else {
                    throw .value(line: line, problem: "speed \(speed) m/s is impossible")
                }
                point.speedMetersPerSecond = speed
            case "distance":
                let d = try number()
                guard d >= 0 else { throw .value(line: line, problem: "distance \(d) m is negative") }
                distance = d
            default: break
            }
        }

        var completed: RecordPoint {
            var p = point
            if let distance { p.distanceMeters = distance } else { p.distanceMeters = -1 }
            return p
        }
    }
}

/// Builds an activity from timed points in pause-separated parts (GPX segments, TCX tracks):
/// elapsed seconds from the start, pauses between parts, distances measured along each part
/// where the file gave none (marked -1), and totals.
enum TrackAssembly {
    static func activity(
        start: WallInstant, parts: [[RecordPoint]], times: [[WallInstant]], pauseBefore: [Bool]? = nil
    ) -> Activity {
        var points: [RecordPoint] = []
        var events = [SessionEvent(offsetNanoseconds: 0, kind: .start)]
        var distance = 0.0
        for (index, (part, partTimes)) in zip(parts, times).enumerated() {
            var partPosition: (Double, Double)?
            var firstOfPart = true
            for (var p, time) in zip(part, partTimes) {
                let offset = time.nanosecondsSinceEpoch - start.nanosecondsSinceEpoch
                p.elapsedSeconds = Int((Double(offset) / 1e9).rounded())
                if p.distanceMeters >= 0 {
                    distance = p.distanceMeters
                } else {
                    if let lat = p.latitude, let lon = p.longitude, let (plat, plon) = partPosition {
                        distance += Totals.haversine(plat, plon, lat, lon)
                    }
                    p.distanceMeters = distance
                }
                if let lat = p.latitude, let lon = p.longitude { partPosition = (lat, lon) }
                guard let previous = points.last else {
                    p.isMoving = (p.speedMetersPerSecond ?? 0) >= Totals.movingSpeed
                    points.append(p)
                    firstOfPart = false
                    continue
                }
                let seconds = Double(max(1, p.elapsedSeconds - previous.elapsedSeconds))
                p.isMoving =
                    (p.speedMetersPerSecond ?? 0) >= Totals.movingSpeed
                    || (!firstOfPart && p.distanceMeters - previous.distanceMeters >= Totals.movingSpeed * seconds)
                if previous.elapsedSeconds >= p.elapsedSeconds {
                    // Two points in one second (or out of order): keep the later one's values.
                    if previous.elapsedSeconds == p.elapsedSeconds { points[points.count - 1] = p }
                    continue
                }
                if firstOfPart, pauseBefore?[index] ?? true {
                    // A new segment: the timer stopped after the last point and restarted for this
                    // one (a point covers the second that ends at its time).
                    let pause = Int64(previous.elapsedSeconds) * nanosecondsPerSecond
                    let resume = max(pause, Int64(p.elapsedSeconds - 1) * nanosecondsPerSecond)
                    events.append(SessionEvent(offsetNanoseconds: pause, kind: .pause))
                    events.append(SessionEvent(offsetNanoseconds: resume, kind: .resume))
                }
                firstOfPart = false
                points.append(p)
            }
        }
        let end = Int64(points.last?.elapsedSeconds ?? 0)
        events.append(SessionEvent(offsetNanoseconds: end * nanosecondsPerSecond, kind: .stop))
        var activity = Activity(
            start: start, points: points, events: events,
            summary: RunSummary(elapsedSeconds: Double(end), statistics: RunStatistics(), splits: []))
        let timer = Totals.timerSeconds(activity, from: 0, to: end * nanosecondsPerSecond)
        activity.summary.statistics = Totals.statistics(
            points, distance: points.last?.distanceMeters ?? 0, timer: timer)
        return activity
    }
}
