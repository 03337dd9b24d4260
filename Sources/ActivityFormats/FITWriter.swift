import HandoffModel

/// Writes an activity as a FIT activity file (FIT protocol 2.0, little-endian, normal record
/// headers only: Garmin's Python SDK does not read compressed timestamps).
///
/// Messages, in time order: file_id, device_info, a timer start event, records, HRV (the RR
/// intervals that arrived during each second, just before that second's record), timer stop_all
/// and start events around pauses, a lap message as each lap ends, the final stop, then the
/// session and activity messages. Absent values are FIT's invalid values.
public enum FITWriter {
    public static func write(_ activity: Activity) -> [UInt8] {
        var encoder = Encoder()
        encoder.write(activity)
        return encoder.file()
    }

    /// One field of a definition: its number, base type and how many values (arrays).
    struct Field {
        var number: UInt8
        var type: FIT.BaseType
        var count = 1
    }

    /// A message layout, written once as a definition and then as data messages.
    struct Layout {
        var local: UInt8
        var global: UInt16
        var fields: [Field]
    }

    static let fileID = Layout(
        local: 0, global: FIT.Message.fileID,
        fields: [
            Field(number: 0, type: .enumeration), Field(number: 1, type: .uint16), Field(number: 2, type: .uint16),
            Field(number: 3, type: .uint32z), Field(number: 4, type: .uint32),
        ])
    static let deviceInfo = Layout(
        local: 1, global: FIT.Message.deviceInfo,
        fields: [
            Field(number: 253, type: .uint32), Field(number: 0, type: .uint8), Field(number: 2, type: .uint16),
            Field(number: 3, type: .uint32z), Field(number: 4, type: .uint16), Field(number: 5, type: .uint16),
            Field(number: 25, type: .enumeration),
        ])
    static let event = Layout(
        local: 2, global: FIT.Message.event,
        fields: [
            Field(number: 253, type: .uint32), Field(number: 0, type: .enumeration),
            Field(number: 1, type: .enumeration), Field(number: 4, type: .uint8),
        ])
    static let record = Layout(
        local: 3, global: FIT.Message.record,
        fields: [
            Field(number: 253, type: .uint32), Field(number: 0, type: .sint32), Field(number: 1, type: .sint32),
            Field(number: 2, type: .uint16), Field(number: 3, type: .uint8), Field(number: 4, type: .uint8),
            Field(number: 53, type: .uint8), Field(number: 5, type: .uint32), Field(number: 6, type: .uint16),
        ])
    /// Five RR intervals per message, padded with invalid values, as Garmin's watches write them.
    static let hrvSlots = 5
    static let hrv = Layout(
        local: 4, global: FIT.Message.hrv, fields: [Field(number: 0, type: .uint16, count: hrvSlots)])
    static let lap = Layout(
        local: 5, global: FIT.Message.lap,
        fields: [
            Field(number: 253, type: .uint32), Field(number: 254, type: .uint16), Field(number: 0, type: .enumeration),
            Field(number: 1, type: .enumeration), Field(number: 2, type: .uint32), Field(number: 7, type: .uint32),
            Field(number: 8, type: .uint32), Field(number: 9, type: .uint32), Field(number: 52, type: .uint32),
            Field(number: 13, type: .uint16), Field(number: 14, type: .uint16), Field(number: 15, type: .uint8),
            Field(number: 16, type: .uint8), Field(number: 17, type: .uint8), Field(number: 80, type: .uint8),
            Field(number: 24, type: .enumeration), Field(number: 25, type: .enumeration),
            Field(number: 39, type: .enumeration),
        ])
    static let session = Layout(
        local: 6, global: FIT.Message.session,
        fields: [
            Field(number: 253, type: .uint32), Field(number: 254, type: .uint16), Field(number: 0, type: .enumeration),
            Field(number: 1, type: .enumeration), Field(number: 2, type: .uint32), Field(number: 3, type: .sint32),
            Field(number: 4, type: .sint32), Field(number: 5, type: .enumeration), Field(number: 6, type: .enumeration),
            Field(number: 7, type: .uint32), Field(number: 8, type: .uint32), Field(number: 9, type: .uint32),
            Field(number: 59, type: .uint32), Field(number: 14, type: .uint16), Field(number: 15, type: .uint16),
            Field(number: 16, type: .uint8), Field(number: 17, type: .uint8), Field(number: 18, type: .uint8),
            Field(number: 92, type: .uint8), Field(number: 25, type: .uint16), Field(number: 26, type: .uint16),
            Field(number: 28, type: .enumeration), Field(number: 10, type: .uint32),
        ])
    static let activityLayout = Layout(
        local: 7, global: FIT.Message.activity,
        fields: [
            Field(number: 253, type: .uint32), Field(number: 0, type: .uint32), Field(number: 1, type: .uint16),
            Field(number: 2, type: .enumeration), Field(number: 3, type: .enumeration),
            Field(number: 4, type: .enumeration), Field(number: 5, type: .uint32),
        ])

