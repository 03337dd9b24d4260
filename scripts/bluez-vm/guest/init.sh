#!/bin/bash
# scripts/bluez-vm/guest/init.sh — stage-2 init (PID 1) of the BlueZ test VM.
#
# The initramfs switch_roots into the host's read-only root and execs this script. It loads
# Bluetooth, starts `btmon -w` onto tmpfs, attaches the host's virtual controller with
# `btattach` on /dev/ttyS1 (QEMU joins that serial port to `run`'s Bumble socket), turns LE
# and power on with btmgmt, runs guest/$SCENARIO.sh with $RESULTS set, then copies the HCI
# trace and dmesg into $RESULTS, writes $RESULTS/guest-exit (the scenario's exit status)
# and powers the VM off. Kernel command line keys: bvm_scenario= bvm_results= bvm_kroot=
# bvm_repo= bvm_timeout= (seconds the scenario may take; `run` enforces its own timeout too)
# bvm_fixtures= (optional: the shared fixtures, exported as HANDOFF_FIXTURES).
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp/home LANG=C.UTF-8
mkdir -p "$HOME" /tmp/bvm /run/bvm

log() { echo "[bvm-guest $(date +%T.%3N)] $*"; }

SCENARIO="" RESULTS="" KROOT="" REPO="" TIMEOUT=600 FIXTURES=""
for word in $(cat /proc/cmdline); do
    case "$word" in
        bvm_scenario=*) SCENARIO="${word#*=}" ;;
        bvm_results=*) RESULTS="${word#*=}" ;;
        bvm_kroot=*) KROOT="${word#*=}" ;;
        bvm_repo=*) REPO="${word#*=}" ;;
        bvm_timeout=*) TIMEOUT="${word#*=}" ;;
        bvm_fixtures=*) FIXTURES="${word#*=}" ;;
    esac
done

# Always leave through here: save what we have, say how it went, power off.
finish() {
    local rc="$1" why="$2"
    log "finishing: $why (exit $rc)"
    if [ -n "${BTMON_PID:-}" ]; then
        kill -INT "$BTMON_PID" 2>/dev/null; sleep 0.3; kill "$BTMON_PID" 2>/dev/null
        wait "$BTMON_PID" 2>/dev/null
    fi
    if [ -d "$RESULTS" ]; then
        # btmon writing straight onto 9p truncated its file: it wrote to tmpfs, copy it now.
        [ -f /tmp/bvm/hci.btsnoop ] && cp /tmp/bvm/hci.btsnoop "$RESULTS/hci.btsnoop"
        cp /tmp/bvm/btattach.log "$RESULTS/btattach.log" 2>/dev/null
        # btmon's live decoding of the same trace: `btmon -r` (5.66) crashes on these files.
        cp /tmp/bvm/btmon.out "$RESULTS/hci.txt" 2>/dev/null
        dmesg > "$RESULTS/dmesg.txt" 2>/dev/null
        printf '%s\n' "$rc" > "$RESULTS/guest-exit.tmp" && mv "$RESULTS/guest-exit.tmp" "$RESULTS/guest-exit"
        printf '%s\n' "$why" > "$RESULTS/guest-why"
        sync
    fi
    log "powering off"
    echo o > /proc/sysrq-trigger
    # Wait without running a program: the 9p root may vanish under us while the kernel powers
    # off, `sleep` then fails at once and PID 1 exiting panics the kernel ("Attempted to
    # kill init") in the middle of the power-off.
    SECONDS=0
    while [ "$SECONDS" -lt 10 ]; do :; done
    exit "$rc"
}

log "stage 2 up (kernel $(uname -r)), scenario '$SCENARIO'"
[ -n "$SCENARIO" ] && [ -n "$RESULTS" ] && [ -n "$KROOT" ] && [ -n "$REPO" ] \
    || finish 90 "kernel command line lacks bvm_scenario/bvm_results/bvm_kroot/bvm_repo"
[ -d "$RESULTS" ] || finish 90 "results folder $RESULTS not mounted"
SCRIPT="$REPO/scripts/bluez-vm/guest/$SCENARIO.sh"
[ -f "$SCRIPT" ] || finish 90 "no scenario script $SCRIPT"

# Take the host's clock, so guest timestamps compare with the host's (sent.jsonl): touching a
# file on the results share stamps it with the host's time. One Python process measures the
# round trip around the touch and sets the clock from its midpoint (a few ms of error); separate
# touch/stat/date processes would each cost ~0.2 s under TCG.
/usr/bin/python3 -I -S - "$RESULTS/.clock" <<'PYEOF' || log "warning: could not take the host's clock"
import os, sys, time
path = sys.argv[1]
open(path, "w").close()
best = None
for _ in range(3):
    t0 = time.time()
    os.utime(path, None)  # utimensat(UTIME_NOW): the host stamps its own time
    host = os.stat(path).st_mtime_ns / 1e9
    t1 = time.time()
    if best is None or t1 - t0 < best[0]:
        best = (t1 - t0, host - (t0 + t1) / 2)
