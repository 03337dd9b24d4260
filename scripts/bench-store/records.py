#!/usr/bin/env python3
"""Records and the training charts for a person with many runs (BENCHMARKS.md, issue 34): a release
handoff-store over a database where account 1 (ada) has RUNS runs over ten years (80 % runs, 10 %
rides, 8 % walks, 2 % swims; most with a heart rate) and OTHERS other runs belong to 1,000 other
people. Each of ada's runs has its best efforts kept, as an upload leaves them (`run_effort`,
`run.efforts = 1`), and she has three goals. One client asks REQUESTS times each of `GET
/v1/me/records`, `GET /v1/me/training?weeks=52&days=365`, `/me/training?weeks=52&days=365`, ada's
profile (records, level and goals), `GET /v1/me/goals`, `GET /v1/me/level` and the home page;
prints p50/p99 and the query plans of the record probe and the training read.

    scripts/bench-store/records.py BIN [POSTGRES_ADMIN_URL] [--runs N] [--others N] [--requests N]

BIN is the release bin directory (swift build -c release --show-bin-path). Not part of CI.
"""
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from feed import call, measure, start  # noqa: E402

DISTANCES = [1000, 1609, 5000, 10000, 21098, 42195]


def world(runs, others):
    rng = random.Random(34)
    now = int(time.time()) * 1_000_000_000
    day = 86400 * 1_000_000_000
    people = [(a, f"r{a}@example.org", f"runner{a}", f"runner{a}", "x", now - 3650 * day, f"r{a}@example.org")
              for a in range(2, 1002)]
    run_rows, efforts = [], []
    sports = ["run"] * 40 + ["bike"] * 5 + ["walk"] * 4 + ["swim"]
    for r in range(1, runs + others + 1):
        mine = r <= runs
        owner = 1 if mine else 2 + r % 1000
        sport = rng.choice(sports)
        started = now - rng.randint(0, 3650 * day)
        km = {"run": rng.uniform(3, 25), "bike": rng.uniform(15, 90), "walk": rng.uniform(2, 12),
              "swim": rng.uniform(0.5, 3)}[sport]
        pace = {"run": rng.uniform(250, 380), "bike": rng.uniform(100, 160), "walk": rng.uniform(540, 720),
                "swim": rng.uniform(1200, 1800)}[sport]
        elapsed = int(km * pace * 1000)
        heart = rng.randint(120, 170) if rng.random() < 0.85 else "\\N"
        run_rows.append((r, f"00000000-0000-4000-8000-{r:012x}", owner, started, elapsed, elapsed, int(km * 1e6),
                         sport, "fit", "0" * 64, 1, "{}", started, "groups", "groups", heart, 1))
        if sport != "swim":
            for d in DISTANCES:
                if d <= km * 1000:
                    efforts.append((r, owner, sport, d, int(d * pace * rng.uniform(0.92, 1.0))))
    # Each person's summary as the store keeps it (schema 27, Records/PersonSummary.swift): per
    # visibility level and sport, each week's runs, distance and time, the best effort over each
    # distance and the longest run (distance_m 0).
    weeks, best = {}, {}
    for row in run_rows:
        r, owner, started, elapsed, mm, sport, level = row[0], row[2], row[3], row[4], row[6], row[7], row[13]
        d = started // (86400 * 10**9)
        key = (owner, level, sport, (d - (d + 3) % 7) * 86400 * 10**9)
        n, dist, time_ = weeks.get(key, (0, 0, 0))
        weeks[key] = (n + 1, dist + mm, time_ + elapsed)
        if mm > 0:
            longest = best.get((owner, level, sport, 0))
            if longest is None or (mm, started, r) > longest[2]:
                best[(owner, level, sport, 0)] = (r, elapsed, (mm, started, r))
    levels = {row[0]: row[13] for row in run_rows}
    for r, owner, sport, d, ms in efforts:
        key = (owner, levels[r], sport, d)
        if key not in best or (ms, r) < best[key][2]:
            best[key] = (r, ms, (ms, r))
    summary_weeks = [key + value for key, value in weeks.items()]
    summary_best = [key + value[:2] for key, value in best.items()]
    return [
        ("account", "id, email, username, username_key, password_hash, created_ns, email_key", people),
        ("run", "id, uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256, size, "
                "summary, uploaded_ns, visibility, map_visibility, heart_rate_avg, efforts", run_rows),
        ("run_effort", "run_id, account_id, sport, distance_m, elapsed_ms", efforts),
        ("person_week", "account_id, visibility, sport, week_ns, runs, distance_mm, elapsed_ms", summary_weeks),
        ("person_best", "account_id, visibility, sport, distance_m, run_id, elapsed_ms", summary_best),
        # Ada runs in two groups that have not reached their goals, each of her runs and walks
        # counted in both and none while holding a baton: the level's group checks find nothing,
        # the most they have to read.
        ("team", "id, name, owner_id, goal_mm, invite_code, lease_s, created_ns",
         [(t, f"group {t}", 1, 10 ** 13, f"CODE{t}", 86400, now - 3650 * day) for t in (1, 2)]),
        ("baton", "team_id", [(1,), (2,)]),
        ("member", "team_id, account_id, joined_ns, turn", [(t, 1, now - 3650 * day, 0) for t in (1, 2)]),
        ("run_team", "run_id, team_id, distance_mm, account_id",
         [(row[0], t, row[6], 1) for row in run_rows if row[2] == 1 and row[7] in ("run", "walk") for t in (1, 2)]),
        ("goal", "account_id, period, measure, sport, target",
         [(1, "week", "distance", "", 40_000_000), (1, "day", "steps", "", 8_000), (1, "week", "runs", "run", 4)]),
    ]