    struct Encoder {
        var records: [UInt8] = []
        private var defined: Set<UInt8> = []
        private var startSecond: Int64 = 0

        mutating func write(_ activity: Activity) {
            let startNs = activity.start.nanosecondsSinceEpoch
            startSecond = startNs >= 0 ? startNs / nanosecondsPerSecond : (startNs - 999_999_999) / nanosecondsPerSecond
            let startTime = fitTime(elapsed: 0)
            let creator = activity.creator
            message(
                FITWriter.fileID,
                [
                    4, Int64(creator.manufacturer), Int64(creator.product), creator.serialNumber.map(Int64.init),
                    startTime,
                ])
            message(
                FITWriter.deviceInfo,
                [
                    startTime, 0, Int64(creator.manufacturer), creator.serialNumber.map(Int64.init),
                    Int64(creator.product), creator.softwareVersion.flatMap(Self.softwareVersion), 5,
                ])

            let elapsed = Int64(activity.summary.elapsedSeconds.rounded())
            let laps = activity.laps.isEmpty ? [Totals.wholeLap(activity)] : activity.laps
            for item in Self.timeline(activity, laps: laps) {
                switch item.kind {
                case .event(let event):
                    let isStart = event.kind == .start || event.kind == .resume
                    message(
                        FITWriter.event,
                        [
                            fitTime(nanoseconds: event.offsetNanoseconds), Int64(FIT.Event.timer),
                            Int64(isStart ? FIT.Event.start : FIT.Event.stopAll), 0,
                        ])
                case .point(let i):
                    point(activity.points[i], sport: activity.sport)
                case .rr(let i):
                    rr(activity.rrIntervals[i].intervals1024ths)
                case .lap(let i):
                    lap(laps[i], index: i, sport: activity.sport)
                }
            }
            let end = fitTime(elapsed: elapsed)
            let s = activity.summary.statistics
            message(
                FITWriter.session,
                [
                    end, 0, Int64(FIT.Event.session), Int64(FIT.Event.stop), startTime,
                    semicircles(activity.points.first { $0.latitude != nil }?.latitude),
                    semicircles(activity.points.first { $0.longitude != nil }?.longitude),
                    Int64(activity.sport.fit), Int64(activity.sport.fitSubSport),
                    scaled(activity.summary.elapsedSeconds, 1000),
                    scaled(s.timerSeconds, 1000), scaled(s.distanceMeters, 100), scaled(Double(s.movingSeconds), 1000),
                    scaled(averageSpeed(s), 1000), scaled(s.maximumSpeed, 1000),
                    s.averageHeartRate.map { Int64($0.rounded()) }, s.maximumHeartRate.map(Int64.init),
                ] + Self.cadence(s, sport: activity.sport) + [0, Int64(laps.count), 0, Self.strides(activity)])
            message(
                FITWriter.activityLayout,
                [end, scaled(s.timerSeconds, 1000), 1, 0, Int64(FIT.Event.activity), Int64(FIT.Event.stop), end])
        }

        /// The whole file: header, records, CRC.
        func file() -> [UInt8] { FIT.container(records: records) }

