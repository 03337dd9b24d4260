import Crypto
import Foundation
import HandoffModel
import Photos

/// A photo as kept: a person's profile photo (no run) or one of a run's, cleaned of its metadata
/// (`PhotoCleaner`) before it was stored.
struct StoredPhoto: Sendable, Equatable {
    var id: Int64
    /// The random name of its address, `/photos/{key}`.
    var key: String
    var accountID: Int64
    var runID: Int64?
    var format: PhotoFormat
    var width: Int
    var height: Int
    /// The EXIF orientation kept in a JPEG (1–8): 5 to 8 turn it a quarter, so a page shows it
    /// `height` wide.
    var orientation: Int
    var size: Int
    /// Who sees a profile photo (a run's photos are seen by whoever sees the run).
    var visibility: RunVisibility

    /// Its size as shown, turned as its orientation says.
    var shown: (width: Int, height: Int) { orientation >= 5 ? (height, width) : (width, height) }

    init(
        id: Int64, key: String, accountID: Int64, runID: Int64?, format: PhotoFormat, width: Int, height: Int,
        orientation: Int = 1, size: Int, visibility: RunVisibility = .private
    ) {
        self.id = id
        self.key = key
        self.accountID = accountID
        self.runID = runID
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.size = size
        self.visibility = visibility
    }

    init(_ row: SQLRow) throws {
        id = try row.int("id")
        key = try row.text("key")
        accountID = try row.int("account_id")
        runID = try row.intOrNil("run_id")
        format = PhotoFormat(rawValue: try row.text("format")) ?? .jpeg
        width = Int(try row.int("width"))
        height = Int(try row.int("height"))
        orientation = Int(try row.int("orientation"))
        size = Int(try row.int("size"))
        visibility = RunVisibility(rawValue: try row.text("visibility")) ?? .private
    }
}

/// The photo rules: how many a run keeps, and the cleaner's refusal as the store's.
enum PhotoRules {
    static let mostPerRun = 10
    static let limits = PhotoLimits()
    /// The largest body a photo route reads: one photo and a form's headers.
    static let bodyLimit = limits.bytes + 64 * 1024

    /// The photo cleaned, or a 413 (too large) or 422 (not a photo, damaged, a bomb) saying why.
    static func clean(_ bytes: some Collection<UInt8>) throws(StoreError) -> CleanPhoto {
        do {
            return try PhotoCleaner.clean(bytes, limits: limits)
        } catch {
            switch error {
            case .tooLarge: throw StoreError(.contentTooLarge, "photo_too_large", error.message)
            case .notAnImage: throw StoreError(.unsupportedMediaType, "not_a_photo", error.message)
            case .tooManyPixels: throw StoreError(.unprocessableContent, "photo_too_many_pixels", error.message)
            default: throw StoreError(.unprocessableContent, "invalid_photo", error.message)
            }
        }
    }

    static let tooLarge = StoreError(
        .contentTooLarge, "photo_too_large", "A photo is at most 5 MB: send a smaller one.")
    static let noPhoto = StoreError(.notFound, "photo_not_found", "there is no such photo that you may see")
}

extension StoreRepository {
    static let photoColumns =
        "photo.id, photo.key, photo.account_id, photo.run_id, photo.format, photo.width, photo.height, photo.orientation, photo.size, photo.visibility"

    /// Keeps `photo` under a new random key; its bytes beside it.
    private static func insertPhoto(
        _ db: any SQLSession, _ photo: CleanPhoto, account: Int64, run: Int64?, position: Int,
        visibility: RunVisibility, now: WallInstant
    ) async throws -> StoredPhoto {
        let key = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let digest = SHA256.hash(data: Data(photo.bytes)).map { String(format: "%02x", $0) }.joined()
        guard
            let row = try await db.one(
                """
                INSERT INTO photo (key, account_id, run_id, position, format, width, height, orientation, size, sha256,
                    visibility, created_ns)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING \(photoColumns)
                """, key, account, run, position, photo.format.rawValue, photo.width, photo.height, photo.orientation,
                photo.bytes.count, digest, visibility.rawValue, now.nanosecondsSinceEpoch)
        else { throw PhotoRules.noPhoto }
        let stored = try StoredPhoto(row)
        try await db.query("INSERT INTO photo_file (photo_id, bytes) VALUES (?, ?)", stored.id, photo.bytes)
        return stored
    }

    /// The person's profile photo, if they have one.
    func profilePhoto(account: Int64) async throws -> StoredPhoto? {
        try await read { db in
            try await db.one(
                "SELECT \(Self.photoColumns) FROM photo WHERE account_id = ? AND run_id IS NULL", account
            ).map(StoredPhoto.init)
        }
    }

    /// Replaces the person's profile photo (under a new key, so no copy anyone kept of the old
    /// address shows the new one), seen by `visibility`.
    func setProfilePhoto(
        account: Int64, _ photo: CleanPhoto, visibility: RunVisibility, now: WallInstant
    ) async throws -> StoredPhoto {
        try await write { db in
            try await db.query("DELETE FROM photo WHERE account_id = ? AND run_id IS NULL", account)
            return try await Self.insertPhoto(
                db, photo, account: account, run: nil, position: 0, visibility: visibility, now: now)
        }
    }

