#!/usr/bin/env python3
"""The export's memory (BENCHMARKS.md, issue 32): a release handoff-store on SQLite, one account
with RUNS one-hour runs (handoff-bench's 1 Hz FIT file, 127 kB), then `GET /settings/export`
read slowly by one client while the store's resident memory is sampled every 20 ms. Prints, for
each count of runs, the zip's size, the store's resident memory before the export and at its
peak. An export that held the archive would grow with it; one that streams stays flat.

    scripts/bench-store/export-memory.py BIN [RUNS ...]     (default: 100 400)

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
import threading
import time
import uuid


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request(method, path, body=body, headers=headers or {})
    reply = connection.getresponse()
    data = reply.read()
    connection.close()
    return reply.status, dict(reply.getheaders()), data


def resident_kb(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def measure(bin_dir, runs, work):
    port = free_port()
    env = dict(os.environ, HANDOFF_STORE_DATA=os.path.join(work, "data-%d" % port))
    store = subprocess.Popen([os.path.join(bin_dir, "handoff-store"), "--port", str(port), "--log-level", "warning",
                              "--bcrypt-cost", "4"], env=env)
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
        auth = {"Authorization": "Bearer " + json.loads(body)["token"]}
        path = os.path.join(work, "hour.fit")
        if not os.path.exists(path):
            subprocess.run([os.path.join(bin_dir, "handoff-bench"), "activity", "hour", "fit", path], check=True,
                           stdout=subprocess.DEVNULL)
        hour = open(path, "rb").read()

        def put(_):
            status, _, body = call(port, "PUT", "/v1/runs/" + str(uuid.uuid4()), hour, auth)
            assert status == 201, body
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            list(pool.map(put, range(runs)))
        status, headers, _ = call(port, "POST", "/login", "login=ada&password=correct+horse+battery",
                                  {"Content-Type": "application/x-www-form-urlencoded"})
        cookie = headers.get("Set-Cookie", "").split(";")[0]
        before = resident_kb(store.pid)
        peak = [before]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], resident_kb(store.pid))
                time.sleep(0.02)
        sampler = threading.Thread(target=sample)
        sampler.start()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        connection.request("GET", "/settings/export", headers={"Cookie": cookie})
        reply = connection.getresponse()
        assert reply.status == 200, reply.status
        size = 0
        while True:
            chunk = reply.read(256 * 1024)
            if not chunk:
                break
            size += len(chunk)
            time.sleep(float(os.environ.get("EXPORT_READ_PAUSE", "0.005")))  # a reader slower than the store
        connection.close()
        done.set()
        sampler.join()
        return size, before, peak[0]
    finally:
        store.terminate()
        store.wait()


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    counts = [int(a) for a in sys.argv[2:]] or [100, 400]
    print("| runs | zip | store before | store at its peak |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for runs in counts:
            size, before, peak = measure(sys.argv[1], runs, work)
            print("| %d | %.0f MB | %.0f MB | %.0f MB |" % (runs, size / 1e6, before / 1024, peak / 1024))


if __name__ == "__main__":
    main()