        private mutating func point(_ p: RecordPoint, sport: Activity.Sport) {
            message(
                FITWriter.record,
                [
                    fitTime(elapsed: Int64(p.elapsedSeconds)), semicircles(p.latitude), semicircles(p.longitude),
                    p.altitudeMeters.flatMap { scaled($0 + 500, 5) }, p.heartRateBPM.map(Int64.init),
                ]
                    + (sport == .cycling
                        ? Self.cadence(rpm: p.cadenceRPM.map(Double.init))
                        : Self.cadence(p.cadenceSPM.map(Double.init)))
                    + [scaled(p.distanceMeters, 100), scaled(p.speedMetersPerSecond, 1000)])
        }

        private mutating func rr(_ intervals: [UInt16]) {
            var index = 0
            while index < intervals.count {
                let slice = intervals[index..<min(index + FITWriter.hrvSlots, intervals.count)]
                // 1/1024 s to FIT's 1/1000 s, rounded to the nearest millisecond.
                var values: [Int64?] = slice.map { (Int64($0) * 1000 + 512) / 1024 }
                values += Array(repeating: nil, count: FITWriter.hrvSlots - values.count)
                arrayMessage(FITWriter.hrv, values)
                index += FITWriter.hrvSlots
            }
        }

        private mutating func lap(_ lap: Lap, index: Int, sport: Activity.Sport) {
            let s = lap.statistics
            let trigger: UInt8 =
                switch lap.trigger {
                case .manual: FIT.LapTriggerValue.manual
                case .distance: FIT.LapTriggerValue.distance
                case .sessionEnd: FIT.LapTriggerValue.sessionEnd
                }
            message(
                FITWriter.lap,
                [
                    fitTime(elapsed: Int64(lap.endElapsedSeconds)), Int64(index), Int64(FIT.Event.lap),
                    Int64(FIT.Event.stop), fitTime(elapsed: Int64(lap.startElapsedSeconds)),
                    Int64(lap.endElapsedSeconds - lap.startElapsedSeconds) * 1000, scaled(s.timerSeconds, 1000),
                    scaled(s.distanceMeters, 100), scaled(Double(s.movingSeconds), 1000),
                    scaled(averageSpeed(s), 1000), scaled(s.maximumSpeed, 1000),
                    s.averageHeartRate.map { Int64($0.rounded()) }, s.maximumHeartRate.map(Int64.init),
                ] + Self.cadence(s, sport: sport) + [Int64(trigger), Int64(sport.fit), Int64(sport.fitSubSport)])
        }

        /// A lap's or session's average cadence: a ride's crank, else a runner's strides.
        static func cadence(_ s: RunStatistics, sport: Activity.Sport) -> [Int64?] {
            sport == .cycling ? cadence(rpm: s.averageCrankCadence) : cadence(s.averageCadence)
        }

        /// Revolutions (a crank's, or one foot's strides) per minute as FIT's cadence, with its
        /// fraction in 1/128.
        static func cadence(rpm: Double?) -> [Int64?] {
            guard let rpm, rpm >= 0, rpm < 255 else { return [nil, nil] }
            let whole = rpm.rounded(.down)
            return [Int64(whole), Int64(((rpm - whole) * 128).rounded())]
        }

        /// Steps per minute as FIT's running cadence: strides (one foot) per minute and its
        /// fraction in 1/128.
        static func cadence(_ spm: Double?) -> [Int64?] {
            cadence(rpm: spm.map { $0 / 2 })
        }

        /// The run's steps as the session's `total_cycles`, which FIT counts in strides (one foot)
        /// for running and walking: half the steps, rounded up (a reader doubles it: within one
        /// step). None for a ride, whose cycles are the crank's.
        static func strides(_ activity: Activity) -> Int64? {
            guard activity.sport != .cycling, let steps = activity.summary.steps, steps >= 0 else { return nil }
            return min(Int64(steps / 2 + steps % 2), Int64(UInt32.max - 1))
        }

        /// "0.1.0" as FIT's software version × 100 (10).
        static func softwareVersion(_ text: String) -> Int64? {
            let parts = text.split(separator: ".").compactMap { Int64($0) }
            guard parts.count >= 2 else { return nil }
            return parts[0] * 100 + min(parts[1], 99)
        }

        private func averageSpeed(_ s: RunStatistics) -> Double? {
            s.timerSeconds > 0 ? s.distanceMeters / s.timerSeconds : nil
        }

        private func fitTime(elapsed: Int64) -> Int64 { startSecond + elapsed - FIT.epochOffset }

