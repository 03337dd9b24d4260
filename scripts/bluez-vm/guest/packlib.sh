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

BIN="${HANDOFF_BIN:-$BVM_REPO/.build/debug}"
HANDOFFD="$BIN/handoffd"
HANDOFF="$BIN/handoff"
PACK=/tmp/pack
export HANDOFF_SOCKET="$PACK/handoffd.sock"
HANDOFFD_PID=""
STATUS_PID=""

[ -x "$HANDOFFD" ] || fail "no handoffd at $HANDOFFD (build it on the host first: swift build)"
[ -x "$HANDOFF" ] || fail "no handoff at $HANDOFF (build it on the host first: swift build)"

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
