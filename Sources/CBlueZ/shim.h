#ifndef BEACON_TX_CBLUEZ_SHIM_H
#define BEACON_TX_CBLUEZ_SHIM_H
/* libbluetooth (BlueZ) headers for the HCISocket target, plus what Swift cannot see:
   ioctl numbers are built with _IOW/_IOR macros, so they are re-exported as constants. */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

static const unsigned long beacon_tx_HCIDEVUP = HCIDEVUP;
static const unsigned long beacon_tx_HCIDEVDOWN = HCIDEVDOWN;
static const unsigned long beacon_tx_HCIDEVRESET = HCIDEVRESET;
static const unsigned long beacon_tx_HCIGETDEVLIST = HCIGETDEVLIST;
static const unsigned long beacon_tx_HCIGETDEVINFO = HCIGETDEVINFO;

#endif