        private func fitTime(nanoseconds: Int64) -> Int64 {
            fitTime(elapsed: (nanoseconds + nanosecondsPerSecond / 2) / nanosecondsPerSecond)
        }

        private func semicircles(_ degrees: Double?) -> Int64? {
            degrees.map { Int64(($0 * FIT.semicirclesPerDegree).rounded()) }
        }

        private func scaled(_ value: Double?, _ scale: Double) -> Int64? {
            guard let value, value.isFinite else { return nil }
            let v = (value * scale).rounded()
            return abs(v) < 9e18 ? Int64(v) : nil
        }

        private mutating func define(_ layout: Layout) {
            guard !defined.contains(layout.local) else { return }
            defined.insert(layout.local)
            records.append(0x40 | layout.local)
            records += [0, 0, UInt8(layout.global & 0xFF), UInt8(layout.global >> 8), UInt8(layout.fields.count)]
            for field in layout.fields {
                records += [field.number, UInt8(field.type.size * field.count), field.type.rawValue]
            }
        }

        /// A data message with one value per field (each field a single value).
        private mutating func message(_ layout: Layout, _ values: [Int64?]) {
            precondition(values.count == layout.fields.count, "values for \(layout.global) do not match its fields")
            arrayMessage(layout, values)
        }

        /// A data message with one value per field slot (array fields take `count` values).
        private mutating func arrayMessage(_ layout: Layout, _ values: [Int64?]) {
            define(layout)
            records.append(layout.local)
            var next = 0
            for field in layout.fields {
                for _ in 0..<field.count {
                    append(values[next], as: field.type)
                    next += 1
                }
            }
        }

        /// A value little-endian, or the type's invalid value when absent or out of range.
        private mutating func append(_ value: Int64?, as type: FIT.BaseType) {
            let bits: UInt64 =
                if let value, type.validRange.contains(value) { UInt64(bitPattern: value) } else { type.invalid }
            for i in 0..<type.size { records.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
        }

        /// What goes into the file, in time order; at the same second: (re)starts, RR, the
        /// record, a lap ending there, then pauses and the stop.
        struct Item {
            enum Kind {
                case event(SessionEvent)
                case point(Int)
                case rr(Int)
                case lap(Int)
            }
            var second: Int64
            var rank: Int
            var order: Int
            var kind: Kind
        }

        static func timeline(_ activity: Activity, laps: [Lap]) -> [Item] {
            var items: [Item] = []
            items.reserveCapacity(
                activity.points.count + activity.rrIntervals.count + activity.events.count + laps.count)
            func add(_ second: Int64, _ rank: Int, _ kind: Item.Kind) {
                items.append(Item(second: second, rank: rank, order: items.count, kind: kind))
            }
            let timerEvents = activity.events.filter { [.start, .pause, .resume, .stop].contains($0.kind) }
            if timerEvents.first?.kind != .start { add(0, 0, .event(SessionEvent(offsetNanoseconds: 0, kind: .start))) }
            for event in timerEvents {
                let second = (event.offsetNanoseconds + nanosecondsPerSecond / 2) / nanosecondsPerSecond
                add(second, event.kind == .start || event.kind == .resume ? 0 : 4, .event(event))
            }
            if timerEvents.last?.kind != .stop {
                let end = Int64(activity.summary.elapsedSeconds.rounded())
                add(end, 4, .event(SessionEvent(offsetNanoseconds: end * nanosecondsPerSecond, kind: .stop)))
            }
            for (i, batch) in activity.rrIntervals.enumerated() where !batch.intervals1024ths.isEmpty {
                // Arrived during the second that ends at the next whole second.
                let second = (batch.offsetNanoseconds + nanosecondsPerSecond - 1) / nanosecondsPerSecond
                add(max(0, second), 1, .rr(i))
            }
            for (i, point) in activity.points.enumerated() { add(Int64(point.elapsedSeconds), 2, .point(i)) }
            for (i, lap) in laps.enumerated() { add(Int64(lap.endElapsedSeconds), 3, .lap(i)) }
            items.sort { ($0.second, $0.rank, $0.order) < ($1.second, $1.rank, $1.order) }
            return items
        }
    }
}