os.unlink(path)
rtt, offset = best
time.clock_settime(time.CLOCK_REALTIME, time.time() + offset)
print(f"[bvm-guest {time.strftime('%H:%M:%S')}] clock set from the host: moved {offset:+.3f} s (round trip {rtt * 1000:.1f} ms)")
PYEOF
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
hostname bluez-vm
ip link set lo up 2>/dev/null

# The kernel's module loader runs /proc/sys/kernel/modprobe; the unpacked modules are not under
# /lib/modules, so point it at a wrapper that runs modprobe -d on the unpacked tree. The wrapper
# lives on tmpfs because the kernel calls it with an empty environment.
cat > /run/bvm/modprobe <<EOF
#!/bin/sh
exec /usr/sbin/modprobe -d '$KROOT' "\$@"
EOF
chmod 0755 /run/bvm/modprobe
echo /run/bvm/modprobe > /proc/sys/kernel/modprobe
# Bluetooth first, then btmon (it needs AF_BLUETOOTH) while hci_uart loads; what SMP needs
# (ecdh, cmac, ecb/aes, ccm, drbg) loads in the background (the kernel would also load them on
# demand through the wrapper). Without cryptomgr.notests=1 (set by `run`) the crypto
# self-tests cost ~6 s under TCG.
/run/bvm/modprobe bluetooth || finish 91 "modprobe bluetooth failed"
# Record every HCI packet, from before the controller appears. btmon writes to tmpfs; its
# live decoding goes to btmon.out (saved as hci.txt).
stdbuf -oL btmon -w /tmp/bvm/hci.btsnoop > /tmp/bvm/btmon.out 2>&1 &
BTMON_PID=$!
/run/bvm/modprobe hci_uart || finish 91 "modprobe hci_uart failed"
( for m in ecdh_generic cmac ecb ccm drbg; do
      /run/bvm/modprobe "$m" || log "warning: modprobe $m failed"
  done ) &
# btmon replays an existing index as "New Index" without its setup commands, so wait until
# its monitor socket is open (the HCI sockets are listed in /proc/net/hci; nothing else
# holds one yet).
i=0
until [ "$(wc -l < /proc/net/hci 2>/dev/null || echo 0)" -ge 2 ]; do
    i=$((i + 1)); [ "$i" -lt 200 ] || finish 91 "btmon did not open its monitor socket"
    kill -0 "$BTMON_PID" 2>/dev/null || finish 91 "btmon exited: $(cat /tmp/bvm/btmon.out)"
    sleep 0.05
done
sleep 0.1

log "btattach on /dev/ttyS1"
btattach -B /dev/ttyS1 -P h4 -S 115200 > /tmp/bvm/btattach.log 2>&1 &
BTATTACH_PID=$!
i=0
until [ -e /sys/class/bluetooth/hci0 ]; do
    i=$((i + 1))
    if [ "$i" -ge 200 ] || ! kill -0 "$BTATTACH_PID" 2>/dev/null; then
        cat /tmp/bvm/btattach.log
        finish 92 "hci0 did not appear after btattach"
    fi
    sleep 0.1
done
# Wait for the kernel's controller setup to finish (btmgmt sees the index).
i=0
until btmgmt --index 0 info 2>/dev/null | grep -q 'current settings'; do
    i=$((i + 1)); [ "$i" -lt 100 ] || finish 92 "hci0 appeared but never finished its setup (see hci.btsnoop)"
    sleep 0.1
done
log "hci0 attached; btmgmt le on, power on"
btmgmt --index 0 le on > /tmp/bvm/btmgmt-le.txt 2>&1 || { cat /tmp/bvm/btmgmt-le.txt; finish 93 "btmgmt le on failed"; }
btmgmt --index 0 power on > /tmp/bvm/btmgmt-power.txt 2>&1 || { cat /tmp/bvm/btmgmt-power.txt; finish 93 "btmgmt power on failed"; }
btmgmt --index 0 info > "$RESULTS/btmgmt-info.txt" 2>&1
grep -q 'current settings:.* powered' "$RESULTS/btmgmt-info.txt" \
    || { cat "$RESULTS/btmgmt-info.txt"; finish 93 "hci0 is not powered"; }
grep -q 'current settings:.* le' "$RESULTS/btmgmt-info.txt" \
    || { cat "$RESULTS/btmgmt-info.txt"; finish 93 "LE is not on"; }

log "running $SCENARIO.sh (at most ${TIMEOUT}s)"
export RESULTS SCENARIO BVM_REPO="$REPO" BVM_DIR="$REPO/scripts/bluez-vm"
[ -z "$FIXTURES" ] || export HANDOFF_FIXTURES="$FIXTURES"
cd "$REPO" || finish 90 "cannot cd into $REPO"
timeout -k 5 "$TIMEOUT" bash "$SCRIPT" 2>&1 | tee "$RESULTS/scenario.log"
rc=${PIPESTATUS[0]}
case "$rc" in
    0) finish 0 "scenario passed" ;;
    124|137) finish "$rc" "scenario timed out after ${TIMEOUT}s" ;;
    *) finish "$rc" "scenario failed" ;;
esac
