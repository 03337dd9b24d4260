"""Seeds a store database with a big group for the page benchmark: group 1 (made through the
API, owned by account 1) gets MEMBERS more members and RUNS runs spread over 20 weeks, with
the totals the store itself would keep (every total the sum of its runs), and some relay legs.

    seed.py sqlite PATH MEMBERS RUNS
    seed.py postgres URL MEMBERS RUNS
"""
import io
import random
import sqlite3
import subprocess
import sys
import time

engine, target, members, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(7242026)
now = int(time.time()) * 1_000_000_000
week = 7 * 86400 * 1_000_000_000

accounts, member_rows, run_rows, run_team, legs = [], [], [], [], []
distance = {1: 0}
count = {1: 0}
for i in range(members):
    aid = 2 + i
    accounts.append((aid, f"runner{i}@example.org", f"runner{i}", f"runner{i}", "x", now - 30 * week))
    distance[aid] = 0
    count[aid] = 0
for r in range(runs):
    aid = rng.randint(1, members + 1)
    started = now - rng.randint(0, 20 * week)
    mm = rng.randint(3000, 15000) * 1000
    run_rows.append((r + 1, f"00000000-0000-4000-8000-{r + 1:012x}", aid, started, 3_600_000, 3_500_000, mm,
                     "running", "fit", "0" * 64, 1, "{}", started + 7200 * 1_000_000_000))
    run_team.append((r + 1, 1, mm))
    distance[aid] += mm
    count[aid] += 1
for l in range(200):
    taken = now - 20 * week + l * (week // 10)
    legs.append((l + 1, 1, rng.randint(1, members + 1), taken, taken + week // 10, "passed", rng.randint(1, members + 1)))
total = sum(distance.values())
for aid in range(2, members + 2):
    member_rows.append((1, aid, now - 30 * week, aid - 1, distance[aid], count[aid]))

if engine == "sqlite":
    db = sqlite3.connect(target)
    db.execute("PRAGMA foreign_keys = ON")
    db.executemany("INSERT INTO account (id, email, username, username_key, password_hash, created_ns) VALUES (?,?,?,?,?,?)", accounts)
    db.executemany("INSERT INTO member (team_id, account_id, joined_ns, turn, distance_mm, runs) VALUES (?,?,?,?,?,?)", member_rows)
    db.executemany("INSERT INTO run (id, uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256, size, summary, uploaded_ns, file) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,x'00')", run_rows)
    db.executemany("INSERT INTO run_team (run_id, team_id, distance_mm) VALUES (?,?,?)", run_team)
    db.executemany("INSERT INTO leg (id, team_id, account_id, taken_ns, ended_ns, ended_how, passed_to) VALUES (?,?,?,?,?,?,?)", legs)
    db.execute("UPDATE member SET distance_mm = ?, runs = ? WHERE team_id = 1 AND account_id = 1", (distance[1], count[1]))
    db.execute("UPDATE team SET total_mm = ? WHERE id = 1", (total,))
    db.commit()
else:
    def copy(table, columns, rows):
        data = io.StringIO()
        for row in rows:
            data.write("\t".join(str(v) for v in row) + "\n")
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", target, "-c",
                        f"COPY {table} ({columns}) FROM STDIN"], input=data.getvalue(), text=True, check=True)
    copy("account", "id, email, username, username_key, password_hash, created_ns", accounts)
    copy("member", "team_id, account_id, joined_ns, turn, distance_mm, runs", member_rows)
    copy("run", "id, uuid, account_id, started_ns, elapsed_ms, timer_ms, distance_mm, sport, format, sha256, size, summary, uploaded_ns, file",
         [row + ("\\\\x00",) for row in run_rows])
    copy("run_team", "run_id, team_id, distance_mm", run_team)
    copy("leg", "id, team_id, account_id, taken_ns, ended_ns, ended_how, passed_to", legs)
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", target, "-c",
                    f"UPDATE member SET distance_mm = {distance[1]}, runs = {count[1]} WHERE team_id = 1 AND account_id = 1; "
                    f"UPDATE team SET total_mm = {total} WHERE id = 1; "
                    "SELECT setval(pg_get_serial_sequence('account','id'), (SELECT max(id) FROM account)); "
                    "SELECT setval(pg_get_serial_sequence('run','id'), (SELECT max(id) FROM run)); "
                    "SELECT setval(pg_get_serial_sequence('leg','id'), (SELECT max(id) FROM leg)); ANALYZE"],
                   check=True, capture_output=True)
print(f"seeded {members} members, {runs} runs, {len(legs)} legs; total {total / 1e6:.1f} km")
