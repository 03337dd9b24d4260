import Foundation
import HandoffModel

/// A runner's account.
public struct Account: Sendable, Equatable {
    public var id: Int64
    public var email: String
    public var username: String
    public var passwordHash: String
    public var created: WallInstant
    /// "km" or "mi", for every page.
    public var units = "km"
    /// An IANA time zone name, for every time on every page.
    public var timeZone = "UTC"
    /// Beats per minute, when the person has said (`/settings`): the top of their zones.
    public var maximumHeartRate: Int? = nil
    /// Beats per minute at rest, when the person has said: the floor of the training load's TRIMP.
    public var restingHeartRate: Int? = nil
    /// Millimetres a week, when the person has set a goal (`/settings`): the ring on their home
    /// page and week card.
    public var weekGoalMM: Int64? = nil
    /// Who sees each new run of the person's, and its map, until they choose otherwise on it.
    public var audience = StoredRun.Audience(run: .standard, map: .standard)
}

/// What a bearer token may do: a person's session does everything; a pack's device token only
/// uploads runs and uses the baton (RFC 8628 device flow, a later step).
public enum TokenScope: String, Sendable, Codable {
    case session
    case device
}

/// The rules an account's fields follow, with messages that say how to meet them.
enum AccountRules {
    static let minimumPasswordLength = 10
    /// Maximum heart rates a person may give, beats per minute.
    static let maximumHeartRates = 100...230
    /// Resting heart rates a person may give, beats per minute.
    static let restingHeartRates = 30...120
    /// bcrypt reads only the first 72 bytes of a password: longer ones would be silently cut.
    static let maximumPasswordBytes = 72

    /// An e-mail address in NFC and lower case; control and text-direction characters are a 400.
    static func email(_ raw: String) throws(StoreError) -> String {
        let email = try TextRules.plain(raw, field: "email").trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !email.contains(where: \.isWhitespace)
        else {
            throw StoreError(.unprocessableContent, "invalid_email", "\"\(raw)\" is not an email address")
        }
        return email
    }

    /// A username: ASCII letters, digits, dots, dashes and underscores only, judged on its
    /// Unicode scalars (the Kelvin sign K lower-cases to "k" but is not one).
    static func username(_ raw: String) throws(StoreError) -> String {
        let name = try TextRules.plain(raw, field: "username")
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.".unicodeScalars)
        guard (3...32).contains(name.unicodeScalars.count), name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw StoreError(
                .unprocessableContent, "invalid_username",
                "a username is 3 to 32 letters, digits, dots, dashes or underscores")
        }
        return name
    }

    static func password(_ password: String) throws(StoreError) {
        guard !password.unicodeScalars.contains("\u{0}") else {
            throw StoreError(
                .unprocessableContent, "invalid_password",
                "a password may not contain the NUL character (U+0000): bcrypt would ignore everything from it on")
        }
        guard password.count >= minimumPasswordLength else {
            throw StoreError(
                .unprocessableContent, "weak_password",
                "a password needs at least \(minimumPasswordLength) characters (a few words make a good one)")
        }
        guard password.utf8.count <= maximumPasswordBytes else {
            throw StoreError(
                .unprocessableContent, "long_password",
                "a password may be at most \(maximumPasswordBytes) bytes (bcrypt ignores the rest)")
        }
    }
}
