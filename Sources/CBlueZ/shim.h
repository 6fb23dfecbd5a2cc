// SPDX-License-Identifier: Apache-2.0
#ifndef BEACON_TX_CBLUEZ_SHIM_H
#define BEACON_TX_CBLUEZ_SHIM_H
/* BlueZ headers (libbluetooth-dev; no library is linked) for the HCISocket target, plus what Swift cannot see:
   ioctl numbers are built with _IOW/_IOR macros, so they are re-exported as constants;
   ioctl itself is variadic, so it gets two fixed-signature wrappers; SIG_IGN is a cast macro. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

static const unsigned long beacon_tx_HCIDEVUP = HCIDEVUP;
static const unsigned long beacon_tx_HCIDEVDOWN = HCIDEVDOWN;
static const unsigned long beacon_tx_HCIDEVRESET = HCIDEVRESET;
static const unsigned long beacon_tx_HCIGETDEVLIST = HCIGETDEVLIST;
static const unsigned long beacon_tx_HCIGETDEVINFO = HCIGETDEVINFO;

/* Socket constants, re-exported so Swift does not depend on which header's macro it imports. */
static const int beacon_tx_AF_BLUETOOTH = AF_BLUETOOTH;
static const int beacon_tx_BTPROTO_HCI = BTPROTO_HCI;
static const int beacon_tx_SOL_HCI = SOL_HCI;
static const int beacon_tx_HCI_FILTER = HCI_FILTER;
static const unsigned short beacon_tx_HCI_CHANNEL_RAW = HCI_CHANNEL_RAW;
static const unsigned short beacon_tx_HCI_CHANNEL_CONTROL = HCI_CHANNEL_CONTROL;
static const int beacon_tx_HCI_EVENT_PKT = HCI_EVENT_PKT;
static const int beacon_tx_HCI_COMMAND_PKT = HCI_COMMAND_PKT;
static const int beacon_tx_HCI_UP_FLAG = HCI_UP;
static const unsigned short beacon_tx_HCI_DEV_NONE = HCI_DEV_NONE;
static const int beacon_tx_EVT_STACK_INTERNAL = EVT_STACK_INTERNAL;

/* ioctl with an int argument (HCIDEVUP, HCIDEVDOWN, HCIDEVRESET take the device id by value). */
static inline int beacon_tx_ioctl_int(int fd, unsigned long request, int argument) {
    return ioctl(fd, request, argument);
}

/* ioctl with a pointer argument (HCIGETDEVINFO takes a struct hci_dev_info). */
static inline int beacon_tx_ioctl_ptr(int fd, unsigned long request, void *argument) {
    return ioctl(fd, request, argument);
}

/* HCIGETDEVLIST: struct hci_dev_list_req ends in a flexible array, which Swift cannot address.
   Writes up to `capacity` registered device ids to `ids` and returns how many, or -1 with errno set. */
static inline int beacon_tx_device_ids(int fd, uint16_t *ids, uint16_t capacity) {
    if (capacity == 0) return 0;
    size_t size = sizeof(struct hci_dev_list_req) + (size_t)capacity * sizeof(struct hci_dev_req);
    struct hci_dev_list_req *request = calloc(1, size);
    if (request == NULL) {
        errno = ENOMEM;
        return -1;
    }
    request->dev_num = capacity;
    if (ioctl(fd, HCIGETDEVLIST, request) < 0) {
        int saved = errno;
        free(request);
        errno = saved;
        return -1;
    }
    int count = request->dev_num < capacity ? request->dev_num : capacity;
    for (int i = 0; i < count; i++) ids[i] = request->dev_req[i].dev_id;
    free(request);
    return count;
}

/* 1 when the process ignores `signal` (SIG_IGN, e.g. SIGINT of a background job), 0 if not, -1 on error. */
static inline int beacon_tx_signal_is_ignored(int signal) {
    struct sigaction current;
    if (sigaction(signal, NULL, &current) != 0) return -1;
    return current.sa_handler == SIG_IGN ? 1 : 0;
}

/* pidfd_open(2) and pidfd_send_signal(2) through syscall(2) (variadic, and glibc's wrappers need
   2.36 headers that Swift's Glibc module does not map). A pidfd names one process for its whole
   life: a signal sent through it never reaches a later process that reused the pid. The numbers
   are the same on every architecture (new syscalls share one table). */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
static inline int beacon_tx_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}
static inline int beacon_tx_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

#endif
