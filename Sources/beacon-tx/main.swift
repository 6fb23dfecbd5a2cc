// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import BeaconTool

// A closed stdout or stderr (an ssh session that went away) must not kill a process that has
// beacons on air: writes fail with EPIPE instead, and the session keeps running.
signal(SIGPIPE, SIG_IGN)
ToolContext.reserveStandardDescriptors()
exit(BeaconTX.run(raw: ToolContext.rawArguments, .system))
