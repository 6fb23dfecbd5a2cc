// SPDX-License-Identifier: Apache-2.0
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// Must crash: proves that a Swift trap inside a harness is caught and reported by libFuzzer
// (`make fuzz` fails if this one does not find its crash).
exit(fuzzMain { input in
    require(!input.starts(with: Array("FUZ".utf8)), "the self-test reached its planted bug")
})
