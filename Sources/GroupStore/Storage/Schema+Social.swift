extension Schema {
    /// Friends, who sees what, kudos and comments, profiles, posts, photos and reports (issue 33).
    static let social = [
        // Friends and blocks, and who sees each run (Friends/Visibility.swift). An ask is one row,
        // asker to asked ('asked'); friends are two rows, one each way ('friends'), so "is the
        // viewer a friend of the run's owner" is one primary-key lookup. Runs stored before are
        // seen by friends and group-mates, the default.
        Migration(
            version: 12, name: "friends, blocks, and who sees each run and its map",
            sql: """
                CREATE TABLE friend (
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    friend_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    status TEXT NOT NULL CHECK (status IN ('asked', 'friends')),
                    created_ns INT NOT NULL,
                    PRIMARY KEY (account_id, friend_id)
                );
                CREATE INDEX friend_friend ON friend (friend_id, account_id);
                CREATE TABLE block (
                    blocker_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    blocked_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    created_ns INT NOT NULL,
                    PRIMARY KEY (blocker_id, blocked_id)
                );
                CREATE INDEX block_blocked ON block (blocked_id, blocker_id);
                ALTER TABLE run ADD COLUMN visibility TEXT NOT NULL DEFAULT 'groups';
                ALTER TABLE run ADD COLUMN map_visibility TEXT NOT NULL DEFAULT 'groups';
                ALTER TABLE account ADD COLUMN run_visibility TEXT NOT NULL DEFAULT 'groups';
                ALTER TABLE account ADD COLUMN map_visibility TEXT NOT NULL DEFAULT 'groups';
                ALTER TABLE account ADD COLUMN feed_scope TEXT NOT NULL DEFAULT 'everyone'
                """),
        // The feed reads runs newest first and keeps those the viewer may see: on this index it
        // stops at the page's end instead of sorting every run (scripts/bench-store/feed.py: 570 ms
        // to 1.6 ms for a person with 500 friends among a million runs, SQLite).
        Migration(
            version: 13, name: "runs by start time, for the feed",
            sql: "CREATE INDEX run_started ON run (started_ns, id)"),
        // Kudos (one per person per run) and comments, seen by whoever sees the run
        // (Social/Repository+Social.swift); `responses_seen_ns` is when the runner last marked
        // those on their runs as seen, for the count on the home page.
        Migration(
            version: 14, name: "kudos and comments",
            sql: """
                CREATE TABLE kudos (
                    run_id INT NOT NULL REFERENCES run (id) ON DELETE CASCADE,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    created_ns INT NOT NULL,
                    PRIMARY KEY (run_id, account_id)
                );
                CREATE INDEX kudos_account ON kudos (account_id);
                CREATE TABLE comment (
                    id ID,
                    run_id INT NOT NULL REFERENCES run (id) ON DELETE CASCADE,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    body TEXT NOT NULL,
                    created_ns INT NOT NULL,
                    edited_ns INT
                );
                CREATE INDEX comment_run ON comment (run_id, id);
                CREATE INDEX comment_account ON comment (account_id);
                ALTER TABLE account ADD COLUMN responses_seen_ns INT NOT NULL DEFAULT 0
                """),
        // A person's profile (People/Profile.swift): one row per field they filled in, each with
        // who sees it; a field left empty has no row.
        Migration(
            version: 15, name: "profiles",
            sql: """
                CREATE TABLE profile_field (
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    field TEXT NOT NULL,
                    value TEXT NOT NULL,
                    visibility TEXT NOT NULL DEFAULT 'private',
                    PRIMARY KEY (account_id, field)
                )
                """),
        // A run is a post (Social/RunPost.swift): a title (NULL: "Morning run" and the like, from
        // its start in the runner's zone) and a description, both its owner's; and a small route
        // for the feed, without the route's ends, made with the facts.
        Migration(
            version: 16, name: "runs' titles, descriptions and thumbnails",
            sql: """
                ALTER TABLE run ADD COLUMN title TEXT;
                ALTER TABLE run ADD COLUMN description TEXT;
                ALTER TABLE run ADD COLUMN thumbnail TEXT
                """),
        // Reports to the operator (Moderation/): each names what was reported and keeps its words
        // as they were (`excerpt`), so an edit or deletion after the report hides nothing from
        // the operator. One open report per reporter and thing. A comment the operator hid stays
        // for its author alone; a suspended account is one row in `suspension`, which the
        // visibility rule and every list of people's words consult.
        Migration(
            version: 17, name: "reports, hidden comments and suspended accounts",
            sql: """
                CREATE TABLE report (
                    id ID,
                    reporter_id INT REFERENCES account (id) ON DELETE SET NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('comment', 'profile')),
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    comment_id INT REFERENCES comment (id) ON DELETE SET NULL,
                    run_uuid TEXT,
                    excerpt TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    created_ns INT NOT NULL,
                    resolved_ns INT,
                    resolution TEXT
                );
                CREATE INDEX report_open ON report (resolved_ns, id);
                CREATE INDEX report_reporter ON report (reporter_id, kind, account_id, comment_id);
                CREATE INDEX report_comment ON report (comment_id);
                CREATE INDEX report_account ON report (account_id);
                ALTER TABLE comment ADD COLUMN hidden_ns INT;
                CREATE TABLE suspension (
                    account_id INT PRIMARY KEY REFERENCES account (id) ON DELETE CASCADE,
                    created_ns INT NOT NULL,
                    reason TEXT NOT NULL
                )
                """),
        // Photos (Photos/): a person's profile photo (no run; at most one) and up to ten on each
        // run, cleaned of their metadata before they are kept. Each is named in addresses by a
        // random key, and its bytes sit apart, so listing photos reads none. A profile photo has
        // its own level, like a profile's fields; a run's photos are seen by whoever sees the run.
        // JPEG and PNG are compressed already: PostgreSQL stores them without trying again.
        Migration(
            version: 18, name: "photos",
            steps: [
                .both(
                    """
                    CREATE TABLE photo (
                        id ID,
                        key TEXT NOT NULL UNIQUE,
                        account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                        run_id INT REFERENCES run (id) ON DELETE CASCADE,
                        position INT NOT NULL,
                        format TEXT NOT NULL CHECK (format IN ('jpeg', 'png')),
                        width INT NOT NULL,
                        height INT NOT NULL,
                        orientation INT NOT NULL,
                        size INT NOT NULL,
                        sha256 TEXT NOT NULL,
                        visibility TEXT NOT NULL DEFAULT 'private',
                        created_ns INT NOT NULL
                    );
                    CREATE INDEX photo_run ON photo (run_id, position);
                    CREATE INDEX photo_account ON photo (account_id);
                    CREATE UNIQUE INDEX photo_profile ON photo (account_id) WHERE run_id IS NULL;
                    CREATE TABLE photo_file (
                        photo_id INT PRIMARY KEY REFERENCES photo (id) ON DELETE CASCADE,
                        bytes BLOB NOT NULL
                    )
                    """),
                .postgres("ALTER TABLE photo_file ALTER COLUMN bytes SET STORAGE EXTERNAL"),
            ]),
        // Running together (Together/): a runner names a friend who ran along, on one of their
        // runs; the friend accepts. `friend_run_id` is the friend's own run of it, when the two
        // runs were linked (offered when they started within 10 minutes and kept within 100 m).
        // Nothing here touches a total: each runner's own distance counts once, on their run.
        Migration(
            version: 19, name: "running together",
            sql: """
                CREATE TABLE run_together (
                    run_id INT NOT NULL REFERENCES run (id) ON DELETE CASCADE,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    friend_run_id INT REFERENCES run (id) ON DELETE SET NULL,
                    status TEXT NOT NULL CHECK (status IN ('asked', 'accepted')),
                    created_ns INT NOT NULL,
                    PRIMARY KEY (run_id, account_id)
                );
                CREATE INDEX run_together_account ON run_together (account_id, status);
                CREATE INDEX run_together_friend_run ON run_together (friend_run_id)
                """),
        // A person's weekly distance goal (`/settings`), the ring on their home page and week card.
        Migration(
            version: 20, name: "each person's weekly distance goal",
            sql: "ALTER TABLE account ADD COLUMN week_goal_mm INT"),
    ]
}
