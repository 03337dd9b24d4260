#!/bin/bash
# scripts/bluez-vm/guest/doctor.sh — `handoff doctor` on a pack where everything is in order.
#
# Runs in the VM (guest/init.sh has attached hci0 and turned LE and power on). The pack gets
# what it has in the field, each the real program on the guest's loopback:
#
#   the clock     marked synchronised through adjtimex(2), as an NTP daemon does (the VM has
#                 no network and no NTP server)                              → clock.json
#   the card      /tmp/pack (journal, socket, logs): a tmpfs with 2 GB of room
#   gpsd          on 127.0.0.1:12947, its device a pty that gpsfake feeds a u-blox NEO-M9N's
#                 NMEA (the shared fixtures) in a loop; a fix before going on → gps-fix.json
#   the store     handoff-store on 127.0.0.1:18080, SQLite on tmpfs          → store-health.json
#   handoffd      [gps] source = "gpsd" at that address, steps from the footpod, [sync]
#                 network = "always" (no Wi-Fi in the VM: home everywhere)  → handoff.toml
#   sensors       the virtual HR strap and footpod scanned, paired, connected → sensors.json …
#   the link      an account, a sign-in and a group made through the store's API, then
#                 `handoff link --no-wait`, the code approved as that person (POST
#                 /v1/device/approve), until `handoff sync status` says linked → link.json,
#                 store-*.json, sync-status.json
#
# Then, with everything up:
#   handoff doctor --json   → doctor.json        handoff doctor → doctor.txt
#   exit statuses and durations → doctor-exit.json; handoff status --json → status.json;
#   memory in use then → memory.txt
# The doctor's exit status does not fail this script: check_doctor.py judges doctor.json
# (exit 0, "ok": true, every check "ok", the expected checks present) and prints the table.
# handoffd is stopped with SIGTERM, then the store and gpsfake; their logs are copied.
#
# Memory: handoffd, handoff-store, gpsfake and gpsd side by side fit the default 256 MiB (at the
# doctor step: ~70 MB in use, ~140 MB available, the rest page cache of the 9p-mounted binaries).
set -eu
. "$BVM_DIR/guest/lib.sh"
. "$BVM_DIR/guest/packlib.sh"

FIXTURES="${HANDOFF_FIXTURES:-$BVM_REPO/../shared/fixtures}"
NMEA="$FIXTURES/gpsd/ublox-neo-m9n-nmea.log"
GPSD_PORT=12947
STORE_PORT=18080
T0=$SECONDS

step "clock: synchronised, as an NTP daemon would leave it"
mark_clock_synchronised

# The journal's file system: a pack's SD card has gigabytes free, the VM has no disk. A tmpfs
# with a card's room (2 GB; only what is written takes memory, a few MB here) instead of /tmp's
# (half the guest's memory, under the 500 MB below which doctor warns).
mkdir -p "$PACK"
mount -t tmpfs -o size=2g,mode=0755 pack "$PACK" || fail "mounting a tmpfs on $PACK failed"

step "gpsd: gpsfake replays $(basename "$NMEA") in a loop; the group store"
start_gpsd_replay "$NMEA" "$GPSD_PORT"
start_store "$STORE_PORT"   # while gpsfake and gpsd start
wait_gps_fix "$GPSD_PORT"

step "handoffd: config and start"
start_handoffd "[gps]
source = \"gpsd\"
gpsd = \"127.0.0.1:$GPSD_PORT\"

[pedometer]
sources = [\"footpod\"]

[sync]
# No Wi-Fi in the VM: the store on loopback is home wherever the pack is.
network = \"always\""

# scan → scan.json, pair both → pair-hr.json, pair-footpod.json, both connected → sensors.json
pair_ble_sensors

step "link the pack to the store"
link_to_store

step "handoff doctor ($((SECONDS - T0)) s after the scenario began)"
hf status --json > "$RESULTS/status.json" || log "handoff status failed"
now_ms() { date +%s%3N; }
log "\$ handoff doctor --json"
started=$(now_ms)
json_rc=0
"$HANDOFF" doctor --json > "$RESULTS/doctor.json" 2> "$RESULTS/doctor-json.stderr" || json_rc=$?
json_ms=$(( $(now_ms) - started ))
log "\$ handoff doctor"
started=$(now_ms)
text_rc=0
"$HANDOFF" doctor > "$RESULTS/doctor.txt" 2>&1 || text_rc=$?
text_ms=$(( $(now_ms) - started ))
printf '{"json_exit": %d, "json_ms": %d, "text_exit": %d, "text_ms": %d}\n' \
    "$json_rc" "$json_ms" "$text_rc" "$text_ms" > "$RESULTS/doctor-exit.json"
log "handoff doctor --json: exit $json_rc in $json_ms ms; handoff doctor: exit $text_rc in $text_ms ms"
cat "$RESULTS/doctor.txt" >&2
{ free -k; echo; ps -eo pid,rss,vsz,comm --sort=-rss | head -n 15; } > "$RESULTS/memory.txt" 2>&1 || true

step "done in $((SECONDS - T0)) s (collect stops handoffd, the store and gpsd, and copies their files)"
