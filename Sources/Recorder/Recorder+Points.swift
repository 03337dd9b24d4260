import HandoffModel
import SensorCodecs

extension Recorder {
    /// Emits the grid points at or before `time` (only while recording; paused seconds are
    /// skipped), checking each sensor for a gap at each of them.
    mutating func emitPoints(through time: MonotonicInstant) -> [RecorderOutput] {
        guard let start, isActive else { return [] }
        var out: [RecorderOutput] = []
        while true {
            let boundary = start.monotonic.advanced(byNanoseconds: Int64(grid.nextElapsed) * nanosecondsPerSecond)
            guard boundary <= time else { break }
            if state == .recording {
                out.append(contentsOf: checkGaps(at: boundary))
                let point = makePoint(at: boundary, elapsed: grid.nextElapsed)
                out.append(.point(point))
                if let lap = account(point, at: boundary) { out.append(.lap(lap)) }
            }
            grid.nextElapsed += 1
        }
        return out
    }

    private mutating func makePoint(at boundary: MonotonicInstant, elapsed: Int) -> RecordPoint {
        var point = RecordPoint(elapsedSeconds: elapsed, distanceMeters: totals.distance.totalMeters)

        if let i = selectFresh(.heartRate, at: boundary), let hrm = tracks[i].heartRate, hrm.isPlausible {
            point.heartRateBPM = Int(hrm.heartRate)
            point.heartRateSensor = tracks[i].id
        }
        var footpodSpeed: Double?
        if let i = selectFresh(.footpod, at: boundary), let rsc = tracks[i].footpod.latest {
            point.cadenceSPM = Int(rsc.cadence)
            footpodSpeed = rsc.speedMetersPerSecond
            point.footpodSensor = tracks[i].id
        }
        var gpsSpeed: Double?
        if let i = selectFresh(.gps, at: boundary), let fix = tracks[i].gps.fix {
            point.gpsSensor = tracks[i].id
            point.gpsFix = fix.mode
            if fix.hasPosition {
                point.latitude = fix.latitude
                point.longitude = fix.longitude
                point.altitudeMeters = fix.altitudeMeters
                point.hdop = fix.hdop
                gpsSpeed = fix.speedMetersPerSecond
            }
        }
        var wheelSpeed: Double?
        if sport == .bike, let i = selectFresh(.bike, at: boundary) {
            let bike = tracks[i].bike
            point.bikeSensor = tracks[i].id
            point.cadenceRPM = bike.crankRate.map { Int($0.rounded()) }
            if let rate = bike.wheelRate, let circumference = wheelCircumference(track: i) {
                wheelSpeed = rate * circumference
            }
        }
        point.speedMetersPerSecond = wheelSpeed ?? gpsSpeed ?? footpodSpeed
        if stepCount.hasSource { point.steps = Int(stepCount.count) }
        if let speed = point.speedMetersPerSecond {
            point.isMoving = speed >= configuration.movingSpeed
        } else if let previous = grid.lastPoint, elapsed > 0 {
            let perSecond = (point.distanceMeters - previous.distanceMeters) / Double(elapsed - previous.elapsedSeconds)
            point.isMoving = perSecond >= configuration.movingSpeed
        }
        if elapsed == 0 { point.isMoving = false }
        return point
    }

    /// Folds a point into the session, lap and split statistics; closes a lap at the auto-lap
    /// totals.distance.
    private mutating func account(_ point: RecordPoint, at boundary: MonotonicInstant) -> Lap? {
        let timer = timeline.timerSeconds(atOffset: offset(of: boundary))
        totals.statistics.add(point)
        lap.statistics.add(point)
        totals.splits.add(point, timerSeconds: timer)
        grid.lastPoint = point
        lap.pointCount += 1
        guard let lapDistance = configuration.autoLapMeters, lapDistance > 0, let next = lap.nextAutoDistance,
            point.distanceMeters >= next
        else { return nil }
        var following = next + lapDistance
        while following <= point.distanceMeters { following += lapDistance }
        lap.nextAutoDistance = following
        return closeLap(trigger: .distance, at: point)
    }

