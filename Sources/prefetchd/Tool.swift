import PrefetchKit

#if canImport(Glibc)
import Glibc
#endif

/// Finds the command, parses its arguments, runs it and turns every error into a one-line
/// message and an exit status.
enum Tool {
    static let commands: [CommandSpec] = [
        RunCommand.spec, CleanCommand.spec, StatsCommand.spec, CheckCommand.spec,
        VerifyCommand.spec, PathCommand.spec, FsckCommand.spec,
    ]

    static func main(_ arguments: [String]) -> ExitStatus {
        guard let first = arguments.first else {
            Console.error(Help.tool(commands: commands))
            return .usage
        }
        switch first {
        case "--help", "-h", "help":
            if first == "help", arguments.count > 1, let spec = command(named: arguments[1]) {
                Console.out(Help.command(spec))
            } else {
                Console.out(Help.tool(commands: commands))
            }
            return .success
        case "--version", "-V":
            Console.out("prefetchd \(PrefetchVersion.string)\n")
            return .success
        default:
            break
        }
        guard let spec = command(named: first) else {
            let hint = EditDistance.closest(to: first, among: commands.map(\.name))
                .map { "; did you mean '\($0)'?" } ?? " (see 'prefetchd --help')"
            Console.error("prefetchd: unknown command '\(first)'\(hint)\n")
            return .usage
        }
        if !spec.handlesStopSignals { ProcessTuning.releaseStopSignals() }
        let rest = Array(arguments.dropFirst())
        do {
            let parsed = try ArgumentParser(command: spec.name, options: spec.allOptions).parse(rest)
            if parsed.has("help") {
                Console.out(Help.command(spec))
                return .success
            }
            return try spec.execute(parsed)
        } catch let error as UsageError {
            Console.error("prefetchd \(error.description)\n")
            return .usage
        } catch let error as JobFileError {
            Console.error("\(error)\n")
            return .usage
        } catch {
            Console.error("prefetchd \(spec.name): \(error)\n")
            return .environment
        }
    }

    private static func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }
}
