"""Seeds a store database with a big group for the page benchmarks: group 1 (made through the
API, owned by account 1) gets MEMBERS more members and RUNS runs spread over 20 weeks, with
the totals the store itself would keep (every total the sum of its runs), and some relay legs.
The owner has 1,000 of the runs (the run list's benchmark lists theirs).

    seed.py sqlite PATH MEMBERS RUNS [--files tiny|real --fit FILE --real-budget-mb MB]
    seed.py postgres URL MEMBERS RUNS [...]

Files: `tiny` stores 1 byte per run. `real` stores FILE (the simulator's one-hour FIT, 126,982
bytes) for the owner's runs and then for other runs until MB megabytes of files are stored, and
1 byte for the rest: real files for all of a million runs would take 127 GB.
"""
import argparse
import hashlib
import random
import sqlite3
import subprocess
import time

parser = argparse.ArgumentParser()
parser.add_argument("engine", choices=["sqlite", "postgres"])
parser.add_argument("target")
parser.add_argument("members", type=int)
parser.add_argument("runs", type=int)
parser.add_argument("--files", choices=["tiny", "real"], default="tiny")
parser.add_argument("--fit", help="the real file (scripts/bench-store/run writes the one-hour FIT)")
parser.add_argument("--real-budget-mb", type=int, default=2048)
options = parser.parse_args()
engine, target, members, runs = options.engine, options.target, options.members, options.runs
if options.files == "real" and not options.fit:
    parser.error("--files real needs --fit FILE")

rng = random.Random(7242026)
now = int(time.time()) * 1_000_000_000
week = 7 * 86400 * 1_000_000_000
owner_runs = min(1000, runs)

