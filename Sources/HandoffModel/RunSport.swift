/// What a recorded run is: the pack records running, riding and walking (a swim or anything
/// else is entered on the store by hand). Named as the store and the CLI name them.
public enum RunSport: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case run
    case bike
    case walk

    public var description: String { rawValue }

    /// The names accepted, for an error message: "run, bike or walk".
    public static let names = "run, bike or walk"
}
