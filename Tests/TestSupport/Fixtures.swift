import Foundation

/// The shared fixtures (`../shared/fixtures`): real data from outside the project, read in place.
///
/// `HANDOFF_FIXTURES` names the folder. When it is set, the folder must exist: a test that needs
/// it fails with the path. When it is unset, the folder beside the repository is used if it
/// is there; otherwise tests that need it are skipped (see `Fixtures.available`).
public enum Fixtures {
    public static let environmentVariable = "HANDOFF_FIXTURES"

    /// The repository's root directory.
    public static let repositoryRoot: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }()

    public static var root: URL {
        if let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty {
            return URL(fileURLWithPath: path, relativeTo: repositoryRoot).standardizedFileURL
        }
        return repositoryRoot.appendingPathComponent("../shared/fixtures").standardizedFileURL
    }

    /// Whether fixture tests should run: always when the variable is set (so that a wrong path
    /// fails loudly), else when the default folder exists.
    public static var available: Bool {
        if let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty { return true }
        return FileManager.default.fileExists(atPath: root.path)
    }

    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String {
            "fixture \(path) is missing (set \(Fixtures.environmentVariable) to the shared fixtures folder)"
        }
    }

    /// The URL of a fixture file, which must exist.
    public static func url(_ relativePath: String) throws -> URL {
        let url = root.appendingPathComponent(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else { throw Missing(path: url.path) }
        return url
    }

    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    public static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self)
    }
}
