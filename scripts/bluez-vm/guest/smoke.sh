#!/bin/bash
# scripts/bluez-vm/guest/smoke.sh — proves the harness without the project's binaries.
#
# In the VM, against the host's virtual peripherals:
#   1. LE discovery (btmgmt find -l) lists "Handoff HR" and "Handoff Footpod" → find-1.txt
#   2. a raw kernel L2CAP ATT socket (guest/att_client.py under Debian's python3) connects to
#      the HR strap, discovers its GATT database, reads it, subscribes, receives 4
#      notifications, then asks the host for an 8 s dropout and waits for the link loss
#      (expected errno ETIMEDOUT: HCI reason 0x08) → att-hr-1.json
#   3. discovery during the dropout: the footpod, not the strap → find-2.txt
#   4. after the dropout ends, discovery sees the strap again → find-3.txt
#   5. ATT to the strap again: notifications continue the sequence; 3 malformed ones arrive
#      → att-hr-2.json
#   6. ATT to the footpod: RSC notifications → att-footpod.json
# check_smoke.py then compares all of it with the host's sent.jsonl and the HCI trace.
set -eu
. "$BVM_DIR/guest/lib.sh"

step "1. discovery: both sensors"
scan_le 3 "$RESULTS/find-1.txt"
found "$RESULTS/find-1.txt" "Handoff HR" || fail "find-1: no Handoff HR"
found "$RESULTS/find-1.txt" "Handoff Footpod" || fail "find-1: no Handoff Footpod"

step "2. ATT to the HR strap, then an 8 s dropout"
mark=$(sent_lines)
"$GUEST_PY" "$BVM_DIR/guest/att_client.py" "$HR_ADDR" --device hr --out "$RESULTS/att-hr-1.json" \
    --notifications 4 --then-dropout 8 || fail "att-hr-1 failed"
wait_event "$mark" hr dropout_start 5 || fail "the host never started the dropout"

step "3. discovery during the dropout: footpod only"
scan_le 3 "$RESULTS/find-2.txt"
found "$RESULTS/find-2.txt" "Handoff Footpod" || fail "find-2: no Handoff Footpod"
! found "$RESULTS/find-2.txt" "Handoff HR" || fail "find-2: Handoff HR seen during its dropout"

step "4. after the dropout the strap advertises again"
wait_event "$mark" hr dropout_end 20 || fail "the dropout never ended"
scan_le 3 "$RESULTS/find-3.txt"
found "$RESULTS/find-3.txt" "Handoff HR" || fail "find-3: Handoff HR did not come back"

step "5. ATT to the strap again: the sequence continues; malformed notifications"
"$GUEST_PY" "$BVM_DIR/guest/att_client.py" "$HR_ADDR" --device hr --out "$RESULTS/att-hr-2.json" \
    --notifications 2 --then-malformed --extra 2 || fail "att-hr-2 failed"

step "6. ATT to the footpod"
"$GUEST_PY" "$BVM_DIR/guest/att_client.py" "$FOOTPOD_ADDR" --device footpod \
    --out "$RESULTS/att-footpod.json" --notifications 3 || fail "att-footpod failed"

step "done"
