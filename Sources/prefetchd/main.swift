#if canImport(Glibc)
import Glibc
#endif

exit(Tool.main(Array(CommandLine.arguments.dropFirst())).rawValue)