    /// Ends the current lap at `point` (which belongs to it) and starts the next there.
    mutating func closeLap(trigger: LapTrigger, at point: RecordPoint) -> Lap {
        let timer = timeline.timerSeconds(atOffset: Int64(point.elapsedSeconds) * nanosecondsPerSecond)
        let closed = Lap(
            index: lap.index, trigger: trigger, startElapsedSeconds: lap.startElapsed,
            endElapsedSeconds: point.elapsedSeconds,
            statistics: lap.statistics.statistics(
                distanceMeters: point.distanceMeters - lap.startDistance, timerSeconds: timer - lap.startTimer))
        lap.index += 1
        lap.startElapsed = point.elapsedSeconds
        lap.startDistance = point.distanceMeters
        lap.startTimer = timer
        lap.statistics = StatisticsAccumulator()
        lap.pointCount = 0
        if trigger == .manual, let lapDistance = configuration.autoLapMeters, lapDistance > 0 {
            // A manual lap restarts the auto-lap count from here.
            lap.nextAutoDistance = point.distanceMeters + lapDistance
        }
        return closed
    }

    /// Marks sensors whose data stopped as in a gap (once per gap).
    private mutating func checkGaps(at boundary: MonotonicInstant) -> [RecorderOutput] {
        var out: [RecorderOutput] = []
        for i in tracks.indices where !tracks[i].inGap {
            guard let last = tracks[i].lastDataTime,
                !tracks[i].isFresh(at: boundary, staleAfter: configuration.staleAfterNanoseconds)
            else { continue }
            tracks[i].inGap = true
            let detail =
                tracks[i].link == .disconnected
                ? "disconnected" : "no data for \(Self.seconds(configuration.staleAfterNanoseconds)) s"
            out.append(
                .event(
                    SessionEvent(
                        offsetNanoseconds: offset(of: last), kind: .gapStart, sensor: tracks[i].id, detail: detail)))
        }
        return out
    }

    static func seconds(_ nanoseconds: Int64) -> String {
        nanoseconds % nanosecondsPerSecond == 0
            ? String(nanoseconds / nanosecondsPerSecond) : String(Double(nanoseconds) / 1e9)
    }

    /// The sensor of `kind` whose values are used at `time`: the one used before while it stays
    /// fresh, else the freshest (ties go to the lowest id).
    mutating func selectFresh(_ kind: SensorKind, at time: MonotonicInstant) -> Int? {
        let stale = configuration.staleAfterNanoseconds
        if let id = selected[kind], let i = tracks.firstIndex(where: { $0.id == id }),
            tracks[i].isFresh(at: time, staleAfter: stale)
        {
            return i
        }
        var best: Int?
        for i in tracks.indices where tracks[i].kind == kind && tracks[i].isFresh(at: time, staleAfter: stale) {
            if let b = best, tracks[b].lastDataTime! >= tracks[i].lastDataTime! { continue }
            best = i
        }
        if let best { selected[kind] = tracks[best].id }
        return best
    }

    // MARK: Distance

    mutating func receiveFootpod(_ rsc: RSCMeasurement, at time: MonotonicInstant, track index: Int) {
        let previous = tracks[index].footpod.previous
        let previousTime = tracks[index].footpod.previousTime
        tracks[index].footpod.latest = rsc
        tracks[index].footpod.previous = rsc
        tracks[index].footpod.previousTime = time
        guard selectFresh(.footpod, at: time) == index, let previous, let previousTime, time > previousTime else {
            return
        }
        integrateFootpodSteps(
            UInt8((Int(previous.cadence) + Int(rsc.cadence)) / 2), from: previousTime, to: time)
        // The footpod counts only while the GPS cannot.
        if let gps = selectFresh(.gps, at: time), tracks[gps].gpsIsLocked(at: time, configuration: configuration) {
            return
        }
        let seconds = time.seconds(since: previousTime)
        var meters: Double?
        if let total = rsc.totalDistance10ths, let before = previous.totalDistance10ths {
            // The footpod's own odometer counts through link gaps; it wraps at 2^32.
            let delta = Double(total &- before) / 10
            if delta / seconds <= maximumGPSSpeed { meters = delta }
        }
        if meters == nil, time.nanoseconds - previousTime.nanoseconds <= configuration.staleAfterNanoseconds {
            meters = (previous.speedMetersPerSecond + rsc.speedMetersPerSecond) / 2 * seconds
        }
        if let meters { totals.distance.add(meters, from: previousTime, to: time) }
    }