PROBE = """SELECT person_best.sport, person_best.distance_m, person_best.run_id, person_best.elapsed_ms, run.uuid,
run.started_ns, run.distance_mm FROM person_best JOIN run ON run.id = person_best.run_id
WHERE person_best.account_id = 1 AND person_best.visibility IN ('private', 'friends', 'groups', 'public')"""
WEEKS = """SELECT sport, week_ns, distance_mm, elapsed_ms, total_mm FROM (
SELECT sport, week_ns, distance_mm, elapsed_ms, row_number() OVER (PARTITION BY sport ORDER BY distance_mm DESC, week_ns)
AS n, CAST(sum(distance_mm) OVER (PARTITION BY sport) AS BIGINT) AS total_mm FROM (
SELECT sport, week_ns, CAST(sum(distance_mm) AS BIGINT) AS distance_mm, CAST(sum(elapsed_ms) AS BIGINT) AS elapsed_ms
FROM person_week WHERE account_id = 1 AND visibility IN ('private', 'friends', 'groups', 'public')
GROUP BY sport, week_ns) AS weeks) AS ranked WHERE n = 1"""
TRAINING = """SELECT sport, started_ns, distance_mm, elapsed_ms, heart_rate_avg FROM run
WHERE account_id = 1 AND started_ns >= 0"""


def seed(database, path, rows):
    if database is None:
        db = sqlite3.connect(path)
        for table, columns, items in rows:
            marks = ", ".join("?" * len(columns.split(",")))
            db.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})",
                           [tuple(None if v == "\\N" else v for v in row) for row in items])
        db.commit()
        db.execute("ANALYZE")
        plans = ["    " + row[-1] for sql in (PROBE, WEEKS, TRAINING) for row in db.execute("EXPLAIN QUERY PLAN " + sql)]
        db.close()
        return "\n".join(plans)
    for table, columns, items in rows:
        psql = subprocess.Popen(["psql", "-q", "-v", "ON_ERROR_STOP=1", database, "-c",
                                 f"COPY {table} ({columns}) FROM STDIN"], stdin=subprocess.PIPE)
        for row in items:
            psql.stdin.write(("\t".join(str(v) for v in row) + "\n").encode())
        psql.stdin.close()
        if psql.wait() != 0:
            raise SystemExit(f"records.py: COPY {table} failed")
    for statement in ["SELECT setval(pg_get_serial_sequence('account','id'), (SELECT max(id) FROM account))",
                      "SELECT setval(pg_get_serial_sequence('run','id'), (SELECT max(id) FROM run))",
                      "SELECT setval(pg_get_serial_sequence('team','id'), (SELECT max(id) FROM team))",
                      "VACUUM (ANALYZE) account, run, run_effort, team, member, run_team, person_week, person_best"]:
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", database, "-c", statement], check=True,
                       capture_output=True)
    plans = []
    for sql in (PROBE, WEEKS, TRAINING):
        plans.append(subprocess.run(["psql", "-q", "-At", database, "-c", "EXPLAIN (ANALYZE, COSTS OFF) " + sql],
                                    check=True, capture_output=True, text=True).stdout)
    return "\n".join("    " + line for plan in plans for line in plan.splitlines())


