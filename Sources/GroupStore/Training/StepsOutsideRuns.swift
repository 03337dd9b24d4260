import Foundation
import HandoffAPI
import HandoffModel
import Hummingbird

/// The steps a pack counts outside runs (`handoff steps today`), uploaded with its syncs: one
/// count per day of the pack's calendar and per pack, each upload replacing the last, so a
/// repeated or late upload never counts a step twice.
struct StepsOutsideRunsUpload: Sendable {
    static let maximumDays = 62
    /// More than this in a day is a broken counter, not a walk.
    static let maximumSteps = 200_000

    var days: [(day: Int64, steps: Int)]
    /// The pack's lasting id, when it sent one.
    var pack: String?

    /// Checks every day: a real date, not after tomorrow on the store's clock (the pack's calendar
    /// may be up to 14 hours ahead of UTC), not before 2000, and a plausible count.
    init(_ body: StepsOutsideRuns, now: WallInstant) throws {
        guard !body.days.isEmpty, body.days.count <= Self.maximumDays else {
            throw StoreError(
                .unprocessableContent, "invalid_days", "days holds 1 to \(Self.maximumDays) days; send the rest next")
        }
        if let pack = body.pack {
            let allowed = pack.utf8.allSatisfy { byte in
                byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            }
            guard (1...64).contains(pack.utf8.count), allowed else {
                throw StoreError(
                    .unprocessableContent, "invalid_pack",
                    "pack is 1 to 64 letters, digits and hyphens: the pack's own id")
            }
        }
        pack = body.pack
        let tomorrow = TrainingPicture.localDay(now, zone: "UTC") + 1
        var seen: Set<Int64> = []
        days = try body.days.map { entry in
            guard let day = Self.dayNumber(entry.date) else {
                throw StoreError(
                    .unprocessableContent, "invalid_date",
                    "\"\(entry.date.prefix(40))\" is not a date: write it as 2026-11-28")
            }
            guard day <= tomorrow, day >= Self.dayNumber("2000-01-01")! else {
                throw StoreError(
                    .unprocessableContent, "invalid_date", "\(entry.date) is not a day a pack can have counted yet")
            }
            guard (0...Self.maximumSteps).contains(entry.steps) else {
                throw StoreError(
                    .unprocessableContent, "invalid_steps",
                    "steps for \(entry.date) is \(entry.steps): a day's count is 0 to \(Self.maximumSteps)")
            }
            guard seen.insert(day).inserted else {
                throw StoreError(.unprocessableContent, "invalid_days", "\(entry.date) is given twice")
            }
            return (day, entry.steps)
        }
    }

    /// Whose count each day is: the pack's own id when it sent one (a pack linked again keeps it),
    /// else the token's pack, else the person's.
    func source(device: Int64?) -> String {
        if let pack { return "pack:" + pack.lowercased() }
        return device.map { "device:\($0)" } ?? ""
    }

    /// `2026-11-28` as a day number (days since 1970-01-01), or nil when it is not a date.
    static func dayNumber(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            (1...12).contains(month), day >= 1
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= lengths[month - 1] else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension StoreRepository {
    /// Replaces what `source` (`StepsOutsideRunsUpload.source`) said of each day.
    func putStepsOutsideRuns(
        account: Int64, source: String, _ days: [(day: Int64, steps: Int)], now: WallInstant
    )
        async throws
    {
        try await write { db in
            for (day, steps) in days {
                try await db.query(
                    """
                    INSERT INTO step_day (account_id, day, source, steps, updated_ns) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (account_id, day, source) DO UPDATE SET steps = excluded.steps,
                        updated_ns = excluded.updated_ns
                    """, account, day, source, Int64(steps), now.nanosecondsSinceEpoch)
            }
        }
    }

    /// Each day's steps outside runs from day `from` on, summed over the person's packs.
    func stepsOutsideRuns(account: Int64, from: Int64) async throws -> [Int64: Int] {
        try await read { db in
            var days: [Int64: Int] = [:]
            for row in try await db.query(
                """
                SELECT day, CAST(sum(steps) AS BIGINT) AS steps FROM step_day WHERE account_id = ? AND day >= ?
                GROUP BY day
                """, account, from)
            {
                days[try row.int("day")] = Int(clamping: try row.int("steps"))
            }
            return days
        }
    }
}

extension TrainingRoutes {
    func registerStepsOutsideRuns(_ router: RouteRecorder) {
        // A pack's device token may send its own steps, as it uploads its own runs.
        router.put("/v1/me/steps") { request, context in
            let credential = try await services.caller(request, device: true)
            let body = try await request.json(StepsOutsideRuns.self, context)
            let now = services.now()
            let upload = try StepsOutsideRunsUpload(body, now: now)
            try await services.repository.putStepsOutsideRuns(
                account: credential.account.id, source: upload.source(device: credential.device), upload.days, now: now)
            return try await services.stepDays(credential.account, now: now).view
        }
    }
}