    // MARK: Steps

    /// A pedometer's count: the increment counts toward the run while recording, and toward
    /// the steps outside runs otherwise (idle, paused, finished), if this pedometer is the one in
    /// use. A count that went down is a device reset: counting restarts from it.
    mutating func receiveSteps(_ count: Int, track index: Int) {
        let previous = tracks[index].stepCount
        tracks[index].stepCount = count
        guard selectFresh(.pedometer, at: tracks[index].lastDataTime!) == index else { return }
        stepCount.hasSource = true
        guard let previous else { return }
        // A counter that went back was reset (a driver reload, a 16-bit counter wrapping): what it
        // counts now was counted since the reset.
        let added = count >= previous ? count - previous : count
        if state == .recording {
            stepCount.count += Double(added)
        } else {
            stepCount.outsideRuns &+= added
        }
    }

    /// Steps from the footpod's cadence, while no pedometer is fresh.
    mutating func integrateFootpodSteps(_ cadence: UInt8, from previous: MonotonicInstant, to time: MonotonicInstant) {
        guard configuration.stepsFromFootpodCadence, selectFresh(.pedometer, at: time) == nil else { return }
        stepCount.hasSource = true
        guard state == .recording, time.nanoseconds - previous.nanoseconds <= configuration.staleAfterNanoseconds
        else { return }
        stepCount.count += Double(cadence) / 60 * time.seconds(since: previous)
    }

    mutating func receiveGPSEpoch(_ epoch: EpochFix, track index: Int) {
        let settings = configuration.gps
        let maximumSpeed = maximumGPSSpeed
        guard epoch.hasFix else {
            tracks[index].gps.previous = nil
            tracks[index].gps.anchor = nil
            tracks[index].gps.locked = false
            return
        }
        if let speed = epoch.speed, speed > maximumSpeed { return }  // a glitch: ignore the fix
        let previous = tracks[index].gps.previous
        tracks[index].gps.previous = epoch
        guard selectFresh(.gps, at: epoch.time) == index else { return }
        guard let previous, epoch.time.nanoseconds - previous.time.nanoseconds <= settings.maximumFixGapNanoseconds
        else {
            tracks[index].gps.anchor = epoch
            tracks[index].gps.locked = false
            return
        }
        tracks[index].gps.locked = true
        if let v0 = previous.speed, let v1 = epoch.speed {
            let a = v0 < settings.stationarySpeed ? 0 : v0
            let b = v1 < settings.stationarySpeed ? 0 : v1
            countGPS(
                (a + b) / 2 * epoch.time.seconds(since: previous.time), from: previous.time, to: epoch.time,
                track: index)
            tracks[index].gps.anchor = epoch
            return
        }
        guard let anchor = tracks[index].gps.anchor else {
            tracks[index].gps.anchor = epoch
            return
        }
        let meters = greatCircleDistance(
            lat1: anchor.latitude, lon1: anchor.longitude, lat2: epoch.latitude, lon2: epoch.longitude)
        let radius = max(settings.minimumJitterRadius, (epoch.hdop ?? 2) * settings.jitterRadiusPerHDOP)
        guard meters >= radius else { return }
        guard meters / epoch.time.seconds(since: anchor.time) <= maximumSpeed else {
            tracks[index].gps.anchor = epoch  // a jump: start again from here, count nothing
            return
        }
        countGPS(meters, from: anchor.time, to: epoch.time, track: index)
        tracks[index].gps.anchor = epoch
    }

    /// GPS metres up to the receiver's latest epoch: on its odometer, and in the run's distance
    /// unless a ride's wheel measures it.
    private mutating func countGPS(
        _ meters: Double, from: MonotonicInstant, to: MonotonicInstant, track index: Int
    ) {
        if meters.isFinite, meters > 0 { tracks[index].gps.odometer += meters }
        if measuringBike(at: to) == nil { totals.distance.add(meters, from: from, to: to) }
    }
}
