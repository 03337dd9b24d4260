import HandoffAPI
import PackStorage

extension SyncWorker {
    /// Sends the days whose steps outside runs the store has not acknowledged (`PUT
    /// /v1/me/steps`), after the runs. Best effort: a failure is logged once per pass and the
    /// days wait for the next sync; runs are never held back by it. Each day's count replaces
    /// the last on the store, so a count sent twice (an answer lost) is still counted once.
    func uploadSteps(client: StoreClient) async {
        if passes.stopping || Task.isCancelled { return }
        let days: [StepDay]
        do { days = try database.stepDaysToUpload() } catch {
            logger.error("Could not read the day's steps from the journal: \(error)")
            return
        }
        guard !days.isEmpty else { return }
        do {
            try await client.putStepsOutsideRuns(days.map { .init(date: $0.day, steps: $0.steps) })
        } catch {
            logger.notice(
                "The store did not take the steps outside runs; they go with the next sync",
                metadata: ["error": "\(error.message)", "days": "\(days.count)"])
            return
        }
        do {
            for day in days { try database.markStepsUploaded(day: day.day, steps: day.steps) }
        } catch {
            logger.error("Could not note the steps the store took; they will be sent again: \(error)")
        }
        logger.info(
            "Sent the steps outside runs", metadata: ["days": "\(days.count)", "last": "\(days.last?.day ?? "")"])
    }
}
