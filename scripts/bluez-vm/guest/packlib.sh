# scripts/bluez-vm/guest/packlib.sh — what the scenarios that run the pack's own binaries share.
#
# Sourced after lib.sh. Uses the unmodified `handoffd` and `handoff` from the host's build
# ($HANDOFF_BIN, default $BVM_REPO/.build/debug; the host's / is mounted read-only, so the same
# path works). The journal, socket, capture and log live on guest tmpfs under /tmp/pack and are
# copied into $RESULTS at the end — also when a step fails (collect, the EXIT trap).
#
#   start_handoffd EXTRA_TOML   writes handoff.toml (journal, socket, capture, debug log, plus
#                               EXTRA_TOML), starts handoffd and waits for its socket
#   hf ARGS…                    runs the CLI, logging the command
#   sleep_until T               sleeps until T seconds after $SESSION_T0
#   pair_ble_sensors            scans, pairs the virtual HR strap and footpod, waits until
#                               handoffd has connected both (scan.json, pair-*.json, sensors.json)
#   start_service NAME CMD…     runs CMD in the background (log $PACK/NAME.log); collect stops it
#                               after handoffd and copies the log into $RESULTS
# What a pack finds around it in the field, for scenarios that need it:
#   mark_clock_synchronised     the kernel's NTP status as an NTP daemon leaves it (clock.json)
#   start_gpsd_replay LOG PORT  gpsd on 127.0.0.1:PORT, fed a receiver's NMEA log in a loop by
#                               gpsfake (starts it; other things can start meanwhile)
#   wait_gps_fix PORT           waits until that gpsd reports a fix (gps-fix.json)
#   start_store PORT            handoff-store on 127.0.0.1:PORT, SQLite on tmpfs ($STORE_URL)
#   link_to_store               an account and a group made through the store's API, the pack
#                               linked by the device flow as a person would (link.json, store-*.json)

BIN="${HANDOFF_BIN:-$BVM_REPO/.build/debug}"
HANDOFFD="$BIN/handoffd"
HANDOFF="$BIN/handoff"
PACK=/tmp/pack
export HANDOFF_SOCKET="$PACK/handoffd.sock"
HANDOFFD_PID=""
STATUS_PID=""

[ -x "$HANDOFFD" ] || fail "no handoffd at $HANDOFFD (build it on the host first: swift build)"
[ -x "$HANDOFF" ] || fail "no handoff at $HANDOFF (build it on the host first: swift build)"

SERVICES=""                         # "name:pid …", newest first (start_service)

# start_service NAME CMD… — CMD in the background, stdout and stderr in $PACK/NAME.log.
start_service() {
    local name="$1"
    shift
    mkdir -p "$PACK"
    "$@" > "$PACK/$name.log" 2>&1 &
    SERVICES="$name:$! $SERVICES"
    log "$name started (pid $!): $*"
}

# stop_services — SIGTERM each service, newest first; SIGKILL after 10 s. Copies their logs.
stop_services() {
    local entry name pid
    for entry in $SERVICES; do
        name="${entry%%:*}" pid="${entry#*:}"
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid"
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
            kill -0 "$pid" 2>/dev/null && { log "$name still running after 10 s: SIGKILL"; kill -KILL "$pid"; }
            wait "$pid" 2>/dev/null || true
            log "$name stopped"
        else
            log "$name had already exited"
        fi
        [ -f "$PACK/$name.log" ] && cp "$PACK/$name.log" "$RESULTS/$name.log"
    done
    SERVICES=""
}

# Whatever happens, stop handoffd cleanly and keep everything it wrote.
collect() {
    local rc=$?
    set +e
    [ -n "$STATUS_PID" ] && kill "$STATUS_PID" 2>/dev/null && wait "$STATUS_PID" 2>/dev/null
    if [ -n "$HANDOFFD_PID" ] && kill -0 "$HANDOFFD_PID" 2>/dev/null; then
        log "stopping handoffd (SIGTERM)"
        kill -TERM "$HANDOFFD_PID"
        for _ in $(seq 1 150); do kill -0 "$HANDOFFD_PID" 2>/dev/null || break; sleep 0.2; done
        if kill -0 "$HANDOFFD_PID" 2>/dev/null; then
            log "handoffd still running after 30 s: SIGKILL"
            kill -KILL "$HANDOFFD_PID"
            rc=1
        fi
        wait "$HANDOFFD_PID"
        local hrc=$?
        log "handoffd exited with status $hrc"
        echo "$hrc" > "$RESULTS/handoffd-exit"
    fi
    stop_services
    # After handoffd has exited the database is complete (the WAL is checkpointed on close;
    # copy -wal/-shm too in case it was not).
    for f in handoff.sqlite handoff.sqlite-wal handoff.sqlite-shm capture.jsonl handoffd.log; do
        [ -f "$PACK/$f" ] && cp "$PACK/$f" "$RESULTS/$f"
    done
    log "results copied (exit $rc)"
    exit "$rc"
}
trap collect EXIT

