extension Schema {
    /// The group as it happens (issue 35).
    static let live = [
        // Each group's events (Live/GroupEvents.swift), numbered by the group's own sequence
        // (`baton.event_seq`): an event takes the next number by updating the group's baton row,
        // which the writer then holds until it commits, so a group's events commit in the order
        // of their numbers and a reader that has seen number n has seen every one before it.
        Migration(
            version: 28, name: "each group's events",
            sql: """
                ALTER TABLE baton ADD COLUMN event_seq INT NOT NULL DEFAULT 0;
                CREATE TABLE team_event (
                    team_id INT NOT NULL REFERENCES team (id) ON DELETE CASCADE,
                    seq INT NOT NULL,
                    kind TEXT NOT NULL,
                    event TEXT NOT NULL,
                    created_ns INT NOT NULL,
                    PRIMARY KEY (team_id, seq)
                )
                """),
        // A group's goal once its reaching has been announced (`goal_reached`): that goal is not
        // announced again. Groups already past their goal are marked as announced.
        Migration(
            version: 29, name: "a group's goal reached, announced once",
            sql: """
                ALTER TABLE team ADD COLUMN goal_reached_mm INT;
                UPDATE team SET goal_reached_mm = goal_mm WHERE goal_mm > 0 AND goal_mm <= total_mm
                    + coalesce((SELECT sum(tally.distance_mm) FROM tally WHERE tally.team_id = team.id), 0)
                """),
        // Each person's notifications (Notifications/Notifications.swift): what happened and to
        // what (who did it, in which group, on which run), worded when read, so a renamed group
        // reads as it is now and a deleted run or group takes its notifications with it.
        Migration(
            version: 30, name: "notifications",
            sql: """
                CREATE TABLE notification (
                    id ID,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    actor_id INT REFERENCES account (id) ON DELETE SET NULL,
                    team_id INT REFERENCES team (id) ON DELETE CASCADE,
                    run_id INT REFERENCES run (id) ON DELETE CASCADE,
                    created_ns INT NOT NULL,
                    read_ns INT
                );
                CREATE INDEX notification_account ON notification (account_id, id);
                CREATE INDEX notification_unread ON notification (account_id) WHERE read_ns IS NULL;
                CREATE INDEX notification_run ON notification (run_id) WHERE run_id IS NOT NULL;
                CREATE INDEX notification_actor ON notification (actor_id) WHERE actor_id IS NOT NULL
                """),
        // E-mail (Mail/): each notification waits for the mailer (`mail_state` 0), which writes
        // it into the outbox (1) or passes it by (2: its topic is off, or it is too old); the
        // outbox holds every message until the SMTP server took it, tried again with a growing
        // pause; `mail_choice` keeps the topics a person turned on or off, and `mail_token` is
        // the secret of their unsubscribe links.
        Migration(
            version: 31, name: "e-mail",
            sql: """
                ALTER TABLE notification ADD COLUMN mail_state INT NOT NULL DEFAULT 0;
                CREATE INDEX notification_mail ON notification (id) WHERE mail_state = 0;
                CREATE TABLE mail_outbox (
                    id ID,
                    account_id INT REFERENCES account (id) ON DELETE CASCADE,
                    topic TEXT NOT NULL,
                    to_address TEXT NOT NULL,
                    message TEXT NOT NULL,
                    created_ns INT NOT NULL,
                    next_ns INT NOT NULL,
                    attempts INT NOT NULL DEFAULT 0,
                    sent_ns INT,
                    failure TEXT
                );
                CREATE INDEX mail_due ON mail_outbox (next_ns) WHERE sent_ns IS NULL;
                CREATE INDEX mail_account ON mail_outbox (account_id, created_ns);
                CREATE TABLE mail_choice (
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    topic TEXT NOT NULL,
                    mail INT NOT NULL,
                    PRIMARY KEY (account_id, topic)
                );
                ALTER TABLE account ADD COLUMN mail_token TEXT;
                CREATE UNIQUE INDEX account_mail_token ON account (mail_token)
                """),
        // Each person's reminder to run (Reminders/): ISO weekdays ("1,3,5") and minutes after
        // local midnight; `next_ns` is when its next e-mail is due (NULL: none), and
        // `calendar_key` the secret of their calendar feed.
        Migration(
            version: 32, name: "reminders",
            sql: """
                CREATE TABLE reminder (
                    account_id INT PRIMARY KEY REFERENCES account (id) ON DELETE CASCADE,
                    days TEXT NOT NULL,
                    minute INT NOT NULL,
                    mail INT NOT NULL,
                    next_ns INT,
                    calendar_key TEXT NOT NULL UNIQUE
                );
                CREATE INDEX reminder_due ON reminder (next_ns) WHERE next_ns IS NOT NULL
                """),
        // Runs as they happen (Live/LiveRuns.swift): a pack's live updates, by the run's UUID
        // (the one its upload will carry), each point by its recorded second; positions in 10⁻⁷
        // degrees, distances in millimetres, speeds in mm/s. `contact_ns` is the store's time of
        // the latest update ("last seen"); `ended_ns` is set by the last update or the upload.
        // A share link keeps only its token's SHA-256.
        Migration(
            version: 33, name: "live runs and their share links",
            sql: """
                CREATE TABLE live_run (
                    id ID,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    uuid TEXT NOT NULL,
                    sport TEXT NOT NULL,
                    started_ns INT NOT NULL,
                    contact_ns INT NOT NULL,
                    ended_ns INT,
                    points INT NOT NULL DEFAULT 0,
                    UNIQUE (account_id, uuid)
                );
                CREATE INDEX live_run_current ON live_run (account_id, contact_ns) WHERE ended_ns IS NULL;
                CREATE TABLE live_point (
                    live_run_id INT NOT NULL REFERENCES live_run (id) ON DELETE CASCADE,
                    elapsed_s INT NOT NULL,
                    at_ns INT NOT NULL,
                    lat_e7 INT,
                    lon_e7 INT,
                    distance_mm INT NOT NULL,
                    speed_mmps INT,
                    heart_rate INT,
                    PRIMARY KEY (live_run_id, elapsed_s)
                );
                CREATE TABLE live_link (
                    id ID,
                    live_run_id INT NOT NULL REFERENCES live_run (id) ON DELETE CASCADE,
                    token_hash TEXT NOT NULL UNIQUE,
                    created_ns INT NOT NULL,
                    expires_ns INT,
                    revoked_ns INT
                );
                CREATE INDEX live_link_run ON live_link (live_run_id)
                """),
    ]
}
