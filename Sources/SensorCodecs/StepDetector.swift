import Foundation

/// Counts steps in a stream of accelerometer samples, wherever the pack sits on the body.
///
/// Streaming, one sample at a time, in constant memory (a Pi Zero 2 runs it at 25–100 Hz).
/// It works on the magnitude of acceleration, so the device's orientation does not matter:
///
/// 1. `m = |a|`, low-passed by a 2nd-order Butterworth filter at 3 Hz (bilinear transform with
///    pre-warping; the coefficients follow the sample rate);
/// 2. a slow mean (τ = 0.5 s) removes gravity and the sensor's bias: `s = lp − g`;
/// 3. a running power of `s` (τ = 1.5 s) scales the peak threshold: `max(0.5 m/s², 0.35·rms)`;
/// 4. a peak counts as a step candidate only after `s` dipped below `−0.3·rms` since the last
///    one (a hysteresis that stops one footfall's ringing counting twice), and steps are at
///    least 0.25 s apart (240 steps/min);
/// 5. a cadence gate counts steps only in bouts: five regular steps (consecutive strides within
///    a ratio of 1.3; strides, not steps, because a pocket makes left and right steps differ)
///    confirm a bout and are counted at once, then every step until a pause over 1 s. Handling
///    the pack, sitting down or a bump on a bench stays below five regular steps.
///
/// Tuned on the Oxford step-counter recordings (hand, back and front pocket, armband, bag …)
/// at 25–400 Hz; BENCHMARKS.md and the tests hold its counts against their ground truth.
public struct StepDetector: Sendable {
    public struct Parameters: Hashable, Sendable {
        public var lowPassHz = 3.0
        public var gravityTimeConstant = 0.5
        public var envelopeTimeConstant = 1.5
        public var thresholdFraction = 0.35
        public var minimumPeak = 0.5
        public var hysteresisFraction = 0.3
        public var minimumStepInterval = 0.25
        public var maximumStepInterval = 1.0
        public var stepsToConfirm = 5
        public var strideRatio = 1.3
        /// A gap in the samples longer than this restarts the filters.
        public var gapReset = 0.25

        public init() {}
    }

    public let parameters: Parameters
    public let sampleRate: Double
    /// Steps counted so far.
    public private(set) var count = 0

    private var lowPass: LowPass
    private let gravityAlpha: Double
    private let envelopeAlpha: Double
    private var gravity = 0.0
    private var envelope = 0.0
    private var previousTime: Double?
    private var peaks = PeakStage()
    private var gate = CadenceGate()

    /// `sampleRate` is nominal (it sets the filters); the timing of steps uses each sample's time.
    public init(sampleRate: Double, parameters: Parameters = Parameters()) {
        precondition(sampleRate > 0 && sampleRate.isFinite, "a sample rate is a positive number")
        self.parameters = parameters
        self.sampleRate = sampleRate
        let fc = min(parameters.lowPassHz, 0.45 * sampleRate)
        let k = tan(Double.pi * fc / sampleRate)
        let norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
        let b0 = k * k * norm
        lowPass = LowPass(
            b0: b0, b1: 2 * b0, b2: b0, a1: 2 * (k * k - 1) * norm, a2: (1 - 2.0.squareRoot() * k + k * k) * norm)
        gravityAlpha = 1 - exp(-1 / (sampleRate * parameters.gravityTimeConstant))
        envelopeAlpha = 1 - exp(-1 / (sampleRate * parameters.envelopeTimeConstant))
    }