# handoff CMD ARGS… — run the CLI, logging the command; stdout is the caller's.
hf() {
    log "\$ handoff $*"
    "$HANDOFF" "$@"
}

# sleep_until T — sleep until $SECONDS-style offset T from SESSION_T0 (seconds, integer).
sleep_until() {
    local target=$(( SESSION_T0 + $1 )) now
    now=$(date +%s)
    [ "$target" -le "$now" ] || sleep $(( target - now ))
}

start_handoffd() {
    mkdir -p "$PACK"
    cat > "$PACK/handoff.toml" <<EOF
# Written by scripts/bluez-vm/guest/$SCENARIO.sh
[storage]
database = "$PACK/handoff.sqlite"

[control]
socket = "$PACK/handoffd.sock"

[capture]
file = "$PACK/capture.jsonl"

$1

[log]
level = "debug"
EOF
    cp "$PACK/handoff.toml" "$RESULTS/handoff.toml"
    "$HANDOFFD" --config "$PACK/handoff.toml" > "$PACK/handoffd.log" 2>&1 &
    HANDOFFD_PID=$!
    for _ in $(seq 1 150); do
        [ -S "$HANDOFF_SOCKET" ] && "$HANDOFF" status --json > "$RESULTS/status-initial.json" 2>/dev/null && break
        kill -0 "$HANDOFFD_PID" 2>/dev/null || { HANDOFFD_PID=""; tail -n 30 "$PACK/handoffd.log"; fail "handoffd exited at start"; }
        sleep 0.2
    done
    [ -S "$HANDOFF_SOCKET" ] || fail "handoffd did not open $HANDOFF_SOCKET within 30 s"
    log "handoffd up (pid $HANDOFFD_PID)"
}

# pair_ble_sensors — what a runner does first: `handoff scan` (scan.json) lists the virtual HR
# strap and footpod, `handoff pair` pairs both (pair-hr.json, pair-footpod.json); handoffd keeps
# paired sensors connected, so wait until the host has seen both connect; `handoff sensors`
# (sensors.json).
pair_ble_sensors() {
    step "scan"
    hf scan --seconds 5 --json > "$RESULTS/scan.json"
    grep -q '"Handoff HR"' "$RESULTS/scan.json" || fail "scan did not list Handoff HR"
    grep -q '"Handoff Footpod"' "$RESULTS/scan.json" || fail "scan did not list Handoff Footpod"

    step "pair"
    local mark
    mark=$(sent_lines)
    hf pair "Handoff HR" --as hr --json > "$RESULTS/pair-hr.json"
    hf pair "Handoff Footpod" --as footpod --json > "$RESULTS/pair-footpod.json"
    wait_event "$mark" hr connected 60 || fail "the HR strap never saw a connection after pairing"
    wait_event "$mark" footpod connected 60 || fail "the footpod never saw a connection after pairing"
    hf sensors --json > "$RESULTS/sensors.json"
}

