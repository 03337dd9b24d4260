# scripts/bluez-vm/guest/lib.sh — helpers the guest scenario scripts source.
#
# Scenarios run under guest/init.sh with RESULTS (the read-write results folder, the same path
# as on the host), SCENARIO, BVM_REPO and BVM_DIR set. These helpers log with timestamps (the
# guest clock is set from the host's at boot, so they compare with sent.jsonl's "t"), talk to
# the host's virtual peripherals through $RESULTS/control/, and read their event log
# $RESULTS/sent.jsonl.

HR_ADDR=F0:F0:F0:00:00:01
FOOTPOD_ADDR=F0:F0:F0:00:00:02
HXM_ADDR=F0:F0:F0:00:00:03          # the classic strap (BR/EDR, PIN 1234, SPP on RFCOMM 5)
GUEST_PY=/usr/bin/python3          # Debian's python3: has socket.AF_BLUETOOTH
CONTROL="$RESULTS/control"
SENT="$RESULTS/sent.jsonl"

log() { echo "[bvm-$SCENARIO $(date +%T.%3N)] $*" >&2; }  # stderr: never into a captured stdout
step() { log "== $*"; }
fail() { log "FAIL: $*"; exit 1; }

# control DEVICE ACTION JSON-FIELDS — e.g. control hr dropout '"seconds": 20'
# Writes a temporary name then renames it, so the host never reads half a file.
CONTROL_SEQ=0
control() {
    local device="$1" action="$2" extra="${3:-}"
    CONTROL_SEQ=$((CONTROL_SEQ + 1))
    local name
    name="$(date +%H%M%S)-$(printf '%03d' "$CONTROL_SEQ")-$device-$action.json"
    mkdir -p "$CONTROL"
    printf '{"device": "%s", "action": "%s"%s}\n' "$device" "$action" "${extra:+, $extra}" > "$CONTROL/.$name.tmp"
    mv "$CONTROL/.$name.tmp" "$CONTROL/$name"
    log "control → $name"
}

# sent_lines — how many lines sent.jsonl has now (a mark for wait_event).
sent_lines() { wc -l < "$SENT" 2>/dev/null || echo 0; }

# wait_event MARK DEVICE EVENT TIMEOUT — wait until a line after MARK has that device + event.
wait_event() {
    local mark="$1" device="$2" event="$3" timeout="$4" waited=0
    until tail -n +"$((mark + 1))" "$SENT" 2>/dev/null \
            | grep -q "\"device\":\"$device\",\"event\":\"$event\""; do
        sleep 0.2
        waited=$((waited + 1))
        [ "$waited" -lt $((timeout * 5)) ] || return 1
    done
}

# scan_le SECONDS FILE — LE discovery with btmgmt for SECONDS, output into FILE.
# (btmgmt find runs the kernel's whole 10.24 s discovery; we stop it early. btmgmt buffers
# its output when it is not a terminal, hence stdbuf.)
scan_le() {
    local seconds="$1" file="$2"
    timeout -s INT "$seconds" stdbuf -oL btmgmt --index 0 find -l > "$file" 2>&1 || true
    btmgmt --index 0 stop-find -l > /dev/null 2>&1 || true
}

# found FILE NAME — the scan output lists a device named NAME.
found() { grep -q "name $2\$" "$1"; }
