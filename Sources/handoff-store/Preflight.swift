import Foundation
import GroupStore

/// What the store checks before it makes anything on disk: that it can listen where it is told,
/// that its data directory can be made or written, and that a database URL reads as one. Each
/// failure is one sentence naming the flag (and its environment twin) to change.
enum Preflight {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Binds a probe socket to `host:port` (with SO_REUSEADDR, as the server does) and closes it.
    /// Port 0 (any free port) is not probed.
    static func checkListening(host: String, port: Int) throws(Failure) {
        guard port != 0 else { return }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else {
            throw Failure(
                description:
                    "\(host) is not an address or a name this machine can resolve: choose another with --host (or HANDOFF_STORE_HOST)"
            )
        }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return }  // no socket to probe with: the server's own bind will say why
        defer { close(fd) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 else { return }
        let where_ = "port \(port) on \(host)"
        switch errno {
        case EADDRINUSE:
            throw Failure(
                description:
                    "\(where_) is in use by another program: choose another with --port (or HANDOFF_STORE_PORT)")
        case EACCES, EPERM:
            throw Failure(
                description:
                    "\(where_) needs privileges this user does not have (ports below 1024 do): choose one from 1024 up with --port (or HANDOFF_STORE_PORT)"
            )
        case EADDRNOTAVAIL:
            throw Failure(
                description:
                    "\(host) is not an address of this machine: choose another with --host (or HANDOFF_STORE_HOST)")
        default:
            throw Failure(
                description:
                    "\(where_) cannot be listened on (\(String(cString: strerror(errno)))): choose another with --port or --host (or HANDOFF_STORE_PORT, HANDOFF_STORE_HOST)"
            )
        }
    }

    /// The data directory exists and is a directory this user can write, or its nearest existing
    /// ancestor is one (access(2): the real user, as the store runs).
    static func checkDataDirectory(_ path: String) throws(Failure) {
        let change = "choose another with --data (or HANDOFF_STORE_DATA)"
        let absolute =
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var candidate = (absolute as NSString).standardizingPath
        var isDirectory: ObjCBool = false
        while !FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) {
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent == candidate || parent.isEmpty { break }
            candidate = parent
        }
        let target = (absolute as NSString).standardizingPath
        guard isDirectory.boolValue else {
            throw Failure(
                description:
                    candidate == target
                    ? "the data directory \(target) is a file, not a directory: \(change)"
                    : "the data directory \(target) cannot be made: \(candidate) is a file, not a directory: \(change)"
            )
        }
        guard access(candidate, W_OK | X_OK) == 0 else {
            let reason = errno == EROFS ? "is on a read-only file system" : "is not writable by this user"
            throw Failure(
                description:
                    candidate == target
                    ? "the data directory \(target) \(reason): \(change)"
                    : "the data directory \(target) cannot be made: \(candidate) \(reason): \(change)")
        }
        let database = target + "/store.sqlite"
        if candidate == target, FileManager.default.fileExists(atPath: database), access(database, R_OK | W_OK) != 0 {
            throw Failure(description: "the database \(database) is not writable by this user: \(change)")
        }
    }

    /// The URL read as PostgreSQL's, without connecting.
    static func checkDatabaseURL(_ url: String) throws(Failure) {
        do {
            try PostgresDatabase.check(url: url)
        } catch {
            throw Failure(description: "\(error): fix --database (or HANDOFF_STORE_DATABASE)")
        }
    }
}
