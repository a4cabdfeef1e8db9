#if canImport(Glibc)
import Glibc
#endif
import PrefetchKit

ProcessTuning.holdStopSignals()
ProcessTuning.holdWindowSignal()
ProcessTuning.limitMallocArenas()
ProcessTuning.keepFreedHeap()
ProcessTuning.batchScheduling()
ProcessTuning.ignoreWriteSignals()
ProcessTuning.useUTF8Characters()
exit(Tool.main(Array(CommandLine.arguments.dropFirst())).rawValue)
