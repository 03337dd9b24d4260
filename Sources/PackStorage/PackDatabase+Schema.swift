import GRDB

extension PackDatabase {
    /// Migrations are appended, never edited: a pack in the field may hold any earlier version.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sensors, sessions, points, RR intervals, laps, splits, events, outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sensor (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL UNIQUE,
                        kind TEXT NOT NULL,
                        name TEXT,
                        address TEXT,
                        transport TEXT
                    );
                    CREATE TABLE session (
                        id INTEGER PRIMARY KEY,
                        uuid TEXT NOT NULL UNIQUE,
                        state TEXT NOT NULL CHECK (state IN ('recording', 'paused', 'finished')),
                        source TEXT NOT NULL,
                        start_wall_ns INTEGER NOT NULL,
                        start_mono_ns INTEGER NOT NULL,
                        recovered INTEGER NOT NULL DEFAULT 0,
                        elapsed_s REAL,
                        timer_s REAL,
                        moving_s INTEGER,
                        distance_m REAL,
                        avg_hr_bpm REAL,
                        max_hr_bpm INTEGER,
                        avg_cadence_spm REAL,
                        max_speed_mps REAL,
                        point_count INTEGER
                    );
                    CREATE TABLE point (
                        session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                        elapsed_s INTEGER NOT NULL,
                        lat REAL,
                        lon REAL,
                        alt_m REAL,
                        fix INTEGER NOT NULL,
                        hdop REAL,
                        speed_mps REAL,
                        distance_m REAL NOT NULL,
                        hr_bpm INTEGER,
                        cadence_spm INTEGER,
                        moving INTEGER NOT NULL,
                        hr_sensor INTEGER REFERENCES sensor(id),
                        footpod_sensor INTEGER REFERENCES sensor(id),
                        gps_sensor INTEGER REFERENCES sensor(id),
                        PRIMARY KEY (session_id, elapsed_s)
                    ) WITHOUT ROWID;
                    CREATE TABLE rr_interval (
                        session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                        sensor_id INTEGER NOT NULL REFERENCES sensor(id),
                        offset_ns INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        rr_1024 INTEGER NOT NULL CHECK (rr_1024 BETWEEN 0 AND 65535),
                        PRIMARY KEY (session_id, sensor_id, offset_ns, seq)
                    ) WITHOUT ROWID;
                    CREATE TABLE lap (
                        session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                        lap_index INTEGER NOT NULL,
                        trigger TEXT NOT NULL,
                        start_elapsed_s INTEGER NOT NULL,
                        end_elapsed_s INTEGER NOT NULL,
                        distance_m REAL NOT NULL,
                        timer_s REAL NOT NULL,
                        moving_s INTEGER NOT NULL,
                        avg_hr_bpm REAL,
                        max_hr_bpm INTEGER,
                        avg_cadence_spm REAL,
                        max_speed_mps REAL,
                        point_count INTEGER NOT NULL,
                        PRIMARY KEY (session_id, lap_index)
                    ) WITHOUT ROWID;
                    CREATE TABLE split (
                        session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                        km INTEGER NOT NULL,
                        distance_m REAL NOT NULL,
                        seconds REAL NOT NULL,
                        avg_hr_bpm REAL,
                        PRIMARY KEY (session_id, km)
                    ) WITHOUT ROWID;
                    CREATE TABLE event (
                        id INTEGER PRIMARY KEY,
                        session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
                        offset_ns INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        sensor_id INTEGER REFERENCES sensor(id),
                        detail TEXT
                    );
                    CREATE INDEX event_by_session ON event(session_id, offset_ns);
                    -- A finished run waits here until the group store acknowledges it. No cascade:
                    -- a run that has not been uploaded cannot be deleted by accident.
                    CREATE TABLE outbox (
                        session_id INTEGER PRIMARY KEY REFERENCES session(id),
                        enqueued_wall_ns INTEGER NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_attempt_wall_ns INTEGER,
                        last_error TEXT,
                        next_attempt_wall_ns INTEGER,
                        synced_wall_ns INTEGER
                    );
                    """)
        }
        migrator.registerMigration("v2: steps; start times from GPS time") { db in
            try db.execute(
                sql: """
                    ALTER TABLE point ADD COLUMN steps INTEGER;
                    ALTER TABLE session ADD COLUMN steps INTEGER;
                    ALTER TABLE session ADD COLUMN clock_source TEXT NOT NULL DEFAULT 'system'
                        CHECK (clock_source IN ('system', 'gps', 'unsynchronized'));
                    """)
        }
        migrator.registerMigration("v3: paired Bluetooth sensors") { db in
            try db.execute(
                sql: """
                    CREATE TABLE paired_sensor (
                        address TEXT PRIMARY KEY,
                        address_type TEXT NOT NULL CHECK (address_type IN ('public', 'random')),
                        kind TEXT NOT NULL,
                        name TEXT,
                        manufacturer TEXT,
                        model TEXT,
                        firmware TEXT,
                        serial_number TEXT,
                        location TEXT,
                        battery_percent INTEGER CHECK (battery_percent BETWEEN 0 AND 100),
                        paired_wall_ns INTEGER NOT NULL,
                        last_seen_wall_ns INTEGER
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4: classic (RFCOMM) straps") { db in
            // SQLite cannot widen a CHECK in place: copy the table into one that also takes
            // `bredr` addresses and the classic strap's protocol, channel and PIN.
            try db.execute(
                sql: """
                    CREATE TABLE paired_sensor_v4 (
                        address TEXT PRIMARY KEY,
                        address_type TEXT NOT NULL CHECK (address_type IN ('public', 'random', 'bredr')),
                        kind TEXT NOT NULL,
                        name TEXT,
                        manufacturer TEXT,
                        model TEXT,
                        firmware TEXT,
                        serial_number TEXT,
                        location TEXT,
                        battery_percent INTEGER CHECK (battery_percent BETWEEN 0 AND 100),
                        paired_wall_ns INTEGER NOT NULL,
                        last_seen_wall_ns INTEGER,
                        profile TEXT CHECK (profile IN ('polar-wearlink', 'zephyr-hxm')),
                        rfcomm_channel INTEGER CHECK (rfcomm_channel BETWEEN 1 AND 30),
                        pin TEXT CHECK (length(pin) BETWEEN 1 AND 16),
                        CHECK ((address_type = 'bredr') = (profile IS NOT NULL))
                    ) WITHOUT ROWID;
                    INSERT INTO paired_sensor_v4 (address, address_type, kind, name, manufacturer, model, firmware,
                        serial_number, location, battery_percent, paired_wall_ns, last_seen_wall_ns)
                    SELECT address, address_type, kind, name, manufacturer, model, firmware,
                        serial_number, location, battery_percent, paired_wall_ns, last_seen_wall_ns FROM paired_sensor;
                    DROP TABLE paired_sensor;
                    ALTER TABLE paired_sensor_v4 RENAME TO paired_sensor;
                    """)
        }
        migrator.registerMigration("v5: the outbox keeps the bytes it uploads and why it waits") { db in
            // `payload` is the file as first sent: every retry sends the same bytes, so the store
            // recognises a repeat (same UUID, same SHA-256) whatever changed on the pack since.
            // `held` marks a run the store refused (4xx): it waits for a person, not for a timer.
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN payload BLOB;
                    ALTER TABLE outbox ADD COLUMN payload_sha256 TEXT;
                    ALTER TABLE outbox ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE outbox ADD COLUMN error_code TEXT;
                    ALTER TABLE outbox ADD COLUMN store_status INTEGER;
                    ALTER TABLE outbox ADD COLUMN raw_pruned_wall_ns INTEGER;
                    CREATE INDEX outbox_waiting ON outbox(next_attempt_wall_ns) WHERE synced_wall_ns IS NULL;
                    """)
        }
        migrator.registerMigration("v6: the baton a run was started with") { db in
            // `held`: the pack took the group's baton online at the start; `offline`: it could not
            // reach the store, and the upload claims the baton for the run's time; `solo`: no baton.
            try db.execute(
                sql: """
                    ALTER TABLE session ADD COLUMN baton_group INTEGER;
                    ALTER TABLE session ADD COLUMN baton_mode TEXT CHECK (baton_mode IN ('held', 'offline', 'solo'));
                    """)
        }
        migrator.registerMigration("v7: where the store counted a run") { db in
            // The store's answer to the upload, as JSON: `{"counted_in": [names], "not_counted":
            // [{"group", "group_id", "reason_code", "reason"}]}`; NULL until it answered (and for
            // runs synced before the store said).
            try db.execute(sql: "ALTER TABLE outbox ADD COLUMN counted TEXT")
        }
        migrator.registerMigration("v8: rides") { db in
            // A session's sport (every earlier one was a run); a ride's crank cadence, per point
            // and averaged per lap and session, and the bike sensor its wheel came from.
            try db.execute(
                sql: """
                    ALTER TABLE session ADD COLUMN sport TEXT NOT NULL DEFAULT 'run'
                        CHECK (sport IN ('run', 'bike', 'walk'));
                    ALTER TABLE session ADD COLUMN avg_cadence_rpm REAL;
                    ALTER TABLE lap ADD COLUMN avg_cadence_rpm REAL;
                    ALTER TABLE point ADD COLUMN cadence_rpm INTEGER;
                    ALTER TABLE point ADD COLUMN bike_sensor INTEGER REFERENCES sensor(id);
                    """)
        }
        migrator.registerMigration("v9: each day's steps outside runs") { db in
            // The pedometer's steps while no run records, per day of the pack's time zone
            // (`day` is 2026-11-28); `uploaded` is the count the store last acknowledged.
            // `pack_identity`: a random id the journal keeps for good, sent with the steps, so
            // that the store replaces this pack's count of a day even after it is linked again.
            try db.execute(
                sql: """
                    CREATE TABLE step_day (
                        day TEXT PRIMARY KEY CHECK (length(day) = 10),
                        steps INTEGER NOT NULL CHECK (steps >= 0),
                        uploaded INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE pack_identity (id TEXT NOT NULL);
                    INSERT INTO pack_identity (id) VALUES (lower(hex(randomblob(16))));
                    """)
        }
        return migrator
    }
}
