import Foundation
import HandoffModel
import PackStorage
import Recorder
import Testing

@testable import PackService

/// The engine's count of each day's steps outside runs: days of the pack's time zone, written to
/// the journal at most once a minute, and nothing lost when a write fails.
@Suite("Steps outside runs, by day")
struct StepDaysTests {
    static let auckland = TimeZone(identifier: "Pacific/Auckland")!
    static let pedometer = SensorDescriptor(
        id: "steps0", kind: .pedometer, name: "step counter", address: "iio:device0", transport: .iioSteps)

    static func steps(_ count: Int, at seconds: Double, from start: WallInstant?) -> CaptureEvent {
        let offset = Int64(seconds * 1e9)
        return CaptureEvent(
            monotonic: MonotonicInstant(nanoseconds: 1_000_000_000 + offset),
            wall: start?.advanced(byNanoseconds: offset),
            body: .payload(sensor: "steps0", kind: .steps, .text(String(count))))
    }

    @Test(
        "Steps are credited to the day they were taken on in the pack's zone, across midnight; a day has 23 hours when the clocks change"
    )
    func days() throws {
        var session = RecordingSession(
            recorder: RecorderConfiguration(stepsFromFootpodCadence: false), sensors: [Self.pedometer],
            discardShorterThanSeconds: 60, zone: Self.auckland, newUUID: { "run" })
        // 23:59 on 28 November in Auckland (UTC+13).
        let start = WallInstant(iso8601: "2026-11-28T10:59:00Z")!
        _ = session.take(Self.steps(100, at: 0, from: start))
        _ = session.take(Self.steps(130, at: 30, from: start))
        _ = session.take(Self.steps(150, at: 90, from: start))  // 00:00:30 on the 29th
        let first = session.stepsToSave(at: MonotonicInstant(nanoseconds: 91_000_000_000))
        #expect(first == ["2026-11-28": 30, "2026-11-29": 20])
        // More steps within the minute wait; a forced save takes them.
        _ = session.take(Self.steps(160, at: 100, from: start))
        let early = session.stepsToSave(at: MonotonicInstant(nanoseconds: 101_000_000_000))
        #expect(early == nil)
        let due = session.stepsToSave(at: MonotonicInstant(nanoseconds: 152_000_000_000))
        #expect(due == ["2026-11-29": 10])
        // A failed write gives them back to go with the next.
        _ = session.take(Self.steps(170, at: 160, from: start))
        let taken = session.stepsToSave(at: MonotonicInstant(nanoseconds: 161_000_000_000), force: true)
        session.restoreSteps(try #require(taken))
        _ = session.take(Self.steps(175, at: 170, from: start))
        let merged = session.stepsToSave(at: MonotonicInstant(nanoseconds: 171_000_000_000), force: true)
        #expect(merged == ["2026-11-29": 15])

        let days = session.stepDays
        let bounds = days.bounds(start)
        #expect(bounds.from == WallInstant(iso8601: "2026-11-27T11:00:00Z")!.nanosecondsSinceEpoch)
        #expect(bounds.to == WallInstant(iso8601: "2026-11-28T11:00:00Z")!.nanosecondsSinceEpoch)
        // Daylight saving ends on 5 April 2026 in New Zealand: that day has 25 hours.
        let april = days.bounds(WallInstant(iso8601: "2026-04-05T03:00:00Z")!)
        #expect(april.to - april.from == 25 * 3_600 * 1_000_000_000)
    }

    @Test("Before any wall time is known, steps wait for one; steps while recording are the run's")
    func waits() throws {
        var session = RecordingSession(
            recorder: RecorderConfiguration(stepsFromFootpodCadence: false), sensors: [Self.pedometer],
            discardShorterThanSeconds: 60, zone: TimeZone(identifier: "UTC")!, newUUID: { "run" })
        _ = session.take(Self.steps(10, at: 0, from: nil))
        _ = session.take(Self.steps(20, at: 1, from: nil))
        let none = session.stepsToSave(at: MonotonicInstant(nanoseconds: 2_000_000_000), force: true)
        #expect(none == nil)
        let start = WallInstant(iso8601: "2026-11-28T08:00:00Z")!
        _ = session.take(Self.steps(25, at: 2, from: start))
        _ = session.take(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 3_500_000_000),
                wall: start.advanced(byNanoseconds: 1_500_000_000),
                body: .command(.start)))
        _ = session.take(Self.steps(40, at: 4, from: start))
        let saved = session.stepsToSave(at: MonotonicInstant(nanoseconds: 5_000_000_000), force: true)
        #expect(saved == ["2026-11-28": 15], "the 15 before the start, held until a wall time was known")
    }

    @Test(
        "With the system clock not synchronised (a Pi without a real-time clock), steps wait for a clock that says the date"
    )
    func unsynchronizedClock() throws {
        var session = RecordingSession(
            recorder: RecorderConfiguration(stepsFromFootpodCadence: false), sensors: [Self.pedometer],
            discardShorterThanSeconds: 60, zone: TimeZone(identifier: "UTC")!, newUUID: { "run" })
        let boot = WallInstant(nanosecondsSinceEpoch: 10_000_000_000)  // 1970-01-01T00:00:10Z
        _ = session.take(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 500_000_000), wall: boot, body: .clock(synchronized: false)))
        _ = session.take(Self.steps(10, at: 0, from: boot))
        _ = session.take(Self.steps(30, at: 1, from: boot))
        let before = session.stepsToSave(at: MonotonicInstant(nanoseconds: 3_000_000_000), force: true)
        #expect(before == nil, "nothing on 1 January 1970")
        // NTP sets the clock: the steps so far go on the day it says.
        let set = WallInstant(iso8601: "2026-11-28T09:00:00Z")!
        _ = session.take(
            CaptureEvent(
                monotonic: MonotonicInstant(nanoseconds: 3_500_000_000), wall: set, body: .clock(synchronized: true)))
        _ = session.take(Self.steps(35, at: 3, from: set.advanced(byNanoseconds: -2_000_000_000)))
        let after = session.stepsToSave(at: MonotonicInstant(nanoseconds: 5_000_000_000), force: true)
        #expect(after == ["2026-11-28": 25])
    }

    @Test("The journal adds each day's increments, and keeps what the store acknowledged apart from what grew since")
    func journal() throws {
        let database = try PackDatabase.inMemory()
        try database.addSteps(["2026-11-28": 30, "2026-11-29": 20])
        try database.addSteps(["2026-11-29": 10])
        #expect(try database.stepDays().map { "\($0.day) \($0.steps)" } == ["2026-11-28 30", "2026-11-29 30"])
        #expect(try database.stepDaysToUpload().map(\.day) == ["2026-11-28", "2026-11-29"])
        try database.markStepsUploaded(day: "2026-11-28", steps: 30)
        try database.markStepsUploaded(day: "2026-11-29", steps: 30)
        #expect(try database.stepDaysToUpload().isEmpty)
        try database.addSteps(["2026-11-29": 5])
        let left = try database.stepDaysToUpload()
        #expect(left == [StepDay(day: "2026-11-29", steps: 35, uploaded: 30)])
        #expect(try database.stepDays(since: "2026-11-29").count == 1)
        #expect(try database.stepsWaiting())
        // The journal's own id: 32 hex digits, the same each time it is asked.
        let id = try database.packIdentity()
        let again = try database.packIdentity()
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit) && id == again)
    }
}
