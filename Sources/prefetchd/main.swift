#if canImport(Glibc)
import Glibc
#endif
import PrefetchKit

ProcessTuning.limitMallocArenas()
ProcessTuning.batchScheduling()
ProcessTuning.ignoreWriteSignals()
exit(Tool.main(Array(CommandLine.arguments.dropFirst())).rawValue)
