/* libbluetooth (BlueZ's libbluetooth-dev) for Swift. The socket headers come first: BlueZ's
 * headers use sa_family_t and friends without including them. Macros Swift cannot import
 * (htobs, BDADDR_ANY, the OCF/OGF packing) are re-implemented in Sources/BlueZ/CBlueZ+Swift.swift. */
#ifndef HANDOFF_CBLUEZ_SHIM_H
#define HANDOFF_CBLUEZ_SHIM_H
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>
#include <bluetooth/rfcomm.h>
#endif
