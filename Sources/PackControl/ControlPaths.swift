import Foundation

/// Where the pack keeps its files, as both `handoffd` and `handoff` find them.
///
/// As root (the system service): `/etc/handoff/handoff.toml`, `/var/lib/handoff/`,
/// `/run/handoff/control.sock`; systemd's `$STATE_DIRECTORY` and `$RUNTIME_DIRECTORY` win when
/// set. As a user: the XDG directories (`~/.config/handoff/`, `~/.local/state/handoff/`,
/// `$XDG_RUNTIME_DIR/handoff/`). `HANDOFF_SOCKET` overrides the socket for both.
public enum ControlPaths {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static var isRoot: Bool { geteuid() == 0 }

    static func firstDirectory(_ list: String?) -> String? {
        list?.split(separator: ":").first.map(String.init)
    }

    public static var defaultSocket: String {
        if let path = environment["HANDOFF_SOCKET"], !path.isEmpty { return path }
        if let runtime = firstDirectory(environment["RUNTIME_DIRECTORY"]) { return runtime + "/control.sock" }
        if isRoot { return "/run/handoff/control.sock" }
        // The system service (hw/systemd/handoffd.service), for members of the handoff group.
        if access("/run/handoff/control.sock", F_OK) == 0 { return "/run/handoff/control.sock" }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/handoff/control.sock" }
        return "/tmp/handoff-\(getuid())/control.sock"
    }

    public static var defaultStateDirectory: String {
        if let state = firstDirectory(environment["STATE_DIRECTORY"]) { return state }
        if isRoot { return "/var/lib/handoff" }
        if let state = environment["XDG_STATE_HOME"], !state.isEmpty { return state + "/handoff" }
        return NSHomeDirectory() + "/.local/state/handoff"
    }

    public static var defaultConfiguration: String {
        if let path = environment["HANDOFF_CONFIG"], !path.isEmpty { return path }
        if isRoot { return "/etc/handoff/handoff.toml" }
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty,
            access(config + "/handoff/handoff.toml", F_OK) == 0
        {
            return config + "/handoff/handoff.toml"
        }
        // The system service's configuration, when this user has none of their own.
        let own = NSHomeDirectory() + "/.config/handoff/handoff.toml"
        if access(own, F_OK) != 0, access("/etc/handoff/handoff.toml", F_OK) == 0 { return "/etc/handoff/handoff.toml" }
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty { return config + "/handoff/handoff.toml" }
        return NSHomeDirectory() + "/.config/handoff/handoff.toml"
    }
}
