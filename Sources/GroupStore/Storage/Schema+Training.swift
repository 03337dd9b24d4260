extension Schema {
    /// Sports, entries by hand and records (issue 34).
    static let training = [
        // The five sports the API names (run, bike, walk, swim, other): runs stored under the
        // file's words get the API's. A hike is a walk. Each group says which sports count toward
        // its goal and by what factor, in thousandths ("run:1000 walk:1000", the default);
        // groups made before keep counting what they counted, and count run and walk from now on.
        // `run_effort` keeps each run's best efforts (Records/BestEfforts.swift), so a person's
        // records are one indexed walk; `efforts` on the run says they were found (NULL: not
        // yet, for runs stored before this version, found when records are first asked for).
        Migration(
            version: 21, name: "sports, each group's sports, and each run's best efforts",
            sql: """
                UPDATE run SET sport = CASE sport WHEN 'running' THEN 'run' WHEN 'cycling' THEN 'bike'
                    WHEN 'walking' THEN 'walk' WHEN 'hiking' THEN 'walk' ELSE 'other' END;
                ALTER TABLE team ADD COLUMN sports TEXT NOT NULL DEFAULT 'run:1000 walk:1000';
                ALTER TABLE run ADD COLUMN efforts INT;
                CREATE TABLE run_effort (
                    run_id INT NOT NULL REFERENCES run (id) ON DELETE CASCADE,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    sport TEXT NOT NULL,
                    distance_m INT NOT NULL,
                    elapsed_ms INT NOT NULL,
                    PRIMARY KEY (run_id, distance_m)
                );
                CREATE INDEX run_effort_best ON run_effort (account_id, sport, distance_m, elapsed_ms)
                """),
        // Each run's steps (the pack's pedometer, or a file's), found with its best efforts: so
        // every run is looked at again, lazily, as at version 21. Each person's goals per day or
        // week (`/me/goals`), the weekly distance goal of version 20 among them; `sport` is ''
        // for all sports, so that the unique key holds.
        Migration(
            version: 22, name: "each run's steps and each person's goals",
            sql: """
                ALTER TABLE run ADD COLUMN steps INT;
                UPDATE run SET efforts = NULL WHERE format <> 'manual';
                CREATE TABLE goal (
                    id ID,
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    period TEXT NOT NULL,
                    measure TEXT NOT NULL,
                    sport TEXT NOT NULL DEFAULT '',
                    target INT NOT NULL,
                    UNIQUE (account_id, period, measure, sport)
                );
                INSERT INTO goal (account_id, period, measure, sport, target)
                    SELECT id, 'week', 'distance', '', week_goal_mm FROM account WHERE week_goal_mm IS NOT NULL;
                ALTER TABLE account DROP COLUMN week_goal_mm
                """),
        // A person's resting heart rate (`/settings`), for the training load; NULL: assumed 60.
        Migration(
            version: 23, name: "each person's resting heart rate",
            sql: "ALTER TABLE account ADD COLUMN rest_heart_rate INT"),
        // Seconds at each heart rate per run (`HeartRateHistogram`), for `/me/training`'s time in
        // zones per week: found at upload, and for runs stored before from their files, lazily.
        Migration(
            version: 24, name: "each run's seconds at each heart rate",
            sql: """
                ALTER TABLE run ADD COLUMN heart_seconds TEXT;
                UPDATE run SET efforts = NULL WHERE format <> 'manual' AND heart_rate_avg IS NOT NULL
                """),
        // The run's owner beside each group it counted in, so that the level's "carried the
        // baton" and "group goal reached" read a person's few groups and legs through an index
        // instead of probing `run_team` once for each of their runs (Goals/Levels.swift).
        Migration(
            version: 25, name: "whose run each counted run is",
            sql: """
                ALTER TABLE run_team ADD COLUMN account_id INT NOT NULL DEFAULT 0;
                UPDATE run_team SET account_id = (SELECT run.account_id FROM run WHERE run.id = run_team.run_id);
                CREATE INDEX run_team_account ON run_team (account_id, team_id, leg_id)
                """),
        // The steps a pack counted outside runs, per day of the pack's calendar (`PUT
        // /v1/me/steps`; `day` is the day number, as `TrainingPicture.localDay` gives it), one
        // count per source, each replacing the last. `source` is `pack:ID` (the pack's own lasting
        // id, the same after it is linked again), `device:N` (a pack that sent none) or '' (the
        // person's session).
        Migration(
            version: 26, name: "each day's steps outside runs",
            sql: """
                CREATE TABLE step_day (
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    day INT NOT NULL,
                    source TEXT NOT NULL,
                    steps INT NOT NULL,
                    updated_ns INT NOT NULL,
                    PRIMARY KEY (account_id, day, source)
                )
                """),
        // Each person's summary (Records/PersonSummary.swift): per visibility level and sport, each
        // week's runs, distance and time, and the bests (the fastest effort over each standard
        // distance; `distance_m` 0: the longest run), each worked out again whenever a run it
        // holds changes. Filled here from the runs there are; a week starts Monday 00:00 UTC
        // (1970-01-01, day 0, was a Thursday), days counted down for instants before 1970.
        // `run_longest` finds a sport's longest run at a level, `run_unlooked` the few runs whose
        // efforts are still to be found, which every records read asks for.
        Migration(
            version: 27, name: "each person's weeks and bests, kept",
            sql: """
                CREATE TABLE person_week (
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    visibility TEXT NOT NULL,
                    sport TEXT NOT NULL,
                    week_ns INT NOT NULL,
                    runs INT NOT NULL,
                    distance_mm INT NOT NULL,
                    elapsed_ms INT NOT NULL,
                    PRIMARY KEY (account_id, visibility, sport, week_ns)
                );
                CREATE TABLE person_best (
                    account_id INT NOT NULL REFERENCES account (id) ON DELETE CASCADE,
                    visibility TEXT NOT NULL,
                    sport TEXT NOT NULL,
                    distance_m INT NOT NULL,
                    run_id INT NOT NULL REFERENCES run (id) ON DELETE CASCADE,
                    elapsed_ms INT NOT NULL,
                    PRIMARY KEY (account_id, visibility, sport, distance_m)
                );
                CREATE INDEX run_longest ON run (account_id, sport, visibility, distance_mm);
                CREATE INDEX run_unlooked ON run (account_id, id) WHERE efforts IS NULL;
                INSERT INTO person_week (account_id, visibility, sport, week_ns, runs, distance_mm, elapsed_ms)
                    SELECT account_id, visibility, sport, (d - ((d + 3) % 7 + 7) % 7) * 86400000000000, count(*),
                        CAST(sum(distance_mm) AS BIGINT), CAST(sum(elapsed_ms) AS BIGINT)
                    FROM (SELECT account_id, visibility, sport, distance_mm, elapsed_ms,
                        CASE WHEN started_ns >= 0 THEN started_ns / 86400000000000
                            ELSE (started_ns - 86400000000000 + 1) / 86400000000000 END AS d FROM run) AS r
                    GROUP BY account_id, visibility, sport, (d - ((d + 3) % 7 + 7) % 7);
                INSERT INTO person_best (account_id, visibility, sport, distance_m, run_id, elapsed_ms)
                    SELECT account_id, visibility, sport, distance_m, run_id, elapsed_ms FROM (
                        SELECT run_effort.account_id, run.visibility, run_effort.sport, run_effort.distance_m,
                            run_effort.run_id, run_effort.elapsed_ms, row_number() OVER (
                                PARTITION BY run_effort.account_id, run.visibility, run_effort.sport,
                                    run_effort.distance_m
                                ORDER BY run_effort.elapsed_ms, run_effort.run_id) AS n
                        FROM run_effort JOIN run ON run.id = run_effort.run_id) AS b
                    WHERE n = 1;
                INSERT INTO person_best (account_id, visibility, sport, distance_m, run_id, elapsed_ms)
                    SELECT account_id, visibility, sport, 0, id, elapsed_ms FROM (
                        SELECT account_id, visibility, sport, id, elapsed_ms, row_number() OVER (
                            PARTITION BY account_id, visibility, sport
                            ORDER BY distance_mm DESC, started_ns DESC, id DESC) AS n
                        FROM run WHERE distance_mm > 0) AS b
                    WHERE n = 1
                """),
    ]
}
