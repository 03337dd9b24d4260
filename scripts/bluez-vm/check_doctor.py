#!/usr/bin/env python3
"""scripts/bluez-vm/check_doctor.py — host-side verdict on the `doctor` scenario.

Usage: check_doctor.py RESULTS_DIR   (run by `run doctor`; exit status 0 = pass)

In the guest, handoffd ran with everything a pack needs in order — the virtual HR strap and
footpod paired and connected over the real kernel Bluetooth stack, gpsd with a fix, the clock
synchronised, a group store on loopback with the pack linked to it — and `handoff doctor` was
asked about it (doctor.json, doctor.txt, doctor-exit.json). The issue's acceptance: "in the VM
with virtual sensors and a store it reports all OK":

  * `handoff doctor --json` and `handoff doctor` exit 0;
  * the report says "ok": true, and every check's status is "ok";
  * the checks service, bluetooth.adapter, gps, clock, storage.space, storage.database, store
    and network.home are there, and a sensor.* check for each sensor the scenario paired;
  * a check that is ok gives no action to take.

On failure it prints doctor's table, and what the scenario saw of the same things.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict import check, failures, finish, load_json, read_text  # noqa: E402

REQUIRED = ["service", "bluetooth.adapter", "gps", "clock", "storage.space", "storage.database", "store",
            "network.home"]


def table(checks: list[dict]) -> str:
    rows = [("CHECK", "STATUS", "SUMMARY / ACTION")]
    for c in checks:
        text = str(c.get("summary", ""))
        if c.get("action"):
            text += f"  → {c['action']}"
        rows.append((str(c.get("check")), str(c.get("status")), text))
    width = [max(len(r[i]) for r in rows) for i in range(2)]
    return "\n".join(f"     {r[0]:<{width[0]}}  {r[1]:<{width[1]}}  {r[2]}" for r in rows)


exits = load_json("doctor-exit.json") or {}
raw = read_text("doctor.json")
try:
    report = json.loads(raw)
except ValueError:
    report = None
check(isinstance(report, dict), "doctor.json is a JSON object"
      + ("" if isinstance(report, dict) else f" (it holds: {raw.strip()[:300]!r}; stderr: "
                                            f"{read_text('doctor-json.stderr').strip()[:300]!r})"))
report = report if isinstance(report, dict) else {}
checks = report.get("checks") if isinstance(report.get("checks"), list) else []

check(exits.get("json_exit") == 0, f"handoff doctor --json exited 0 (exit {exits.get('json_exit')}, "
      f"{exits.get('json_ms')} ms)")
check(exits.get("text_exit") == 0, f"handoff doctor exited 0 (exit {exits.get('text_exit')}, {exits.get('text_ms')} ms)")
check(report.get("ok") is True, f'the report says "ok": true ({report.get("ok")!r})')
check(len(checks) > 0 and all(isinstance(c, dict) for c in checks), f"the report lists checks ({len(checks)})")
checks = [c for c in checks if isinstance(c, dict)]

ids = [c.get("check") for c in checks]
check(len(ids) == len(set(ids)), "no check is listed twice")
missing = [name for name in REQUIRED if name not in ids]
check(not missing, "the checks " + ", ".join(REQUIRED) + " are there" + (f" (missing: {missing})" if missing else ""))

paired = [p.get("address") for p in (load_json("pair-hr.json") or {}, load_json("pair-footpod.json") or {})]
sensor_checks = [i for i in ids if isinstance(i, str) and i.startswith("sensor.")]
check(len(sensor_checks) >= 1, f"there is a sensor.* check ({sensor_checks})")
check(len(sensor_checks) == len([a for a in paired if a]),
      f"one sensor.* check per paired sensor ({len(sensor_checks)} for {len(paired)} paired: {paired})")

not_ok = [c for c in checks if c.get("status") != "ok"]
check(not not_ok, f"every check is ok ({len(checks) - len(not_ok)} of {len(checks)})"
      + "".join(f"\n       {c.get('check')}: {c.get('status')}: {c.get('summary')}"
                + (f" → {c.get('action')}" if c.get("action") else "") for c in not_ok))
with_action = [c.get("check") for c in checks if c.get("status") == "ok" and c.get("action")]
check(not with_action, f"no ok check gives an action ({with_action})" if with_action else "no ok check gives an action")

if checks:
    print("\n     handoff doctor --json:")
    print(table(checks))

if failures:
    text = read_text("doctor.txt").rstrip()
    print("\n     handoff doctor (doctor.txt):")
    print("\n".join("     " + line for line in text.splitlines()) if text else "     (empty)")
    for name in ("clock.json", "gps-fix.json", "sync-status.json", "status.json"):
        body = read_text(name).strip()
        print(f"\n     {name}: {body[:600] if body else '(missing)'}")

sys.exit(finish("check_doctor"))
