import HandoffModel
import PackControl
import PackStorage

extension PackEngine {
    /// `handoff steps today`: the day's steps outside runs (written to the journal first, so the
    /// answer and the next upload agree) and the steps of the runs started today, the one being
    /// recorded included.
    func stepsToday() throws(ControlError) -> StepsReport {
        saveSteps(force: true)
        let (monotonic, wall) = now()
        let today = wall ?? clock.wall()
        let day = recording.stepDays.day(today)
        let (from, to) = recording.stepDays.bounds(today)
        do {
            let kept = try database.stepDays(since: day).first { $0.day == day }
            var inRuns = try database.stepsInRuns(fromWallNs: from, toWallNs: to)
            if let session, recording.isRecording, session.startWall.nanosecondsSinceEpoch >= from,
                let steps = pipeline.recorder.snapshot(at: monotonic).steps
            {
                inRuns += steps
            }
            return StepsReport(
                day: day, outsideRuns: kept?.steps ?? 0, inRuns: inRuns, counting: pipeline.recorder.countsSteps,
                uploaded: kept?.uploaded ?? 0)
        } catch {
            throw ControlError(code: "storage", message: "could not read today's steps from the journal: \(error)")
        }
    }
}
