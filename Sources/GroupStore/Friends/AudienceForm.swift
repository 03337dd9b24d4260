/// The form that chooses who sees runs and their maps: in the settings (the default for new
/// runs) and on a run's page (that run).
struct AudienceForm: Sendable, Equatable {
    var action: String
    /// What the first choice is about: "Who sees your new runs", "Who sees this run".
    var runLabel: String
    var run: [Preferences.Choice]
    var map: [Preferences.Choice]

    init(action: String, runLabel: String, _ audience: StoredRun.Audience) {
        self.action = action
        self.runLabel = runLabel
        run = Self.choices(audience.run)
        map = Self.choices(audience.map)
    }

    static func choices(_ selected: RunVisibility) -> [Preferences.Choice] {
        RunVisibility.allCases.map { Preferences.Choice(value: $0.rawValue, label: $0.words, selected: $0 == selected) }
    }

    /// The levels a form sent, or the sentence that says what was wrong.
    static func read(_ form: [String: String]) -> Result<StoredRun.Audience, StoreError> {
        Result { () throws(StoreError) -> StoredRun.Audience in
            let run = try RunVisibility.named(form["visibility"] ?? "")
            let map = try RunVisibility.named(form["map_visibility"] ?? "", field: "map_visibility")
            return try RunVisibility.audience(run: run, map: map, current: .init(run: run, map: map))
        }
    }
}

extension RunVisibility {
    /// The level as a form offers it.
    var words: String {
        switch self {
        case .private: "Only you"
        case .friends: "Your friends"
        case .groups: "Friends and group-mates"
        case .public: "Anyone, even signed out"
        }
    }
}
