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
                """)
    ]
}
