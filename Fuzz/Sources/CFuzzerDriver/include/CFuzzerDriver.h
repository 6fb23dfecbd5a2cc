// SPDX-License-Identifier: Apache-2.0
#ifndef BEACON_TX_CFUZZERDRIVER_H
#define BEACON_TX_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs that keep their own main (compiler-rt FuzzerInterface.h).
typedef int (*BeaconTXFuzzCallback)(const uint8_t *data, size_t size);
int LLVMFuzzerRunDriver(int *argc, char ***argv, BeaconTXFuzzCallback callback);

#endif
