import Foundation
import HandoffModel

#if canImport(Glibc)
    import Glibc
#endif

/// The pack's link to a store: the address and the device token `handoff link` obtained.
///
/// Kept in its own file, mode 0600 and owned by the service's user, never in handoff.toml (which
/// is for people to read and share) nor in the journal (which `handoff export` copies from).
public struct StoreLink: Codable, Hashable, Sendable {
    public var store: String
    public var token: String
    public var username: String?
    public var deviceName: String
    public var linkedAt: String
    /// The group whose baton the pack carries, once known (learned online, kept for offline starts).
    public var groupID: Int64?

    public init(store: String, token: String, username: String?, deviceName: String, linkedAt: String) {
        self.store = store
        self.token = token
        self.username = username
        self.deviceName = deviceName
        self.linkedAt = linkedAt
    }

    enum CodingKeys: String, CodingKey {
        case store, token, username
        case deviceName = "device_name"
        case linkedAt = "linked_at"
        case groupID = "group_id"
    }

    /// Reads the link; `nil` when the pack is not linked.
    public static func load(path: String) throws(SyncFailure) -> StoreLink? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SyncFailure(
                .pack, code: "link_unreadable",
                message: "\(path) cannot be read: handoffd must run as the user that linked the pack")
        }
        do { return try JSONDecoder().decode(StoreLink.self, from: data) } catch {
            throw SyncFailure(
                .pack, code: "link_corrupt",
                message: "\(path) is damaged (\(error)): run `handoff unlink`, then `handoff link` again")
        }
    }

    /// Writes the link atomically and durably, readable by its owner only.
    public func save(path: String) throws(SyncFailure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do { try AtomicFile.replace(path, with: try encoder.encode(self), mode: 0o600) } catch {
            throw SyncFailure(.pack, code: "link_unwritable", message: "could not write \(path): \(error)")
        }
    }

    /// Removes the link file.
    public static func remove(path: String) {
        unlink(path)
    }
}

/// A small file replaced whole: written beside, flushed, renamed over, and the directory flushed,
/// so that a power cut leaves the old file or the new one, never half of one.
enum AtomicFile {
    static func replace(_ path: String, with data: Data, mode: mode_t) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = path + ".new"
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        }
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        do {
            defer { close(fd) }
            let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == data.count, fsync(fd) == 0 else { throw POSIXError(.EIO) }
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            unlink(temporary)
            throw error
        }
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }
}
