#!/usr/bin/env python3
"""The feed's benchmark (BENCHMARKS.md, issue 33): a release handoff-store over a database of
ACCOUNTS people and RUNS runs (a year of them, 100 a person), where account 1 has FRIENDS
friends; everyone is in one group of 20 (the runs count in their runner's group), and runs are
seen by 60 % groups, 25 % friends, 10 % public, 5 % private. One client asks account 1's
`GET /v1/feed` (25 runs) REQUESTS times, then `/feed`, then the 20th page; prints p50/p99, and the
query plan of the feed's statement (the same SQL as Friends/Feed.swift, written out here): with
more than 60 friends and group-mates the walk over every run newest first, else the one that
starts from the circle's own runs (`--friends 0` gives account 1 only its 19 group-mates).

    scripts/bench-store/feed.py BIN [POSTGRES_ADMIN_URL] [--accounts N] [--runs N] [--friends N] [--requests N]

BIN is the release bin directory (swift build -c release --show-bin-path). Not part of CI.
"""
import http.client
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request(method, path, body=body, headers=headers or {})
    reply = connection.getresponse()
    data = reply.read()
    connection.close()
    return reply.status, dict(reply.getheaders()), data


def start(bin_dir, data, database):
    port = free_port()
    env = dict(os.environ, HANDOFF_STORE_DATA=data)
    arguments = [os.path.join(bin_dir, "handoff-store"), "--port", str(port), "--log-level", "warning",
                 "--bcrypt-cost", "4"]
    if database:
        arguments += ["--database", database]
    store = subprocess.Popen(arguments, env=env)
    for _ in range(600):
        try:
            if call(port, "GET", "/v1/health")[0] == 200:
                return store, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit("feed.py: the store did not start")


