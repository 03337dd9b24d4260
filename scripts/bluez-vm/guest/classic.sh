#!/bin/bash
# scripts/bluez-vm/guest/classic.sh — the classic (BR/EDR) strap without the project's binaries.
#
# In the VM, against the host's virtual Zephyr HxM ("hxm", F0:F0:F0:00:00:03, see peripherals.py):
#   1. inquiry + remote name: `hcitool scan` lists HXM026001 with class 0x000918 → inquiry.txt
#   2. BlueZ's own SDP client (`sdptool browse`, works without bluetoothd) → sdptool.txt
#   3. guest/rfcomm_client.py (Debian's python3, kernel sockets only) → rfcomm.json:
#      answers the kernel's mgmt PIN Code Request with PIN 1234; SDP Service Search Attribute
#      for Serial Port 0x1101 → RFCOMM channel; RFCOMM with BT_SECURITY medium (legacy pairing,
#      E0 encryption); link supervision timeout 4 s (HCI Write Link Supervision Timeout: the
#      default 20 s would outlast the dropout); ~20 s of frames; a 10 s dropout asked of the
#      host; the socket fails with ETIMEDOUT after the supervision timeout; Remote Name
#      Requests until the strap answers again (never a connect() that could fail: that
#      crashes this kernel, see rfcomm_client.py); reconnection (stored link key, no PIN);
#      ~10 s more frames.
#   4. the kernel drops the idle ACL (trace: Disconnect, reason 0x16 here, 0x13 at the strap).
# check_classic.py then compares it with sent.jsonl, signals.py and the HCI trace. ~60 s.
set -eu
. "$BVM_DIR/guest/lib.sh"

step "1. inquiry: hcitool scan (2 × 1.28 s, names by Remote Name Request)"
timeout 20 hcitool -i hci0 scan --length=2 --class > "$RESULTS/inquiry.txt" 2>&1 || fail "hcitool scan failed: $(cat "$RESULTS/inquiry.txt")"
grep -q "$HXM_ADDR" "$RESULTS/inquiry.txt" || fail "the inquiry did not find the strap"

step "2. SDP with BlueZ's client: sdptool browse"
timeout 20 sdptool browse "$HXM_ADDR" > "$RESULTS/sdptool.txt" 2>&1 || fail "sdptool browse failed: $(cat "$RESULTS/sdptool.txt")"
grep -q "Bluetooth Serial Port" "$RESULTS/sdptool.txt" || fail "sdptool found no Serial Port record"

step "3. SDP, PIN pairing, RFCOMM stream, 10 s dropout, reconnection (rfcomm_client.py)"
"$GUEST_PY" "$BVM_DIR/guest/rfcomm_client.py" "$HXM_ADDR" --out "$RESULTS/rfcomm.json" \
    --pin 1234 --security medium --lsto-ms 4000 \
    --first-seconds 20 --dropout 10 --then-seconds 10 || fail "rfcomm_client.py failed"

step "4. the kernel drops the idle ACL (2 s after the socket closed)"
sleep 3

step "done"
