#!/bin/bash
# scripts/bluez-vm/guest/pack.sh — the pack's own binaries against the virtual sensors.
#
# Runs in the VM (guest/init.sh has attached hci0 and turned LE and power on). Uses the unmodified
# `handoffd` and `handoff` from the host's build ($HANDOFF_BIN, default $BVM_REPO/.build/debug;
# the host's / is mounted read-only, so the same path works). The journal, socket, capture and
# log live on guest tmpfs under /tmp/pack and are copied into $RESULTS at the end — also when a
# step fails.
#
#   handoffd --config /tmp/pack/handoff.toml       (config saved as handoff.toml)
#   handoff scan --seconds 5 --json                → scan.json
#   handoff pair "Handoff HR" --as hr --json       → pair-hr.json
#   handoff pair "Handoff Footpod" --as footpod …  → pair-footpod.json
#   handoff sensors --json                         → sensors.json
#   session 1: start, 60 s, stop                   → start-1.txt, stop-1.txt
#   session 2: start; +15 s HR dropout 20 s; +45 s footpod dropout 20 s; +75 s HR malformed
#              (truncated, flags_overrun, empty); stop at +95 s
#   handoff status --json just before stopping session 2 → status.json
#   handoff runs --json, show 1 --json, show 2 --json → runs.json, show-1.json, show-2.json
#   handoffd stopped with SIGTERM; then handoff.sqlite, capture.jsonl, handoffd.log copied.
# Also: status.jsonl (a `handoff status --json` every 10 s while recording), pack.log (this
# script's steps). check_pack.py compares it all with sent.jsonl on the host.
set -eu
. "$BVM_DIR/guest/lib.sh"
. "$BVM_DIR/guest/packlib.sh"

step "handoffd: config and start"
start_handoffd '[gps]
source = "none"

[pedometer]
sources = ["footpod"]'

# scan → scan.json, pair both → pair-hr.json, pair-footpod.json, both connected → sensors.json
pair_ble_sensors

# A status snapshot every 10 s while sessions run, for the record (failures ignored).
( while :; do
      { "$HANDOFF" status --json 2>/dev/null || echo '{"error":"status failed"}'; } | tr -d '\n' >> "$RESULTS/status.jsonl"
      echo >> "$RESULTS/status.jsonl"
      sleep 10
  done ) &
STATUS_PID=$!

step "session 1: 60 s"
hf start > "$RESULTS/start-1.txt"
SESSION_T0=$(date +%s)
sleep_until 60
hf stop > "$RESULTS/stop-1.txt"

step "session 2: dropouts and malformed notifications, 95 s"
hf start > "$RESULTS/start-2.txt"
SESSION_T0=$(date +%s)
sleep_until 15
control hr dropout '"seconds": 20'
sleep_until 45
control footpod dropout '"seconds": 20'
sleep_until 75
control hr malformed '"kinds": ["truncated", "flags_overrun", "empty"]'
sleep_until 94
hf status --json > "$RESULTS/status.json"   # while recording, after the malformed ones
sleep_until 95
hf stop > "$RESULTS/stop-2.txt"

kill "$STATUS_PID" 2>/dev/null || true
wait "$STATUS_PID" 2>/dev/null || true
STATUS_PID=""

step "runs"
hf runs --json > "$RESULTS/runs.json"
hf show 1 --json > "$RESULTS/show-1.json"
hf show 2 --json > "$RESULTS/show-2.json"
hf sensors --json > "$RESULTS/sensors-end.json"

step "done (collect stops handoffd and copies its files)"