    /// Takes one sample: time in seconds (increasing; others are dropped), acceleration in m/s²
    /// with gravity. Returns the steps it counted (a confirmed bout counts all its steps at once).
    @discardableResult
    public mutating func add(time t: Double, x: Double, y: Double, z: Double) -> Int {
        guard t.isFinite, x.isFinite, y.isFinite, z.isFinite else { return 0 }
        if let previousTime, t <= previousTime { return 0 }
        let before = count
        let m = (x * x + y * y + z * z).squareRoot()
        guard let previousTime, t - previousTime <= parameters.gapReset else {
            // First sample, or a gap: restart the filters in their steady state for `m`.
            lowPass.settle(at: m)
            gravity = m
            peaks.restart(at: t)
            self.previousTime = t
            return 0
        }
        self.previousTime = t
        let lp = lowPass.filter(m)
        gravity += gravityAlpha * (lp - gravity)
        let s = lp - gravity
        envelope += envelopeAlpha * (s * s - envelope)
        let rms = envelope.squareRoot()
        let threshold = max(parameters.minimumPeak, parameters.thresholdFraction * rms)

        if let step = peaks.take(s, at: t, threshold: threshold, rms: rms, parameters: parameters) {
            count += gate.event(at: step, parameters: parameters)
        }
        return count - before
    }

    /// The end of the samples: a step still waiting out its minimum interval is decided.
    @discardableResult
    public mutating func finish() -> Int {
        let before = count
        if let candidate = peaks.candidateTime {
            count += gate.event(at: candidate, parameters: parameters)
            peaks.candidateTime = nil
        }
        return count - before
    }
}

/// A second-order Butterworth low-pass filter (direct form II, transposed).
private struct LowPass: Sendable {
    let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    var z1 = 0.0, z2 = 0.0

    /// Sets the state to its steady state for a constant input `m`.
    mutating func settle(at m: Double) {
        z1 = m - b0 * m
        z2 = b2 * m - a2 * m
    }

    mutating func filter(_ m: Double) -> Double {
        let lp = b0 * m + z1
        z1 = b1 * m - a1 * lp + z2
        z2 = b2 * m - a2 * lp
        return lp
    }
}

/// Finds step candidates: peaks of the signal over the threshold, after a dip since the last.
private struct PeakStage: Sendable {
    /// The two previous samples, the threshold and the time of the latest.
    var s1 = 0.0, s2 = 0.0, threshold1 = Double.infinity, t1 = 0.0
    var armed = true
    var candidateTime: Double?
    var candidateValue = 0.0

    mutating func restart(at t: Double) {
        s1 = 0
        s2 = 0
        threshold1 = .infinity
        t1 = t
    }

    /// Takes sample `s` at `t`; returns a step's time once its candidate has waited out the
    /// minimum interval.
    mutating func take(
        _ s: Double, at t: Double, threshold: Double, rms: Double, parameters: StepDetector.Parameters
    ) -> Double? {
        var step: Double?
        if let candidate = candidateTime, t - candidate >= parameters.minimumStepInterval {
            step = candidate
            candidateTime = nil
        }
        if s < -parameters.hysteresisFraction * rms { armed = true }
        if s1 > s2, s1 >= s, s1 > threshold1 {
            if candidateTime != nil {
                if s1 > candidateValue {
                    candidateTime = t1
                    candidateValue = s1
                    armed = false
                }
            } else if armed {
                candidateTime = t1
                candidateValue = s1
                armed = false
            }
        }
        s2 = s1
        s1 = s
        threshold1 = threshold
        t1 = t
        return step
    }
}

/// Counts steps only in bouts of regular strides.
private struct CadenceGate: Sendable {
    var last: Double?, previous2: Double?, previous3: Double?
    var streak = 0
    var confirmed = false

    /// A step at `te`; returns how many steps it makes count (a confirmed bout's all at once).
    mutating func event(at te: Double, parameters: StepDetector.Parameters) -> Int {
        if let last, te - last <= parameters.maximumStepInterval {
            streak += 1
            if !confirmed, streak >= 4, let previous2, let previous3 {
                let a = te - previous2
                let b = last - previous3
                if max(a, b) > parameters.strideRatio * min(a, b) { streak = 3 }
            }
        } else {
            streak = 1
            confirmed = false
            previous2 = nil
            previous3 = nil
        }
        previous3 = previous2
        previous2 = last
        last = te
        if confirmed { return 1 }
        if streak >= parameters.stepsToConfirm {
            confirmed = true
            return streak
        }
        return 0
    }
}

