// SPDX-License-Identifier: Apache-2.0
// Only the declaration in include/CFuzzerDriver.h matters: libFuzzer (linked by -sanitize=fuzzer)
// defines LLVMFuzzerRunDriver. SwiftPM needs one C file to build the target.
#include "CFuzzerDriver.h"
