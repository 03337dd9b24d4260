import HandoffModel

/// What a group's settings may be: the checks the create and change routes make of a goal, a
/// deadline and a lease (and, in GroupRoutes, of a name), and the invite codes they hand out.
extension GroupRoutes {
    static func goal(_ metres: Double) throws(StoreError) -> Int64 {
        guard metres.isFinite, metres >= 1, metres <= 100_000_000 else {
            throw StoreError(
                .unprocessableContent, "invalid_goal", "the goal is a distance in metres, from 1 m to 100,000 km")
        }
        return Int64((metres * 1000).rounded())
    }

    static func deadline(_ text: String, now: WallInstant) throws(StoreError) -> WallInstant {
        guard let instant = WallInstant(iso8601: text) else {
            throw StoreError(
                .unprocessableContent, "invalid_deadline",
                "the deadline is an ISO 8601 time such as 2027-06-30T23:59:59Z, not \(text)")
        }
        guard instant > now else {
            throw StoreError(.unprocessableContent, "invalid_deadline", "the deadline \(text) has passed already")
        }
        guard instant < latestDeadline else {
            throw StoreError(.unprocessableContent, "invalid_deadline", "a deadline is before the year 2100")
        }
        return instant
    }

    /// 2100-01-01T00:00:00Z: times after it are refused (stored times stay far from overflow).
    static let latestDeadline = WallInstant(nanosecondsSinceEpoch: 4_102_444_800 * nanosecondsPerSecond)

    static func lease(_ hours: Double) throws(StoreError) -> Int64 {
        guard hours.isFinite, hours >= 1.0 / 60, hours <= 24 * 14 else {
            throw StoreError(
                .unprocessableContent, "invalid_lease", "the baton's lease is from one minute (1/60) to 336 hours")
        }
        return Int64((hours * 3600).rounded())
    }

    /// Invite codes: 10 letters and digits without look-alikes (about 50 bits).
    static func inviteCode() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
