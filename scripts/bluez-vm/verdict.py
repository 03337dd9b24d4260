"""scripts/bluez-vm/verdict.py — what the host-side checkers share: a results folder, checks
that print ok/FAIL and remember failures, and readers for the files scenarios leave."""

import json
import os
import sys

RESULTS = sys.argv[1] if len(sys.argv) > 1 else "."
failures: list[str] = []


def check(condition: bool, what: str) -> bool:
    """Prints the check's outcome; a failure is remembered for `finish`."""
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)
    return condition


def load_json(name: str):
    path = os.path.join(RESULTS, name)
    if not check(os.path.exists(path), f"{name} exists"):
        return None
    with open(path) as f:
        return json.load(f)


def load_lines(name: str) -> list[dict]:
    """A JSON Lines file (sent.jsonl, capture.jsonl), one object per line."""
    path = os.path.join(RESULTS, name)
    if not check(os.path.exists(path), f"{name} exists"):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def read_text(name: str) -> str:
    path = os.path.join(RESULTS, name)
    return open(path).read() if os.path.exists(path) else ""


STALE_NS = 3_000_000_000  # recording.stale_after_s, the default


def expected_points(capture: list[dict], sensor: str, kinds: tuple, session_start: int, elapsed: list[int],
                    decode, rejected=None) -> list:
    """The value the recorder must put in each second: the latest decodable value of `sensor`'s
    payloads (`kinds`) received before the second's moment, fresh within STALE_NS, with no
    disconnection since. `decode` returns the value, or `rejected` for a payload the pack must
    refuse (which changes nothing)."""
    events = [e for e in capture if e.get("sensor") == sensor and (e.get("kind") in kinds or e.get("kind") == "link")]
    out = []
    for s in elapsed:
        boundary = session_start + s * 1_000_000_000
        value, at = None, None
        for e in events:
            if e["mono_ns"] >= boundary:
                break
            if e["kind"] == "link":
                if e["state"] == "disconnected":
                    value, at = None, None
                continue
            decoded = decode(bytes.fromhex(e["hex"]))
            if decoded is rejected:
                continue
            value, at = decoded, e["mono_ns"]
        out.append(value if at is not None and boundary - at <= STALE_NS else None)
    return out


def finish(checker: str) -> int:
    """The exit status: 0 when every check passed."""
    print()
    if failures:
        print(f"{checker}: {len(failures)} check(s) failed")
        return 1
    print(f"{checker}: all checks passed")
    return 0
