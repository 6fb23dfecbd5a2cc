#if canImport(Glibc)
import Glibc
#endif
import BeaconTool

exit(BeaconTX.run(Array(CommandLine.arguments.dropFirst()), .system))