def bench(bin_dir, database, options, work):
    data = os.path.join(work, "data-%d" % os.getpid() + ("-pg" if database else ""))
    store, port = start(bin_dir, data, database)
    status, _, body = call(port, "POST", "/v1/accounts", json.dumps(
        {"email": "ada@example.org", "username": "ada", "password": "correct horse battery"}),
        {"Content-Type": "application/json"})
    assert status == 201, body
    store.terminate()
    store.wait()
    began = time.time()
    plan = seed(database, os.path.join(data, "store.sqlite"), world(options["runs"], options["others"]))
    seeded = time.time() - began
    store, port = start(bin_dir, data, database)
    try:
        status, _, body = call(port, "POST", "/v1/sessions", json.dumps(
            {"login": "ada", "password": "correct horse battery"}), {"Content-Type": "application/json"})
        assert status in (200, 201), body
        auth = {"Authorization": "Bearer " + json.loads(body)["token"]}
        status, headers, _ = call(port, "POST", "/login", "login=ada&password=correct+horse+battery",
                                  {"Content-Type": "application/x-www-form-urlencoded"})
        cookie = {"Cookie": headers.get("Set-Cookie", "").split(";")[0]}
        records = json.loads(call(port, "GET", "/v1/me/records", headers=auth)[2])["records"]
        assert len(records) >= 20, records
        requests = options["requests"]
        results = {
            "GET /v1/me/records": measure(port, "/v1/me/records", auth, requests),
            "GET /v1/me/training (52 weeks, 365 days)": measure(
                port, "/v1/me/training?weeks=52&days=365", auth, requests),
            "/me/training (52 weeks, 365 days)": measure(port, "/me/training?weeks=52&days=365", cookie, requests),
            "/people/ada (with records)": measure(port, "/people/ada", cookie, requests),
            "GET /v1/me/goals (3 goals)": measure(port, "/v1/me/goals", auth, requests),
            "GET /v1/me/level": measure(port, "/v1/me/level", auth, requests),
            "/ (home, with the goals' rings)": measure(port, "/", cookie, requests),
        }
        return results, plan, seeded
    finally:
        store.terminate()
        store.wait()


def main():
    arguments = sys.argv[1:]
    options = {"runs": 5_000, "others": 200_000, "requests": 200}
    for name in list(options):
        flag = "--" + name
        if flag in arguments:
            i = arguments.index(flag)
            options[name] = int(arguments[i + 1])
            del arguments[i:i + 2]
    if not arguments:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    bin_dir = arguments[0]
    engines = [("SQLite", None)]
    name = "handoff_records_%d" % os.getpid()
    if len(arguments) > 1:
        subprocess.run(["psql", arguments[1], "-q", "-c", "CREATE DATABASE " + name], check=True)
        engines.append(("PostgreSQL", arguments[1].rsplit("/", 1)[0] + "/" + name))
    with tempfile.TemporaryDirectory() as work:
        print("| engine | request | p50 | p99 |")
        print("|---|---|---|---|")
        plans = []
        for engine, database in engines:
            results, plan, seeded = bench(bin_dir, database, options, work)
            for request, (p50, p99) in results.items():
                print("| %s | %s | %.1f ms | %.1f ms |" % (engine, request, p50, p99))
            plans.append("%s (seeded in %.0f s):\n%s" % (engine, seeded, plan))
        print()
        for plan in plans:
            print(plan)
    if len(arguments) > 1:
        subprocess.run(["psql", arguments[1], "-q", "-c", "DROP DATABASE " + name], check=False)


if __name__ == "__main__":
    main()
