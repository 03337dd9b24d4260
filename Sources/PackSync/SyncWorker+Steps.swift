import HandoffAPI
import HandoffModel
import PackStorage

extension SyncWorker {
    /// How soon the worker looks again while a day's steps wait for the store (a pack worn at
    /// home with no new run would otherwise not look until something wakes it).
    static let stepsLookSeconds = 3_600.0

    /// Sends the days whose steps outside runs the store has not acknowledged (`PUT
    /// /v1/me/steps`, with the journal's lasting id), after the runs. Best effort: a failure is
    /// logged and the days wait for the next look; runs are never held back by it. Each day's
    /// count replaces the last on the store, so a count sent twice is still counted once.
    ///
    /// A day the store can never take (before 2000, after tomorrow, over 200,000 steps: a clock
    /// or a counter gone wrong) is set aside, with a warning, rather than block every later day.
    /// A batch the store refuses (422) is sent again a day at a time, and only the days refused
    /// are set aside.
    func uploadSteps(client: StoreClient) async {
        if passes.stopping || Task.isCancelled { return }
        let days: [StepDay]
        let pack: String
        do {
            days = try database.stepDaysToUpload()
            pack = try database.packIdentity()
        } catch {
            logger.error("Could not read the day's steps from the journal: \(error)")
            return
        }
        let tomorrow = String(CivilTime(now().advanced(byNanoseconds: 86_400 * 1_000_000_000)).iso8601().prefix(10))
        let (sendable, impossible) = (
            days.filter { Self.plausible($0, tomorrow: tomorrow) },
            days.filter { !Self.plausible($0, tomorrow: tomorrow) }
        )
        setAside(impossible, reason: "no store takes this day (a clock or a step counter gone wrong)")
        guard !sendable.isEmpty else { return }
        switch await send(sendable, pack: pack, client: client) {
        case .sent:
            logger.info(
                "Sent the steps outside runs",
                metadata: ["days": "\(sendable.count)", "last": "\(sendable.last?.day ?? "")"])
        case .refused:
            // One day spoils the batch: find it, keep the rest.
            for day in sendable where await send([day], pack: pack, client: client) == .refused {
                setAside([day], reason: "the store refused it")
            }
        case .failed:
            break
        }
    }

    enum StepsOutcome { case sent, refused, failed }

    private func send(_ days: [StepDay], pack: String, client: StoreClient) async -> StepsOutcome {
        do {
            try await client.putStepsOutsideRuns(days.map { .init(date: $0.day, steps: $0.steps) }, pack: pack)
        } catch {
            logger.notice(
                "The store did not take the steps outside runs",
                metadata: ["error": "\(error.message)", "days": "\(days.count)"])
            return error.cause == .refused ? .refused : .failed
        }
        do {
            for day in days { try database.markStepsUploaded(day: day.day, steps: day.steps) }
        } catch {
            logger.error("Could not note the steps the store took; they will be sent again: \(error)")
        }
        return .sent
    }

    /// Marks days as taken so that they stop blocking the others; the journal keeps their count.
    private func setAside(_ days: [StepDay], reason: String) {
        for day in days {
            logger.warning(
                "Steps outside runs not sent: \(reason)", metadata: ["day": "\(day.day)", "steps": "\(day.steps)"])
            try? database.markStepsUploaded(day: day.day, steps: day.steps)
        }
    }

    /// What the store takes: a date from 2000 to tomorrow, at most 200,000 steps.
    static func plausible(_ day: StepDay, tomorrow: String) -> Bool {
        day.day >= "2000-01-01" && day.day <= tomorrow && (0...200_000).contains(day.steps)
    }
}