def world(accounts, runs, friends):
    """The rows to add, as (table, columns, rows)."""
    rng = random.Random(33)
    now = int(time.time()) * 1_000_000_000
    year = 365 * 86400 * 1_000_000_000
    people = [(a, f"r{a}@example.org", f"runner{a}", f"runner{a}", "x", now - year, f"r{a}@example.org")
              for a in range(2, accounts + 1)]
    teams = [(t, f"group {t}", 1 + (t - 1) * 20, 1_000_000_000, f"code{t:06d}", 21600, now - year)
             for t in range(1, accounts // 20 + 1)]
    members = [(1 + (a - 1) // 20, a, now - year, a, f"runner{a}") for a in range(1, accounts + 1)]
    levels = ["groups"] * 12 + ["friends"] * 5 + ["public"] * 2 + ["private"]
    run_rows, run_team = [], []
    for r in range(1, runs + 1):
        owner = 1 + (r - 1) % accounts
        level = rng.choice(levels)
        started = now - rng.randint(0, year)
        run_rows.append((r, f"00000000-0000-4000-8000-{r:012x}", owner, started, 3_600_000, 3_500_000, 10_000_000,
                         "run", "fit", "0" * 64, 1, "{}", started, level, level))
        run_team.append((r, 1 + (owner - 1) // 20, 10_000_000, owner))
    friend_rows = []
    for f in range(2, friends + 2):
        friend_rows += [(1, f, "friends", now), (f, 1, "friends", now)]
    return [
        ("account", "id, email, username, username_key, password_hash, created_ns, email_key", people),
        ("team", "id, name, owner_id, goal_mm, invite_code, lease_s, created_ns", teams),
        ("member", "team_id, account_id, joined_ns, turn, name_key", members),
        ("run", "id, uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256, size, "
                "summary, uploaded_ns, visibility, map_visibility", run_rows),
        ("run_team", "run_id, team_id, distance_mm, account_id", run_team),
        ("friend", "account_id, friend_id, status, created_ns", friend_rows),
    ]


# The feed's statements for viewer 1, first page, as Friends/Feed.swift builds them.
SEEN = """(run.account_id = 1 OR (NOT EXISTS (SELECT 1 FROM suspension WHERE suspension.account_id = run.account_id)
    AND NOT EXISTS (SELECT 1 FROM block WHERE (block.blocker_id = run.account_id AND block.blocked_id = 1)
        OR (block.blocker_id = 1 AND block.blocked_id = run.account_id))
    AND (run.visibility = 'public'
        OR (run.visibility IN ('friends', 'groups') AND EXISTS (SELECT 1 FROM friend
            WHERE friend.account_id = 1 AND friend.friend_id = run.account_id AND friend.status = 'friends'))
        OR (run.visibility = 'groups' AND EXISTS (SELECT 1 FROM run_team
            JOIN member ON member.team_id = run_team.team_id
            WHERE run_team.run_id = run.id AND member.account_id = 1)))))"""
SCAN_SQL = f"""
SELECT run.id, account.username AS runner FROM run JOIN account ON account.id = run.account_id
WHERE (run.account_id = 1 OR EXISTS (SELECT 1 FROM friend WHERE friend.account_id = 1
        AND friend.friend_id = run.account_id AND friend.status = 'friends')
    OR EXISTS (SELECT 1 FROM run_team JOIN member ON member.team_id = run_team.team_id
        WHERE run_team.run_id = run.id AND member.account_id = 1))
  AND {SEEN}
  AND (run.started_ns < 9223372036854775807)
ORDER BY run.started_ns DESC, run.id DESC LIMIT 26
"""


KEYSET = "(run.started_ns < 9223372036854775807 OR (run.started_ns = 9223372036854775807 AND run.id < 0))"


def circle_sql(circle):
    return f"""
SELECT run.id, account.username AS runner,
    (SELECT count(*) FROM kudos WHERE kudos.run_id = run.id) AS kudos_n
FROM (SELECT id FROM (SELECT run.id FROM run WHERE run.account_id IN ({", ".join(map(str, circle))}) AND {SEEN} AND {KEYSET}
        ORDER BY run.started_ns DESC, run.id DESC LIMIT 26) AS own
    UNION SELECT id FROM (SELECT DISTINCT run.id, run.started_ns FROM member
        JOIN run_team ON run_team.team_id = member.team_id JOIN run ON run.id = run_team.run_id
        WHERE member.account_id = 1 AND {SEEN} AND {KEYSET}
        ORDER BY run.started_ns DESC, run.id DESC LIMIT 26) AS counted) AS picked
CROSS JOIN run JOIN account ON account.id = run.account_id
WHERE run.id = picked.id
ORDER BY run.started_ns DESC, run.id DESC LIMIT 26
"""


def feed_sql(friends):
    """The statement the store runs for account 1 (Feed.swift's `smallCircle` is 60)."""
    return SCAN_SQL if friends + 20 > 60 else circle_sql([1] + list(range(2, friends + 2)))


def seed(database, path, rows, sql):
    if database is None:
        db = sqlite3.connect(path)
        db.execute("PRAGMA foreign_keys = ON")
        for table, columns, items in rows:
            marks = ", ".join("?" * len(columns.split(",")))
            db.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", items)
        db.commit()
        plan = db.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
        db.close()
        return "\n".join(f"    {row[-1]}" for row in plan)
    for table, columns, items in rows:
        psql = subprocess.Popen(["psql", "-q", "-v", "ON_ERROR_STOP=1", database, "-c",
                                 f"COPY {table} ({columns}) FROM STDIN"], stdin=subprocess.PIPE)
        for row in items:
            psql.stdin.write(("\t".join(str(v) for v in row) + "\n").encode())
        psql.stdin.close()
        if psql.wait() != 0:
            raise SystemExit(f"feed.py: COPY {table} failed")
    for statement in ["SELECT setval(pg_get_serial_sequence('account','id'), (SELECT max(id) FROM account))",
                      "SELECT setval(pg_get_serial_sequence('run','id'), (SELECT max(id) FROM run))",
                      "SELECT setval(pg_get_serial_sequence('team','id'), (SELECT max(id) FROM team))",
                      "VACUUM (ANALYZE) account, team, member, run, run_team, friend"]:
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", database, "-c", statement], check=True,
                       capture_output=True)
    plan = subprocess.run(["psql", "-q", "-At", database, "-c", "EXPLAIN (ANALYZE, COSTS OFF) " + sql],
                          check=True, capture_output=True, text=True).stdout
    return "\n".join("    " + line for line in plan.splitlines())


def measure(port, path, headers, requests):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    times = []
    for _ in range(requests):
        began = time.perf_counter()
        connection.request("GET", path, headers=headers)
        reply = connection.getresponse()
        data = reply.read()
        times.append((time.perf_counter() - began) * 1000)
        assert reply.status == 200, (path, reply.status, data[:200])
    connection.close()
    times.sort()
    return times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]


def bench(bin_dir, database, options, work):
    data = os.path.join(work, "data-%d" % free_port())
    store, port = start(bin_dir, data, database)
    status, _, body = call(port, "POST", "/v1/accounts", json.dumps(
        {"email": "ada@example.org", "username": "ada", "password": "correct horse battery"}),
        {"Content-Type": "application/json"})
    assert status == 201, body
    store.terminate()
    store.wait()
    began = time.time()
    plan = seed(database, os.path.join(data, "store.sqlite"), world(options["accounts"], options["runs"],
                                                                        options["friends"]),
                feed_sql(options["friends"]))
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
        deep = "/v1/feed"
        for _ in range(19):
            page = json.loads(call(port, "GET", deep, headers=auth)[2])
            deep = "/v1/feed?cursor=" + page["next_cursor"]
        results = {
            "GET /v1/feed, first page": measure(port, "/v1/feed", auth, options["requests"]),
            "/feed, first page": measure(port, "/feed", cookie, options["requests"]),
            "GET /v1/feed, page 20": measure(port, deep, auth, options["requests"]),
        }
        return results, plan, seeded
    finally:
        store.terminate()
        store.wait()


def main():
    arguments = sys.argv[1:]
    options = {"accounts": 10_000, "runs": 1_000_000, "friends": 500, "requests": 200}
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
    name = "handoff_feed_%d" % os.getpid()
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
