#!/usr/bin/env python3
"""An A/B of the feed's statement with and without the rule's suspension clause (issue 33), on
the world feed.py seeds (10,000 people, 1,000,000 runs, account 1 with 500 friends), read by
Python's sqlite3 on the seeded file, 30 runs each, alternating. Not part of CI.

    scripts/bench-store/feed-clause-ab.py BIN     (BIN: swift build -c release --show-bin-path)
"""
import json
import os
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import feed  # noqa: E402
BIN = sys.argv[1]
work = tempfile.mkdtemp()
data = os.path.join(work, "data")
store, port = feed.start(BIN, data, None)
status, _, body = feed.call(port, "POST", "/v1/accounts", json.dumps({"email": "ada@example.org", "username": "ada", "password": "correct horse battery"}), {"Content-Type": "application/json"})
store.terminate(); store.wait()
path = os.path.join(data, "store.sqlite")
feed.seed(None, path, feed.world(10_000, 1_000_000, 500), feed.SCAN_SQL)
db = sqlite3.connect(path)
with_s = feed.SCAN_SQL
without = feed.SCAN_SQL.replace("NOT EXISTS (SELECT 1 FROM suspension WHERE suspension.account_id = run.account_id)\n    AND ", "")
assert without != with_s
for name, sql in [("with", with_s), ("without", without), ("with", with_s), ("without", without)]:
    times = []
    for _ in range(30):
        t = time.perf_counter(); db.execute(sql).fetchall(); times.append((time.perf_counter() - t) * 1000)
    times.sort(); print(name, "p50 %.2f ms p99 %.2f ms" % (times[15], times[-1]))

import shutil  # noqa: E402
shutil.rmtree(work, ignore_errors=True)
