import ActivityFormats
import Foundation
import HandoffAPI
import HandoffModel

/// The store's sports (issue 34): `run`, `bike`, `walk`, `swim`, `other`, from a file's sport or
/// chosen by the runner.
extension Sport {
    /// A file's sport as the store names it: a hike is a walk.
    init(_ sport: Activity.Sport) {
        switch sport {
        case .running: self = .run
        case .cycling: self = .bike
        case .walking, .hiking: self = .walk
        case .other: self = .other
        }
    }

    /// As a page says it: "Run", "Ride", "Walk", "Swim", "Activity".
    var title: String {
        switch self {
        case .run: "Run"
        case .bike: "Ride"
        case .walk: "Walk"
        case .swim: "Swim"
        case .other: "Activity"
        }
    }

    /// Lower case, for a sentence ("bike rides do not count here").
    var plural: String {
        switch self {
        case .run: "runs"
        case .bike: "rides"
        case .walk: "walks"
        case .swim: "swims"
        case .other: "other activities"
        }
    }

    /// The sport named `text`, or a 422 that lists the five.
    static func named(_ text: String, field: String = "sport") throws(StoreError) -> Sport {
        guard let sport = Sport(rawValue: text.lowercased()) else {
            throw StoreError(
                .unprocessableContent, "invalid_sport",
                "\(field) is one of run, bike, walk, swim or other, not \(String(text.prefix(32)))")
        }
        return sport
    }
}

/// Which sports count toward a group's goal, each with its factor in thousandths (a kilometre
/// by bike may count 250 m). Kept in `team.sports` as "run:1000 walk:1000" (schema 21).
struct SportRules: Sendable, Equatable {
    private(set) var factors: [Sport: Int64]

    /// Run and walk, each as itself: what a group counts unless its owner says otherwise.
    static let standard = SportRules(factors: [.run: 1000, .walk: 1000])

    init(factors: [Sport: Int64]) { self.factors = factors }

    /// From the column; a word this store does not know (a newer one's sport) is left out.
    init(column: String) {
        var factors: [Sport: Int64] = [:]
        for word in column.split(separator: " ") {
            let parts = word.split(separator: ":")
            guard parts.count == 2, let sport = Sport(rawValue: String(parts[0])), let factor = Int64(parts[1]),
                factor > 0
            else { continue }
            factors[sport] = factor
        }
        self.factors = factors
    }

    var column: String {
        factors.sorted { $0.key < $1.key }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: " ")
    }

    /// As the API says it: each counted sport with its factor.
    var api: [String: Double] {
        Dictionary(uniqueKeysWithValues: factors.map { ($0.key.rawValue, Double($0.value) / 1000) })
    }

    /// The distance a run of `sport` adds, in millimetres; nil when the sport does not count.
    func counted(_ distanceMM: Int64, sport: String) -> Int64? {
        guard let sport = Sport(rawValue: sport), let factor = factors[sport] else { return nil }
        // Within Int64: a run is at most 1,000 km (10^9 mm) and a factor at most 10,000.
        return distanceMM * factor / 1000
    }

    /// The rules a group's owner sent: at least one sport, each factor from 0.01 to 10.
    static func checked(_ sports: [String: Double]) throws(StoreError) -> SportRules {
        var factors: [Sport: Int64] = [:]
        for (name, factor) in sports {
            let sport = try Sport.named(name, field: "a key of sports")
            guard factor.isFinite, factor >= 0.01, factor <= 10 else {
                throw StoreError(
                    .unprocessableContent, "invalid_sports",
                    "each sport's factor is from 0.01 to 10 (1: each kilometre counts as one), not \(factor) for \(name)"
                )
            }
            factors[sport] = Int64((factor * 1000).rounded())
        }
        guard !factors.isEmpty else {
            throw StoreError(
                .unprocessableContent, "invalid_sports",
                "a group counts at least one sport: send for example {\"run\": 1, \"walk\": 1}")
        }
        return SportRules(factors: factors)
    }

    /// For the group's page: "Runs and walks count" or "Runs count; rides count ×0.25".
    var sentence: String {
        let sorted = factors.sorted { $0.key < $1.key }
        let whole = sorted.filter { $0.value == 1000 }.map { $0.key.plural }
        let scaled = sorted.filter { $0.value != 1000 }.map {
            "\($0.key.plural) count ×\(String(format: "%g", Double($0.value) / 1000))"
        }
        var parts: [String] = []
        if !whole.isEmpty { parts.append(Self.list(whole) + " count") }
        parts += scaled
        let text = parts.joined(separator: "; ")
        return text.prefix(1).uppercased() + text.dropFirst() + "."
    }

    private static func list(_ words: [String]) -> String {
        words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " and " + words.last!
    }
}

/// The form on a run's page that changes its sport.
struct SportForm: Sendable, Equatable {
    var action: String
    var choices: [Preferences.Choice]

    init(action: String, selected: String) {
        self.action = action
        choices = Sport.allCases.map {
            Preferences.Choice(
                value: $0.rawValue, label: $0 == .other ? "Other" : $0.title, selected: $0.rawValue == selected)
        }
    }
}
