import HandoffModel
import SensorCodecs

extension Recorder {
    /// The fastest a GPS fix may say this session moves before it is a glitch: a rider's limit
    /// during a ride, a runner's otherwise.
    var maximumGPSSpeed: Double {
        sport == .bike ? configuration.bike.maximumSpeed : configuration.gps.maximumSpeed
    }

    /// A bike sensor's wheel circumference in metres: the configured one, else the one learnt from
    /// GPS (kept from one ride to the next while the recorder lives); `nil` while it is learnt.
    public func wheelCircumference(of sensor: SensorID) -> Double? {
        guard let i = tracks.firstIndex(where: { $0.id == sensor }) else { return nil }
        return wheelCircumference(track: i)
    }

    /// The wheel's circumference in use: the configured one, else the one learnt from GPS.
    func wheelCircumference(track index: Int) -> Double? {
        configuration.bike.wheelCircumferenceMeters ?? tracks[index].bike.learntCircumference
    }

    /// The bike sensor measuring this ride at `time`: fresh, and with a wheel it knows. While it
    /// is, GPS gives the route and the wheel gives the distance.
    mutating func measuringBike(at time: MonotonicInstant) -> Int? {
        guard sport == .bike, let i = selectFresh(.bike, at: time), wheelCircumference(track: i) != nil else {
            return nil
        }
        return i
    }

    /// A CSC measurement: its rates for the points, and during a ride its wheel's revolutions as
    /// distance (or, with no circumference yet, as what learns it).
    mutating func receiveBike(_ csc: CSCMeasurement, at time: MonotonicInstant, track index: Int) {
        var bike = tracks[index].bike
        let previous = bike.latest
        let previousTime = bike.latestTime
        bike.previous = previous
        bike.latest = csc
        bike.latestTime = time
        let still = configuration.bike.stillAfterNanoseconds
        if let previous {
            // A rate no bike turns at is a count that went back (a sensor reset, wrapping to
            // billions): it is not a speed or a cadence, and the rates wait for the next value.
            let rates = csc.rates(since: previous)
            if let wheel = rates.wheelPerSecond,
                wheel * BikeConfiguration.plausibleCircumference.lowerBound <= configuration.bike.maximumSpeed
            {
                bike.wheelRate = wheel
                bike.wheelMoved = time
            }
            if let crank = rates.crankPerMinute, crank <= BikeConfiguration.maximumCadence {
                bike.crankRate = crank
                bike.crankMoved = time
            }
        }
        // The sensor repeats its last event while nothing turns: after a while that is standing still.
        if let moved = bike.wheelMoved, time.nanoseconds - moved.nanoseconds > still { bike.wheelRate = 0 }
        if let moved = bike.crankMoved, time.nanoseconds - moved.nanoseconds > still { bike.crankRate = 0 }
        tracks[index].bike = bike
        guard sport == .bike, selectFresh(.bike, at: time) == index, let previousTime, time > previousTime,
            let wheel = csc.wheel, let before = previous?.wheel,
            time.nanoseconds - previousTime.nanoseconds <= configuration.staleAfterNanoseconds
        else { return }
        let revolutions = Double(wheel.count &- before.count)
        // A count that went back (a sensor reset) wraps to billions: no wheel turns that fast.
        let seconds = time.seconds(since: previousTime)
        guard
            revolutions * BikeConfiguration.plausibleCircumference.lowerBound / seconds
                <= configuration.bike.maximumSpeed
        else { return }
        if let circumference = wheelCircumference(track: index) {
            totals.distance.add(revolutions * circumference, from: previousTime, to: time)
        } else if state == .recording {
            learnWheel(revolutions: revolutions, from: previousTime, to: time, track: index)
        }
    }

    /// Adds an interval's GPS metres and wheel revolutions to what learns the wheel, while GPS
    /// measures; fixes the circumference once enough was ridden, if it is a plausible one.
    private mutating func learnWheel(
        revolutions: Double, from: MonotonicInstant, to time: MonotonicInstant, track index: Int
    ) {
        var learning = tracks[index].bike.learning
        guard let gps = selectFresh(.gps, at: time), tracks[gps].gpsIsLocked(at: time, configuration: configuration)
        else {
            tracks[index].bike.learning.odometerBefore = nil
            return
        }
        // The GPS's metres between this CSC event and the one before: both lag the wheel by up to
        // one fix, alike, so the lags cancel over the kilometres learnt.
        let odometer = tracks[gps].gps.odometer
        defer { tracks[index].bike.learning.odometerBefore = odometer }
        guard let before = learning.odometerBefore else { return }
        let meters = odometer - before
        learning.meters += meters
        learning.revolutions += revolutions
        if learning.meters >= configuration.bike.learnOverMeters, learning.revolutions > 0 {
            let circumference = learning.meters / learning.revolutions
            if BikeConfiguration.plausibleCircumference.contains(circumference) {
                tracks[index].bike.learntCircumference = circumference
            }
            learning = WheelLearning()  // an implausible wheel is learnt again from here
        }
        tracks[index].bike.learning = learning
    }
}
