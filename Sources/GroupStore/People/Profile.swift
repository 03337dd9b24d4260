import Foundation
import HandoffModel

/// A field of a person's profile, each optional and each with its own audience: the levels of
/// `RunVisibility`, where "groups" means people who share a group with the person now. Private
/// until the person chooses otherwise.
enum ProfileField: String, CaseIterable, Sendable {
    case nickname
    case height = "height_cm"
    case weight = "weight_kg"
    case gender
    case birthYear = "birth_year"

    static let heights = 100...250
    static let weights = 30.0...250.0
    static let genders = ["woman": "Woman", "man": "Man", "nonbinary": "Non-binary"]

    var label: String {
        switch self {
        case .nickname: "Nickname"
        case .height: "Height (cm)"
        case .weight: "Weight (kg)"
        case .gender: "Gender"
        case .birthYear: "Birth year"
        }
    }

    /// The field in a sentence: "your height".
    var noun: String {
        switch self {
        case .nickname: "nickname"
        case .height: "height"
        case .weight: "weight"
        case .gender: "gender"
        case .birthYear: "birth year"
        }
    }

    /// The value as typed, checked and written the one way the store keeps it; empty for none.
    func value(_ text: String, now: WallInstant) throws(StoreError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return "" }
        switch self {
        case .nickname:
            let name = try TextRules.plain(trimmed, field: "nickname")
            guard name.count <= 40 else { throw refused("a nickname is at most 40 characters") }
            return name
        case .height:
            guard let cm = Int(trimmed), Self.heights.contains(cm) else {
                throw refused("a height is a whole number of centimetres from 100 to 250, or empty")
            }
            return String(cm)
        case .weight:
            guard let kg = Double(trimmed.replacingOccurrences(of: ",", with: ".")), Self.weights.contains(kg) else {
                throw refused("a weight is a number of kilograms from 30 to 250, or empty")
            }
            let tenths = (kg * 10).rounded()
            return tenths.truncatingRemainder(dividingBy: 10) == 0
                ? String(Int(tenths / 10)) : String(format: "%.1f", tenths / 10)
        case .gender:
            guard Self.genders[trimmed] != nil else { throw refused("a gender is woman, man, nonbinary, or empty") }
            return trimmed
        case .birthYear:
            let thisYear = CivilTime(now).year
            guard let year = Int(trimmed), (1900...thisYear).contains(year) else {
                throw refused("a birth year is from 1900 to \(thisYear), or empty")
            }
            return String(year)
        }
    }

    /// The value as a page shows it.
    func shown(_ value: String) -> String {
        switch self {
        case .height: "\(value) cm"
        case .weight: "\(value) kg"
        case .gender: Self.genders[value] ?? value
        default: value
        }
    }

    private func refused(_ message: String) -> StoreError {
        StoreError(.unprocessableContent, "invalid_profile", message)
    }
}

/// A person's profile as kept: each filled-in field's value and who sees it.
struct Profile: Sendable, Equatable {
    var values: [ProfileField: String] = [:]
    var levels: [ProfileField: RunVisibility] = [:]

    func level(_ field: ProfileField) -> RunVisibility { levels[field] ?? .private }

    /// The fields `relation` lets a viewer see, in the fields' order.
    func seen(by relation: RunVisibility.Relation) -> [(ProfileField, String)] {
        ProfileField.allCases.compactMap { field in
            guard let value = values[field], level(field).allows(relation) else { return nil }
            return (field, value)
        }
    }

    /// Age in whole years at `instant`, from the birth year (the middle of it).
    func age(at instant: WallInstant) -> Int? {
        values[.birthYear].flatMap(Int.init).flatMap { (1900...9999).contains($0) ? CivilTime(instant).year - $0 : nil }
    }
}

extension StoreRepository {
    func profile(account: Int64) async throws -> Profile {
        try await read { db in try await Self.profile(db, account) }
    }

    static func profile(_ db: any SQLSession, _ account: Int64) async throws -> Profile {
        var profile = Profile()
        for row in try await db.query(
            "SELECT field, value, visibility FROM profile_field WHERE account_id = ?", account)
        {
            guard let field = ProfileField(rawValue: try row.text("field")) else { continue }
            profile.values[field] = try row.text("value")
            profile.levels[field] = RunVisibility(rawValue: try row.text("visibility")) ?? .private
        }
        return profile
    }

    /// Replaces the person's profile: fields with an empty value are removed.
    func setProfile(account: Int64, _ profile: Profile) async throws {
        try await write { db in
            try await db.query("DELETE FROM profile_field WHERE account_id = ?", account)
            for field in ProfileField.allCases {
                guard let value = profile.values[field], !value.isEmpty else { continue }
                try await db.query(
                    "INSERT INTO profile_field (account_id, field, value, visibility) VALUES (?, ?, ?, ?)",
                    account, field.rawValue, value, profile.level(field).rawValue)
            }
        }
    }

    /// Where `viewer` stands toward `person`: friends, sharing a group now, blocked either way.
    static func relation(_ db: any SQLSession, viewer: Int64, person: Int64) async throws -> RunVisibility.Relation {
        guard viewer != person else { return RunVisibility.Relation(isOwner: true) }
        let row = try await db.one(
            """
            SELECT
                CASE WHEN EXISTS (SELECT 1 FROM friend WHERE account_id = ? AND friend_id = ? AND status = 'friends')
                    THEN 1 ELSE 0 END AS friends,
                CASE WHEN EXISTS (SELECT 1 FROM member AS mine JOIN member AS theirs ON theirs.team_id = mine.team_id
                    WHERE mine.account_id = ? AND theirs.account_id = ?) THEN 1 ELSE 0 END AS mates,
                CASE WHEN EXISTS (SELECT 1 FROM block WHERE (blocker_id = ? AND blocked_id = ?)
                    OR (blocker_id = ? AND blocked_id = ?)) THEN 1 ELSE 0 END AS blocked,
                CASE WHEN EXISTS (SELECT 1 FROM suspension WHERE account_id = ?) THEN 1 ELSE 0 END AS suspended
            """, viewer, person, viewer, person, viewer, person, person, viewer, person)
        return RunVisibility.Relation(
            isFriend: try row?.int("friends") == 1, inRunsGroup: try row?.int("mates") == 1,
            blocked: try row?.int("blocked") == 1, ownerSuspended: try row?.int("suspended") == 1)
    }
}