# mark_clock_synchronised — the VM has no network and no NTP server, so this stands in for
# chronyd/systemd-timesyncd: once such a daemon has disciplined the clock it tells the kernel so
# through adjtimex(2), clearing STA_UNSYNC and setting a small maximum and estimated error; that
# is what `adjtimex` then reports to everyone else (TIME_OK instead of TIME_ERROR). The clock
# itself was set from the host's at boot (init.sh), which is what the NTP daemon would have done.
# The kernel grows maxerror by 500 µs a second and marks the clock unsynchronised again past
# 16 s: hours away. Before and after go into clock.json.
mark_clock_synchronised() {
    "$GUEST_PY" -I -S - "$RESULTS/clock.json" <<'PYEOF' || fail "adjtimex could not mark the clock synchronised"
import ctypes, json, sys

class Timex(ctypes.Structure):  # struct timex, <sys/timex.h> (x86-64 glibc layout)
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("constant", ctypes.c_long), ("precision", ctypes.c_long), ("tolerance", ctypes.c_long),
                ("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long), ("tick", ctypes.c_long),
                ("ppsfreq", ctypes.c_long), ("jitter", ctypes.c_long), ("shift", ctypes.c_int),
                ("stabil", ctypes.c_long), ("jitcnt", ctypes.c_long), ("calcnt", ctypes.c_long),
                ("errcnt", ctypes.c_long), ("stbcnt", ctypes.c_long), ("tai", ctypes.c_int),
                ("_reserved", ctypes.c_int * 11)]

ADJ_MAXERROR, ADJ_ESTERROR, ADJ_STATUS = 0x0004, 0x0008, 0x0010
STA_UNSYNC = 0x0040
STATES = {0: "TIME_OK", 1: "TIME_INS", 2: "TIME_DEL", 3: "TIME_OOP", 4: "TIME_WAIT", 5: "TIME_ERROR"}
libc = ctypes.CDLL(None, use_errno=True)

def adjtimex(modes=0, **fields):
    t = Timex(modes=modes, **fields)
    state = libc.adjtimex(ctypes.byref(t))
    if state < 0:
        raise OSError(ctypes.get_errno(), "adjtimex")
    return {"state": STATES.get(state, state), "status": hex(t.status), "unsync": bool(t.status & STA_UNSYNC),
            "maxerror_us": t.maxerror, "esterror_us": t.esterror}

before = adjtimex()
status = int(before["status"], 16) & ~STA_UNSYNC
adjtimex(ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR, status=status, maxerror=10_000, esterror=1_000)
after = adjtimex()
json.dump({"before": before, "after": after}, open(sys.argv[1], "w"))
print(f"adjtimex: {before['state']} ({before['status']}) -> {after['state']} ({after['status']}), "
      f"maxerror {after['maxerror_us']} us", file=sys.stderr)
sys.exit(0 if after["state"] == "TIME_OK" and not after["unsync"] else 1)
PYEOF
}

# start_gpsd_replay LOG PORT — gpsd listening on 127.0.0.1:PORT with one GPS device: a pty that
# gpsfake (Debian's gpsd-clients) feeds LOG, a real receiver's NMEA, over and over (about one
# epoch a second: 0.05 s between sentences). gpsfake starts that gpsd itself (-n: it reads the
# device at once, not only when a client watches). gpsd's and gpsfake's output: gpsfake.log.
start_gpsd_replay() {
    local nmea="$1" port="$2"
    [ -f "$nmea" ] || fail "no NMEA log $nmea (the shared fixtures; HANDOFF_FIXTURES names them)"
    command -v gpsfake > /dev/null || fail "gpsfake not found: apt-get install gpsd gpsd-clients"
    command -v gpspipe > /dev/null || fail "gpspipe not found: apt-get install gpsd-clients"
    start_service gpsfake gpsfake -q -n -c 0.05 -P "$port" "$nmea"
}

# wait_gps_fix PORT — waits (up to a minute) until gpsd on 127.0.0.1:PORT reports a fix: a TPV
# with mode 2 or 3, saved as gps-fix.json.
wait_gps_fix() {
    local port="$1" fix="" tries=0 start=$SECONDS deadline=$((SECONDS + 60))
    until [ -n "$fix" ] || [ "$SECONDS" -ge "$deadline" ]; do
        # gpspipe ends at grep's first match (SIGPIPE), or is ended after 4 s: gpsd not up yet,
        # or up before gpsfake handed it the device. Try again.
        tries=$((tries + 1))
        fix="$(timeout 4 gpspipe -w "127.0.0.1:$port" 2>/dev/null | grep -m 1 '"class":"TPV".*"mode":[23]' || true)"
        [ -n "$fix" ] || sleep 0.5
    done
    [ -n "$fix" ] || { cat "$PACK/gpsfake.log" >&2; fail "gpsd on port $port reported no fix within a minute"; }
    printf '%s\n' "$fix" > "$RESULTS/gps-fix.json"
    log "gpsd has a fix (after $((SECONDS - start)) s, $tries connection(s)): ${fix:0:110}…"
}

