#if canImport(Glibc)
import Glibc
#endif
import BeaconTool

ToolContext.reserveStandardDescriptors()
exit(BeaconTX.run(raw: ToolContext.rawArguments, .system))