tiny = b"\x00"
real = open(options.fit, "rb").read() if options.files == "real" else tiny
real_runs = 0
if options.files == "real":
    real_runs = max(owner_runs, min(runs, options.real_budget_mb * 1_000_000 // len(real)))


def file_of(run_id):
    """Runs 1…owner_runs are the owner's; the first real_runs runs get the real file."""
    return real if run_id <= real_runs else tiny


digests = {real: hashlib.sha256(real).hexdigest(), tiny: hashlib.sha256(tiny).hexdigest()}

accounts, member_rows, run_rows, run_team, legs = [], [], [], [], []
distance = {1: 0}
count = {1: 0}
for i in range(members):
    aid = 2 + i
    accounts.append((aid, f"runner{i}@example.org", f"runner{i}", f"runner{i}", "x", now - 30 * week,
                     f"runner{i}@example.org"))
    distance[aid] = 0
    count[aid] = 0
for r in range(runs):
    other = rng.randint(1, members + 1)
    aid = 1 if r < owner_runs else other
    started = now - rng.randint(0, 20 * week)
    mm = rng.randint(3000, 15000) * 1000
    file = file_of(r + 1)
    run_rows.append((r + 1, f"00000000-0000-4000-8000-{r + 1:012x}", aid, started, 3_600_000, 3_500_000, mm,
                     "run", "fit", digests[file], len(file), "{}", started + 7200 * 1_000_000_000))
    run_team.append((r + 1, 1, mm, aid))
    distance[aid] += mm
    count[aid] += 1
for l in range(200):
    taken = now - 20 * week + l * (week // 10)
    legs.append((l + 1, 1, rng.randint(1, members + 1), taken, taken + week // 10, "passed", rng.randint(1, members + 1)))
total = sum(distance.values())
for aid in range(2, members + 2):
    # name_key: the member's searchable name (Schema v7), the account's username_key.
    member_rows.append((1, aid, now - 30 * week, aid - 1, distance[aid], count[aid], f"runner{aid - 2}"))

if engine == "sqlite":
    db = sqlite3.connect(target)
    db.execute("PRAGMA foreign_keys = ON")
    db.executemany("INSERT INTO account (id, email, username, username_key, password_hash, created_ns, email_key) VALUES (?,?,?,?,?,?,?)", accounts)
    db.executemany("INSERT INTO member (team_id, account_id, joined_ns, turn, distance_mm, runs, name_key) VALUES (?,?,?,?,?,?,?)", member_rows)
    db.executemany("INSERT INTO run (id, uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256, size, summary, uploaded_ns) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", run_rows)
    db.executemany("INSERT INTO run_file (run_id, file) VALUES (?,?)", ((r, file_of(r)) for r in range(1, runs + 1)))
    db.executemany("INSERT INTO run_team (run_id, team_id, distance_mm, account_id) VALUES (?,?,?,?)", run_team)
    db.executemany("INSERT INTO leg (id, team_id, account_id, taken_ns, ended_ns, ended_how, passed_to) VALUES (?,?,?,?,?,?,?)", legs)
    db.execute("UPDATE member SET distance_mm = ?, runs = ? WHERE team_id = 1 AND account_id = 1", (distance[1], count[1]))
    db.execute("UPDATE team SET total_mm = ? WHERE id = 1", (total,))
    db.commit()
    # No ANALYZE on SQLite: the store never runs it, and with a near-empty tally SQLite's planner
    # then scans tally in the pages' correlated sums (PostgreSQL below does get VACUUM (ANALYZE),
    # which autovacuum would run on a club's server).
else:
    def copy(table, columns, lines):
        """COPY … FROM STDIN, the rows streamed to psql rather than built in memory (files add
        gigabytes of hex)."""
        psql = subprocess.Popen(["psql", "-q", "-v", "ON_ERROR_STOP=1", target, "-c",
                                 f"COPY {table} ({columns}) FROM STDIN"], stdin=subprocess.PIPE)
        for line in lines:
            psql.stdin.write(line.encode())
        psql.stdin.close()
        if psql.wait() != 0:
            raise SystemExit(f"seed.py: COPY {table} failed")

    def rows(items):
        return ("\t".join(str(v) for v in row) + "\n" for row in items)

    # bytea in COPY's text format: \x and hex digits, the backslash doubled.
    hex_of = {real: "\\\\x" + real.hex(), tiny: "\\\\x" + tiny.hex()}
    copy("account", "id, email, username, username_key, password_hash, created_ns, email_key", rows(accounts))
    copy("member", "team_id, account_id, joined_ns, turn, distance_mm, runs, name_key", rows(member_rows))
    copy("run", "id, uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256, size, summary, uploaded_ns",
         rows(run_rows))
    copy("run_file", "run_id, file", (f"{r}\t{hex_of[file_of(r)]}\n" for r in range(1, runs + 1)))
    copy("run_team", "run_id, team_id, distance_mm, account_id", rows(run_team))
    copy("leg", "id, team_id, account_id, taken_ns, ended_ns, ended_how, passed_to", rows(legs))
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", target, "-c",
                    f"UPDATE member SET distance_mm = {distance[1]}, runs = {count[1]} WHERE team_id = 1 AND account_id = 1; "
                    f"UPDATE team SET total_mm = {total} WHERE id = 1; "
                    "SELECT setval(pg_get_serial_sequence('account','id'), (SELECT max(id) FROM account)); "
                    "SELECT setval(pg_get_serial_sequence('run','id'), (SELECT max(id) FROM run)); "
                    "SELECT setval(pg_get_serial_sequence('leg','id'), (SELECT max(id) FROM leg))"],
                   check=True, capture_output=True)
    # What autovacuum does on a club's server long before anyone measures: statistics, and the
    # visibility maps that let index-only scans skip the table. Without it autovacuum ran during
    # the measurements (run_team was vacuumed in the middle of the progress page's 10 s).
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", target, "-c", "VACUUM (ANALYZE)"],
                   check=True, capture_output=True)
print(f"seeded {members} members, {runs} runs ({real_runs} with the {len(real):,}-byte file, "
      f"{real_runs * len(real) / 1e6:,.0f} MB), {len(legs)} legs; total {total / 1e6:.1f} km")
