#!/usr/bin/env python3
"""The run pages' benchmark (BENCHMARKS.md, issue 32): a release handoff-store on SQLite, and on
PostgreSQL when a URL is given; one account with a one-hour and a six-hour run at 1 Hz (GPS,
altitude, heart rate, cadence: handoff-bench's marathon) and 10,000 short runs; then one client
on one kept-alive connection asks for each page REQUESTS times: the run page of each long run,
the first page of /runs and a page deep in it. Prints p50/p99 in milliseconds and the bytes, then
what an upload of the six-hour file takes and how many one-hour files are stored a second.

    scripts/bench-store/run-pages.py BIN [POSTGRES_ADMIN_URL] [--requests N] [--runs N]

BIN is the release bin directory (swift build -c release --show-bin-path) with handoff-store and
handoff-bench built. Not part of CI.
"""
import concurrent.futures
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid


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


def measure(port, path, cookie, requests):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    times, size = [], 0
    for _ in range(requests):
        started = time.perf_counter()
        connection.request("GET", path, headers={"Cookie": cookie})
        reply = connection.getresponse()
        data = reply.read()
        times.append((time.perf_counter() - started) * 1000)
        assert reply.status == 200, (path, reply.status, data[:200])
        size = len(data)
    connection.close()
    times.sort()
    return times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))], size


def bench(bin_dir, database, requests, runs, work):
    port = free_port()
    env = dict(os.environ, HANDOFF_STORE_DATA=os.path.join(work, "data-%d" % port))
    arguments = [os.path.join(bin_dir, "handoff-store"), "--port", str(port), "--log-level", "warning",
                 "--bcrypt-cost", "4"]
    if database:
        arguments += ["--database", database]
    store = subprocess.Popen(arguments, env=env)
    try:
        for _ in range(300):
            try:
                if call(port, "GET", "/v1/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        status, _, body = call(port, "POST", "/v1/accounts", json.dumps(
            {"email": "ada@example.org", "username": "ada", "password": "correct horse battery"}),
            {"Content-Type": "application/json"})
        assert status == 201, body
        token = json.loads(body)["token"]
        auth = {"Authorization": "Bearer " + token}
        files = {}
        for name, mode in (("hour", "hour"), ("six", "six")):
            path = os.path.join(work, name + ".fit")
            subprocess.run([os.path.join(bin_dir, "handoff-bench"), "activity", mode, "fit", path], check=True,
                           stdout=subprocess.DEVNULL)
            files[name] = open(path, "rb").read()
        pages = {}
        for name in ("hour", "six"):
            run = str(uuid.uuid4())
            status, _, body = call(port, "PUT", "/v1/runs/" + run, files[name], auth)
            assert status == 201, body
            pages[name] = "/runs/" + run
        # The six-hour file stored again under new uuids, one at a time: what an upload costs
        # (reading the file, computing the page's facts, one transaction).
        six = []
        for _ in range(5):
            began = time.perf_counter()
            status, _, body = call(port, "PUT", "/v1/runs/" + str(uuid.uuid4()), files["six"], auth)
            six.append((time.perf_counter() - began) * 1000)
            assert status == 201, body
        # 10,000 more runs: the one-hour file under new uuids, eight at a time.
        def put(_):
            status, _, body = call(port, "PUT", "/v1/runs/" + str(uuid.uuid4()), files["hour"], auth)
            assert status == 201, body
        began = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(put, range(runs)))
        rate = runs / (time.perf_counter() - began)
        status, headers, _ = call(port, "POST", "/login", "login=ada&password=correct+horse+battery",
                                  {"Content-Type": "application/x-www-form-urlencoded"})
        cookie = headers.get("Set-Cookie", "").split(";")[0]
        # A page deep in the list: follow "Older runs" links 200 times.
        deep = "/runs"
        for _ in range(200):
            _, _, body = call(port, "GET", deep, headers={"Cookie": cookie})
            text = body.decode()
            at = text.find('rel="next"')
            if at < 0:
                break
            start = text.rfind('href="', 0, at) + 6
            deep = text[start:text.find('"', start)].replace("&amp;", "&")
        results = {}
        for name, path in (("run page, 1 hour", pages["hour"]), ("run page, 6 hours", pages["six"]),
                           ("/runs, first page", "/runs"), ("/runs, page 200", deep)):
            results[name] = measure(port, path, cookie, requests)
        uploads = "uploads: the 6-hour file %.0f ms (median of 5), the 1-hour file %.0f a second (8 at a time)" % (
            sorted(six)[2], rate)
        return results, uploads
    finally:
        store.terminate()
        store.wait()


def main():
    arguments = [a for a in sys.argv[1:]]
    requests, runs = 200, 10_000
    if "--requests" in arguments:
        i = arguments.index("--requests")
        requests = int(arguments[i + 1])
        del arguments[i:i + 2]
    if "--runs" in arguments:
        i = arguments.index("--runs")
        runs = int(arguments[i + 1])
        del arguments[i:i + 2]
    if not arguments:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    bin_dir = arguments[0]
    engines = [("SQLite", None)]
    if len(arguments) > 1:
        admin = arguments[1]
        name = "handoff_pages_%d" % os.getpid()
        subprocess.run(["psql", admin, "-q", "-c", "CREATE DATABASE " + name], check=True)
        engines.append(("PostgreSQL", admin.rsplit("/", 1)[0] + "/" + name))
    with tempfile.TemporaryDirectory() as work:
        print("| engine | page | p50 | p99 | bytes |")
        print("|---|---|---|---|---|")
        notes = []
        for engine, database in engines:
            results, uploads = bench(bin_dir, database, requests, runs, work)
            for page, (p50, p99, size) in results.items():
                print("| %s | %s | %.1f ms | %.1f ms | %s |" % (engine, page, p50, p99, format(size, ",")))
            notes.append("%s %s" % (engine, uploads))
        print()
        for note in notes:
            print(note)
    if len(arguments) > 1:
        subprocess.run(["psql", arguments[1], "-q", "-c", "DROP DATABASE " + name], check=False)


if __name__ == "__main__":
    main()
