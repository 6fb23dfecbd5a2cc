// SPDX-License-Identifier: Apache-2.0
#ifndef BEACON_TX_CBLUEZ_SECCOMP_SHIM_H
#define BEACON_TX_CBLUEZ_SECCOMP_SHIM_H
/* What HCISocket's IoctlFilter needs from the kernel headers to install a seccomp filter on its own
   process: the classic-BPF opcodes and seccomp return values (macros built from other macros, which
   Swift does not import), the layout of struct seccomp_data, the audit architectures, the native
   ioctl system-call number, the terminal requests beacon-tx allows, and the two install steps (prctl
   and syscall are variadic, so each gets a fixed-signature wrapper). A header of its own beside
   shim.h: it is the kernel's seccomp interface, not BlueZ's, and needs no Bluetooth header. */
#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* Classic-BPF opcodes the filter uses. */
static const unsigned short beacon_tx_BPF_LD_W_ABS = BPF_LD | BPF_W | BPF_ABS;
static const unsigned short beacon_tx_BPF_JMP_JEQ_K = BPF_JMP | BPF_JEQ | BPF_K;
static const unsigned short beacon_tx_BPF_JMP_JGE_K = BPF_JMP | BPF_JGE | BPF_K;
static const unsigned short beacon_tx_BPF_RET_K = BPF_RET | BPF_K;

/* What a filter returns: allow the call, or fail it with the errno in the low 16 bits. */
static const unsigned int beacon_tx_SECCOMP_RET_ALLOW = SECCOMP_RET_ALLOW;
static const unsigned int beacon_tx_SECCOMP_RET_ERRNO = SECCOMP_RET_ERRNO;

/* Byte offsets in struct seccomp_data, the record a filter loads from. */
static const unsigned int beacon_tx_SECCOMP_DATA_NR = offsetof(struct seccomp_data, nr);
static const unsigned int beacon_tx_SECCOMP_DATA_ARCH = offsetof(struct seccomp_data, arch);
static const unsigned int beacon_tx_SECCOMP_DATA_ARGS = offsetof(struct seccomp_data, args);

/* The architectures beacon-tx is released for, as seccomp_data.arch names them (both little-endian). */
static const unsigned int beacon_tx_AUDIT_ARCH_X86_64 = AUDIT_ARCH_X86_64;
static const unsigned int beacon_tx_AUDIT_ARCH_AARCH64 = AUDIT_ARCH_AARCH64;

/* ioctl's number in this build's system-call table. */
static const unsigned int beacon_tx_NR_ioctl = __NR_ioctl;

/* The bit that marks an x32 system call on x86_64 (same audit architecture, another table); only
   where the headers define it. */
#ifdef __X32_SYSCALL_BIT
static const unsigned int beacon_tx_X32_SYSCALL_BIT = __X32_SYSCALL_BIT;
#endif

/* The terminal requests beacon-tx's process makes: TCGETS (isatty: glibc and the Swift runtime) and
   TIOCGWINSZ (the Swift runtime's crash backtracer on a terminal). */
static const unsigned long beacon_tx_TCGETS = TCGETS;
static const unsigned long beacon_tx_TIOCGWINSZ = TIOCGWINSZ;

/* prctl(PR_SET_NO_NEW_PRIVS, 1): required before a process without CAP_SYS_ADMIN may install a
   filter; it also keeps exec from gaining privileges. 0, or -1 with errno set. */
static inline int beacon_tx_set_no_new_privs(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* Installs `count` instructions as a seccomp filter (after beacon_tx_set_no_new_privs).
   all_threads != 0: seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC, so every thread of the process gets
   the filter at once; it returns 0, -1 with errno set, or the id of a thread that could not be
   synchronised (nothing was installed then). all_threads == 0: prctl(PR_SET_SECCOMP), which filters
   the calling thread and the threads it starts later; 0, or -1 with errno set.
   Only system calls: safe between fork() and _exit(). */
static inline long beacon_tx_install_seccomp_filter(const struct sock_filter *instructions, unsigned short count,
                                                    int all_threads) {
    struct sock_fprog program = { .len = count, .filter = (struct sock_filter *)instructions };
    if (all_threads) {
        return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
    }
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
}

#endif
