#!/usr/bin/env python3
"""A group's events to many subscribers (BENCHMARKS.md, issue 35): SUBSCRIBERS streams of
`GET /v1/groups/{id}/events` (Server-Sent Events) open on loopback, then ROUNDS baton changes
(a take, then a release, in turn). For each change, the time from just before its request is sent
to each subscriber's reading of the event; prints p50, p99 and the slowest over every subscriber
and change, and how many changes each stream missed (must be none).

On SQLite there is one store. With POSTGRES_ADMIN_URL, two stores over one fresh database: the
streams are on instance A and the baton changes go through instance B, so every event reaches the
streams through PostgreSQL's LISTEN/NOTIFY.

    scripts/bench-store/events.py BIN [POSTGRES_ADMIN_URL] [--subscribers N] [--rounds N]

BIN is the release bin directory (swift build -c release --show-bin-path). Not part of CI.
"""
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from feed import call, start  # noqa: E402

JSON = {"Content-Type": "application/json"}


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def sign_up(port, name):
    status, _, body = call(port, "POST", "/v1/accounts", json.dumps(
        {"email": f"{name}@example.org", "username": name, "password": "correct horse battery"}), JSON)
    assert status == 201, body
    return json.loads(body)["token"]


async def subscribe(port, group, token, ready):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    writer.write((f"GET /v1/groups/{group}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n\r\n").encode())
    await writer.drain()
    head = await reader.readuntil(b"retry: 2000\n\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    ready.release()
    return reader, writer


async def listen(reader, seen):
    """Records when each event id arrives (chunked framing is skipped: only `id:` lines count)."""
    while True:
        line = await reader.readline()
        if not line:
            return
        if line.startswith(b"id: "):
            seen[int(line[4:].strip())] = time.perf_counter()


async def bench_round(options, port_a, port_b, group, tokens):
    count = options["subscribers"]
    ready = asyncio.Semaphore(0)
    began = time.perf_counter()
    streams = []
    # Opened 100 at a time, as a crowd of pages would arrive, not all in one instant.
    for first in range(0, count, 100):
        streams += await asyncio.gather(*[subscribe(port_a, group, tokens[0], ready)
                                          for _ in range(first, min(count, first + 100))])
    opened = time.perf_counter() - began
    seen = [dict() for _ in streams]
    tasks = [asyncio.create_task(listen(reader, s)) for (reader, _), s in zip(streams, seen)]
    latencies, missed, sent = [], 0, {}
    loop = asyncio.get_running_loop()
    for n in range(options["rounds"]):
        action = "take" if n % 2 == 0 else "release"
        event = n + 1
        sent[event] = time.perf_counter()
        status, _, body = await loop.run_in_executor(
            None, lambda: call(port_b, "POST", f"/v1/groups/{group}/baton/{action}", "{}",
                               dict(JSON, Authorization="Bearer " + tokens[1])))
        assert status in (200, 204), body
        deadline = time.perf_counter() + 10
        while time.perf_counter() < deadline and not all(event in s for s in seen):
            await asyncio.sleep(0.01)
        for s in seen:
            if event in s:
                latencies.append(s[event] - sent[event])
            else:
                missed += 1
        await asyncio.sleep(0.2)
    for task in tasks:
        task.cancel()
    for _, writer in streams:
        writer.close()
    return latencies, missed, opened


def bench(bin_dir, database, options, work):
    stores = []
    try:
        data = os.path.join(work, "a")
        store_a, port_a = start(bin_dir, data, database)
        stores.append(store_a)
        port_b = port_a
        if database:
            store_b, port_b = start(bin_dir, os.path.join(work, "b"), database)
            stores.append(store_b)
        ada, bob = sign_up(port_a, "ada"), sign_up(port_a, "bob")
        status, _, body = call(port_a, "POST", "/v1/groups", json.dumps({"name": "Night owls", "goal_m": 100000}),
                               dict(JSON, Authorization="Bearer " + ada))
        assert status == 201, body
        group = json.loads(body)
        status, _, body = call(port_a, "POST", "/v1/groups/join", json.dumps({"invite_code": group["invite_code"]}),
                               dict(JSON, Authorization="Bearer " + bob))
        assert status in (200, 201), body
        latencies, missed, opened = asyncio.run(bench_round(options, port_a, port_b, group["id"], [ada, bob]))
        resident = [int(line.split()[1]) for line in open(f"/proc/{store_a.pid}/status")
                    if line.startswith("VmRSS:")][0]
        return latencies, missed, opened, resident
    finally:
        for store in stores:
            store.terminate()
            store.wait()


def main():
    arguments = sys.argv[1:]
    options = {"subscribers": 1000, "rounds": 10}
    for name in list(options):
        flag = "--" + name
        if flag in arguments:
            i = arguments.index(flag)
            options[name] = int(arguments[i + 1])
            del arguments[i:i + 2]
    if not arguments:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 2 * options["subscribers"] + 256
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, wanted), hard))
    bin_dir = arguments[0]
    engines = [("SQLite, one instance", None)]
    name = "handoff_events_%d" % os.getpid()
    if len(arguments) > 1:
        subprocess.run(["psql", arguments[1], "-q", "-c", "CREATE DATABASE " + name], check=True)
        engines.append(("PostgreSQL, streams on A, baton through B",
                        arguments[1].rsplit("/", 1)[0] + "/" + name))
    failed = False
    try:
        for label, database in engines:
            with tempfile.TemporaryDirectory() as work:
                latencies, missed, opened, resident = bench(bin_dir, database, options, work)
            ms = [1000 * x for x in latencies]
            print(f"{label}: {options['subscribers']} streams opened in {opened:.1f} s; {options['rounds']} changes; "
                  f"{len(ms)} deliveries, {missed} missed; p50 {percentile(ms, 50):.1f} ms, "
                  f"p99 {percentile(ms, 99):.1f} ms, slowest {max(ms):.1f} ms; store resident {resident / 1024:.0f} MB")
            failed = failed or missed > 0 or percentile(ms, 99) >= 1000
    finally:
        if len(arguments) > 1:
            subprocess.run(["psql", arguments[1], "-q", "-c", "DROP DATABASE IF EXISTS " + name], check=False)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
