#if canImport(Glibc)
import Glibc
#endif
import PrefetchKit

ProcessTuning.limitMallocArenas()
exit(Tool.main(Array(CommandLine.arguments.dropFirst())).rawValue)