/// Accelerometer samples in a CSV of `t_s,x,y,z` (seconds; m/s² with gravity), a header line
/// allowed; for `handoff steps` and the tests.
public struct AccelerometerCSV: Sendable {
    public var times: [Double] = []
    public var x: [Double] = []
    public var y: [Double] = []
    public var z: [Double] = []

    public struct Error: Swift.Error, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    public init() {}

    public init(text: String) throws(Error) {
        var number = 0
        for raw in text.split(whereSeparator: \.isNewline) {
            number += 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 4 else {
                throw Error(line: number, reason: "expected 4 fields (t_s,x,y,z), found \(fields.count)")
            }
            let values = fields.map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard let t = values[0], let vx = values[1], let vy = values[2], let vz = values[3] else {
                if number == 1 { continue }  // a header
                throw Error(line: number, reason: "'\(line)' is not four numbers")
            }
            guard t.isFinite, vx.isFinite, vy.isFinite, vz.isFinite else {
                throw Error(line: number, reason: "'\(line)' has a value that is not finite")
            }
            times.append(t)
            x.append(vx)
            y.append(vy)
            z.append(vz)
        }
    }

    /// The sample rate: one over the median interval between samples.
    public var sampleRate: Double? {
        guard times.count >= 2 else { return nil }
        var intervals = zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }
        guard !intervals.isEmpty else { return nil }
        intervals.sort()
        return 1 / intervals[intervals.count / 2]
    }

    /// The most samples `resampled(to:)` makes for each sample it is given (and a floor for
    /// short files): a recording's times that would make more are wrong, and following them
    /// would fill memory (a time of 1e12 s once asked for 5e13 samples).
    public static let maximumResamplingFactor = 16

    /// The samples resampled to `rate` Hz by linear interpolation (a Pi's accelerometer runs at
    /// 25–100 Hz; the recordings run faster). Throws when the samples' span at `rate` would make
    /// more than `maximumResamplingFactor` samples for each one given (at least 100,000).
    public func resampled(to rate: Double) throws(Error) -> AccelerometerCSV {
        var out = AccelerometerCSV()
        guard let first = times.first, let lastTime = times.last else { return out }
        let wanted = (lastTime - first) * rate
        let allowed = Double(max(100_000, times.count * Self.maximumResamplingFactor))
        guard rate > 0, rate.isFinite, wanted.isFinite, wanted <= allowed else {
            throw Error(
                line: times.count,
                reason:
                    "the samples span \(lastTime - first) s: at \(rate) Hz that is \(wanted) samples from \(times.count); the times are wrong (seconds from the start are expected)"
            )
        }
        var j = 0
        var k = 0
        while true {
            let t = first + Double(k) / rate
            guard t <= lastTime else { break }
            while j + 1 < times.count, times[j + 1] < t { j += 1 }
            let i = min(j + 1, times.count - 1)
            let span = times[i] - times[j]
            let f = span > 0 ? (t - times[j]) / span : 0
            out.times.append(t - first)
            out.x.append(x[j] + (x[i] - x[j]) * f)
            out.y.append(y[j] + (y[i] - y[j]) * f)
            out.z.append(z[j] + (z[i] - z[j]) * f)
            k += 1
        }
        return out
    }

    /// The steps in these samples.
    public func countSteps(parameters: StepDetector.Parameters = StepDetector.Parameters()) -> Int {
        guard let rate = sampleRate else { return 0 }
        var detector = StepDetector(sampleRate: rate, parameters: parameters)
        for i in times.indices { detector.add(time: times[i], x: x[i], y: y[i], z: z[i]) }
        detector.finish()
        return detector.count
    }
}
