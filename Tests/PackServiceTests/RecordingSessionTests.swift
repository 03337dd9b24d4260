import HandoffModel
import PackStorage
import Recorder
import RunSimulator
import Synchronization
import Testing

@testable import PackService

/// The engine's pure core, without a journal, a clock or a log: events in, actions out.
@Suite("The recording session: events in, journal actions out")
struct RecordingSessionTests {
    static let wall = CivilTime(year: 2026, month: 6, day: 14, hour: 7).instant

    static func session(discardBelow: Double = 60) -> RecordingSession {
        let counter = Counter()
        return RecordingSession(
            recorder: RecorderConfiguration(), sensors: [], discardShorterThanSeconds: discardBelow,
            newUUID: { "run-\(counter.next())" })
    }

    /// Takes `event` and returns the actions its outputs make.
    static func take(
        _ session: inout RecordingSession, _ event: CaptureEvent, discard: Bool = false
    ) -> [RecordingSession.Action] {
        let step = session.take(event).step
        return session.actions(for: step.outputs, systemWall: wall, wall: wall, discardIfEmpty: discard)
    }

    static func at(_ seconds: Int64, _ body: CaptureEvent.Body) -> CaptureEvent {
        CaptureEvent(
            monotonic: MonotonicInstant(nanoseconds: (1 + seconds) * nanosecondsPerSecond),
            wall: wall.advanced(byNanoseconds: seconds * nanosecondsPerSecond), body: body)
    }

    @Test("A simulated run: one begin, a committed point per second for its own UUID, then its finish and a commit")
    func wholeRun() throws {
        let run = RunSimulator.simulate(SimulationScenario(seed: 11, minutes: 2))
        var session = RecordingSession(
            recorder: RecorderConfiguration(), sensors: run.header.sensors, discardShorterThanSeconds: 60,
            newUUID: { "the-run" })
        var actions: [RecordingSession.Action] = []
        for event in run.events {
            let step = session.take(event).step
            let taken = session.actions(for: step.outputs, systemWall: Self.wall, wall: Self.wall)
            // A step that records a point ends with a commit: at most the second in flight is lost.
            if taken.contains(where: { if case .record(.point, _) = $0 { true } else { false } }) {
                #expect({ if case .commit = taken.last { true } else { false } }(), "\(taken)")
            }
            actions += taken
        }
        let begins = actions.compactMap { if case .begin(let r) = $0 { r } else { nil } }
        #expect(begins.map(\.uuid) == ["the-run"])
        var points = 0
        var finishes = 0
        for action in actions {
            guard case .record(let entry, let uuid) = action else { continue }
            #expect(uuid == "the-run")
            switch entry {
            case .point:
                points += 1
            case .finish(let finish):
                finishes += 1
                #expect(finish.summary.statistics.pointCount == points)
            default: break
            }
        }
        #expect(points >= 110, "about one point a second for two minutes: \(points)")
        #expect(finishes == 1)
        #expect(actions.contains { if case .finished(let r, _) = $0 { r.uuid == "the-run" } else { false } })
        #expect(session.run == nil && !session.isRecording)
    }

    @Test(
        "A person's stop of a short run with no distance discards it (no finish recorded); without the flag it is kept")
    func discardAtStop() {
        for discard in [true, false] {
            var session = Self.session()
            let begin = Self.take(&session, Self.at(0, .command(.start)))
            guard case .begin(let run) = begin.first else {
                Issue.record("no begin: \(begin)")
                return
            }
            #expect(run.uuid == "run-1" && run.startWall == Self.wall)
            _ = Self.take(&session, Self.at(20, .clock(synchronized: true)))
            let stop = Self.take(&session, Self.at(20, .command(.stop)), discard: discard)
            let discarded = stop.contains { if case .discard(let r, _) = $0 { r.uuid == "run-1" } else { false } }
            let finished = stop.contains { if case .record(.finish, _) = $0 { true } else { false } }
            #expect(discarded == discard && finished == !discard, "\(stop)")
        }
    }

    @Test("Time never runs back: an event stamped before the latest taken is taken at the latest")
    func timeIsFloored() {
        var session = Self.session()
        _ = session.take(Self.at(10, .clock(synchronized: true)))
        let (taken, _) = session.take(Self.at(5, .clock(synchronized: true)))
        #expect(taken.monotonic == Self.at(10, .clock(synchronized: true)).monotonic)
        #expect(session.processedUpTo == taken.monotonic)
    }

    @Test("Each run gets a UUID of its own")
    func newRunNewUUID() {
        var session = Self.session(discardBelow: 0)
        var uuids: [String] = []
        for start in [Int64(0), 100] {
            for action in Self.take(&session, Self.at(start, .command(.start))) {
                if case .begin(let run) = action { uuids.append(run.uuid) }
            }
            _ = Self.take(&session, Self.at(start + 30, .command(.stop)))
        }
        #expect(uuids == ["run-1", "run-2"])
    }
}

/// A counter a `@Sendable` closure may bump.
private final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}
