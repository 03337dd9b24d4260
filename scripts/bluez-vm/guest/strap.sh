#!/bin/bash
# scripts/bluez-vm/guest/strap.sh — the pack's own binaries against the virtual classic strap.
#
# The host's "hxm" is a Zephyr HxM on BR/EDR: an SDP record for Serial Port, an RFCOMM server
# streaming a General Data frame a second, legacy PIN pairing (see peripherals.py). In the VM:
#
#   handoffd --config /tmp/pack/handoff.toml        (config saved as handoff.toml)
#   handoff scan --classic --seconds 3 --json       → scan-classic.json (an inquiry: our
#       controller subclass answers it; Tests/BluetoothTests covers the other result layouts)
#   handoff pair F0:F0:F0:00:00:03 --as zephyr-hxm --json → pair-hxm.json (channel from SDP,
#       PIN answered by handoffd)
#   handoff sensors --json                          → sensors.json
#   session: start; 60 s recorded; +60 s the strap drops out for 15 s; stop at +110 s
#   handoff status --json just before stopping      → status.json
#   handoff runs --json, show 1 --json              → runs.json, show-1.json
#   handoffd stopped with SIGTERM; then handoff.sqlite, capture.jsonl, handoffd.log copied.
# check_strap.py compares it all with sent.jsonl and the HCI trace on the host.
set -eu
. "$BVM_DIR/guest/lib.sh"
. "$BVM_DIR/guest/packlib.sh"

HXM_ADDR=F0:F0:F0:00:00:03

step "handoffd: config and start"
start_handoffd '[gps]
source = "none"

[pedometer]
sources = ["footpod"]'

step "scan --classic"
hf scan --classic --seconds 3 --json > "$RESULTS/scan-classic.json" || fail "scan --classic failed"
grep -q '"HXM026001"' "$RESULTS/scan-classic.json" || fail "scan --classic did not list HXM026001"

step "pair the strap by address"
mark=$(sent_lines)
hf pair "$HXM_ADDR" --as zephyr-hxm --json > "$RESULTS/pair-hxm.json" || fail "pairing the HxM failed"
# handoffd follows it from now on: wait until the strap streams to it again.
wait_event "$mark" hxm dlc_open 60 || fail "the strap never saw its RFCOMM channel opened"
sleep 3
hf sensors --json > "$RESULTS/sensors.json"

step "session: 60 s recorded, then a 15 s dropout, stop at +110 s"
hf start > "$RESULTS/start.txt"
SESSION_T0=$(date +%s)
sleep_until 60
control hxm dropout '"seconds": 15'
sleep_until 109
hf status --json > "$RESULTS/status.json"
sleep_until 110
hf stop > "$RESULTS/stop.txt"

step "runs"
hf runs --json > "$RESULTS/runs.json"
hf show 1 --json > "$RESULTS/show-1.json"
hf sensors --json > "$RESULTS/sensors-end.json"

step "done (collect stops handoffd and copies its files)"