# start_store PORT — the group store, as a person runs it (handoff-store from the same build),
# on loopback, SQLite on tmpfs. bcrypt's cost 4 (a hidden option, for tests) keeps sign-up and
# sign-in fast under TCG. Waits for /v1/health. Sets STORE_URL.
STORE_URL=""
STORE_TOKEN=""
start_store() {
    local port="$1"
    [ -x "$BIN/handoff-store" ] || fail "no handoff-store at $BIN/handoff-store (build it on the host first: swift build)"
    command -v curl > /dev/null || fail "curl not found: apt-get install curl"
    STORE_URL="http://127.0.0.1:$port"
    start_service handoff-store "$BIN/handoff-store" --host 127.0.0.1 --port "$port" --data /tmp/store \
        --bcrypt-cost 4 --log-level info
    local deadline=$((SECONDS + 60))
    until curl -fsS "$STORE_URL/v1/health" > "$RESULTS/store-health.json" 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || break
        sleep 0.2
    done
    grep -q '"status":"ok"' "$RESULTS/store-health.json" 2>/dev/null \
        || { cat "$PACK/handoff-store.log" >&2; fail "handoff-store did not answer /v1/health within 60 s"; }
    log "handoff-store up at $STORE_URL"
}

# store_api METHOD PATH STATUS FILE [JSON] — one call to the store's JSON API (as the signed-in
# person when STORE_TOKEN is set); the answer goes to $RESULTS/FILE; any other status fails.
store_api() {
    local method="$1" path="$2" expected="$3" file="$4" body="${5:-}" code
    local args=(-sS -X "$method" -o "$RESULTS/$file" -w '%{http_code}' -H 'Accept: application/json')
    [ -n "$STORE_TOKEN" ] && args+=(-H "Authorization: Bearer $STORE_TOKEN")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-raw "$body")
    log "store: $method $path"
    code="$(curl "${args[@]}" "$STORE_URL$path")" || fail "store: $method $path: curl failed"
    [ "$code" = "$expected" ] || fail "store: $method $path answered $code, not $expected: $(cat "$RESULTS/$file")"
}

# link_to_store — what DemoStore/`handoff demo` do, through the same API: sign up, sign in, make
# a group; `handoff link --no-wait` asks handoffd for a code (link.json), the signed-in person
# approves it (POST /v1/device/approve, what the store's /device page does), and handoffd's next
# poll gets its device token; waits until `handoff sync status` says linked (sync-status.json).
link_to_store() {
    local password="correct-horse-battery-staple" code
    STORE_TOKEN=""
    store_api POST /v1/accounts 201 store-account.json \
        '{"username": "vm-runner", "email": "vm-runner@example.org", "password": "'"$password"'"}'
    store_api POST /v1/sessions 200 store-session.json '{"login": "vm-runner", "password": "'"$password"'"}'
    STORE_TOKEN="$(sed -n 's/.*"token" *: *"\([0-9a-f]\{64\}\)".*/\1/p' "$RESULTS/store-session.json")"
    [ -n "$STORE_TOKEN" ] || fail "sign-in gave no session token: $(cat "$RESULTS/store-session.json")"
    store_api POST /v1/groups 201 store-group.json '{"name": "VM relay", "goal_m": 42195}'

    hf link --store "$STORE_URL" --name "bluez-vm pack" --no-wait --json > "$RESULTS/link.json" \
        || fail "handoff link failed: $(cat "$RESULTS/link.json")"
    code="$(sed -n 's/.*"user_code" *: *"\([^"]*\)".*/\1/p' "$RESULTS/link.json")"
    [ -n "$code" ] || fail "handoff link printed no user code: $(cat "$RESULTS/link.json")"
    store_api POST /v1/device/approve 200 store-approve.json '{"user_code": "'"$code"'"}'
    local deadline=$((SECONDS + 60))
    until "$HANDOFF" sync status --json > "$RESULTS/sync-status.json" 2>&1 \
            && grep -q '"linked" *: *true' "$RESULTS/sync-status.json"; do
        [ "$SECONDS" -lt "$deadline" ] || break
        sleep 0.5
    done
    grep -q '"linked" *: *true' "$RESULTS/sync-status.json" \
        || fail "handoffd did not link within 60 s: $(cat "$RESULTS/sync-status.json")"
    log "linked to $STORE_URL as vm-runner (code $code)"
}