    /// Who sees the person's profile photo; false when they have none.
    func setProfilePhotoVisibility(account: Int64, _ visibility: RunVisibility) async throws -> Bool {
        try await write { db in
            !(try await db.query(
                "UPDATE photo SET visibility = ? WHERE account_id = ? AND run_id IS NULL RETURNING id",
                visibility.rawValue, account
            ).isEmpty)
        }
    }

    /// Deletes the person's profile photo; false when they had none.
    func deleteProfilePhoto(account: Int64) async throws -> Bool {
        try await write { db in
            !(try await db.query("DELETE FROM photo WHERE account_id = ? AND run_id IS NULL RETURNING id", account)
                .isEmpty)
        }
    }

    /// Adds a photo to the owner's run `uuid` (another's, or none: the 404 of no run), after its
    /// others; a run keeps at most `PhotoRules.mostPerRun`.
    func addRunPhoto(uuid: String, owner: Int64, _ photo: CleanPhoto, now: WallInstant) async throws -> StoredPhoto {
        try await write { db in
            guard let run = try await db.one("SELECT id FROM run WHERE uuid = ? AND account_id = ?", uuid, owner)
            else { throw StoreError.notFound("run", uuid) }
            let id = try run.int("id")
            let row = try await db.one(
                "SELECT count(*) AS n, coalesce(max(position), 0) AS last FROM photo WHERE run_id = ?", id)
            guard (try row?.int("n") ?? 0) < PhotoRules.mostPerRun else {
                throw StoreError(
                    .conflict, "too_many_photos",
                    "this run has \(PhotoRules.mostPerRun) photos, the most one keeps: delete one to add another")
            }
            return try await Self.insertPhoto(
                db, photo, account: owner, run: id, position: Int(try row?.int("last") ?? 0) + 1,
                visibility: .private, now: now)
        }
    }

    /// Deletes a photo from the owner's run.
    func deleteRunPhoto(uuid: String, key: String, owner: Int64) async throws {
        try await write { db in
            let deleted = try await db.query(
                """
                DELETE FROM photo WHERE key = ? AND account_id = ?
                    AND run_id = (SELECT id FROM run WHERE uuid = ? AND account_id = ?) RETURNING id
                """, key, owner, uuid, owner)
            guard !deleted.isEmpty else { throw PhotoRules.noPhoto }
        }
    }

    /// The photos of runs, in their order, by run id (for runs the caller already may see).
    func runPhotos(_ runs: [Int64]) async throws -> [Int64: [StoredPhoto]] {
        guard !runs.isEmpty else { return [:] }
        return try await read { db in
            let marks = runs.map { _ in "?" }.joined(separator: ", ")
            let rows = try await db.query(
                "SELECT \(Self.photoColumns) FROM photo WHERE run_id IN (\(marks)) ORDER BY run_id, position",
                runs.map(SQLValue.integer))
            return Dictionary(grouping: try rows.map(StoredPhoto.init), by: { $0.runID ?? 0 })
        }
    }

    /// The photo `key` and its bytes, if `viewer` (nil: nobody signed in) may see it: a run's
    /// photo by the run's rule (`RunVisibility.sql`), a profile photo by its own level and where
    /// the two stand; nil for no such photo and for one the viewer may not see alike.
    func seenPhoto(key: String, viewer: Int64?) async throws -> (StoredPhoto, [UInt8])? {
        let (seen, arguments) = RunVisibility.sql(viewer: viewer)
        return try await read { db in
            guard let row = try await db.one("SELECT \(Self.photoColumns) FROM photo WHERE key = ?", key) else {
                return nil
            }
            let photo = try StoredPhoto(row)
            if let run = photo.runID {
                guard
                    try await !db.query(
                        "SELECT run.id FROM run WHERE run.id = ? AND \(seen)", [.integer(run)] + arguments
                    )
                    .isEmpty
                else { return nil }
            } else {
                let relation: RunVisibility.Relation
                if let viewer {
                    relation = try await Self.relation(db, viewer: viewer, person: photo.accountID)
                } else {
                    let suspended = try await db.one(
                        "SELECT 1 AS x FROM suspension WHERE account_id = ?", photo.accountID)
                    relation = RunVisibility.Relation(signedIn: false, ownerSuspended: suspended != nil)
                }
                guard photo.visibility.allows(relation) else { return nil }
            }
            guard let file = try await db.one("SELECT bytes FROM photo_file WHERE photo_id = ?", photo.id) else {
                return nil
            }
            return (photo, try file.blob("bytes"))
        }
    }

    /// Every photo the person stored, with its run's uuid (nil: the profile photo), for the export.
    func photos(account: Int64) async throws -> [(photo: StoredPhoto, run: String?)] {
        try await read { db in
            try await db.query(
                """
                SELECT \(Self.photoColumns), run.uuid FROM photo LEFT JOIN run ON run.id = photo.run_id
                WHERE photo.account_id = ? ORDER BY photo.run_id IS NOT NULL, photo.run_id, photo.position
                """, account
            ).map { (try StoredPhoto($0), try $0.textOrNil("uuid")) }
        }
    }

    /// One photo's bytes, the person's own (for the export).
    func photoBytes(id: Int64) async throws -> [UInt8]? {
        try await read { db in try await db.one("SELECT bytes FROM photo_file WHERE photo_id = ?", id)?.blob("bytes") }
    }
}
