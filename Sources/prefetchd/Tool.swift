import PrefetchKit

#if canImport(Glibc)
import Glibc
#endif

/// Finds the command, parses its arguments, runs it and turns every error into a one-line
/// message and an exit status.
enum Tool {
    static let commands: [CommandSpec] = [
        RunCommand.spec, CleanCommand.spec, StatsCommand.spec, CheckCommand.spec,
        VerifyCommand.spec, PathCommand.spec, RemoveCommand.spec, FsckCommand.spec, MergeCommand.spec, ExportCommand.spec,
    ]

    static func main(_ arguments: [String]) -> ExitStatus {
        let diagnostics = Diagnostics()
        guard let first = arguments.first else {
            Console.error(Help.tool(commands: commands))
            diagnostics.report(.usage)
            return diagnostics.exitStatus
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
            diagnostics.report(.usage, "prefetchd: unknown command '\(first)'\(hint)")
            return diagnostics.exitStatus
        }
        if !spec.handlesStopSignals { ProcessTuning.releaseStopSignals() }
        let rest = Array(arguments.dropFirst())
        // Read before the parse, so that a mistake in the command line is logged as it asks.
        let logs = spec.options.contains { $0.name == "log-format" }
        if logs { Log.configure(format: logFormat(in: rest)) }
        do {
            let parsed = try ArgumentParser(command: spec.name, options: spec.allOptions).parse(rest)
            if parsed.has("help") {
                Console.out(Help.command(spec))
                return .success
            }
            try spec.execute(parsed, diagnostics)
        } catch let error as UsageError {
            diagnostics.report(.usage, "prefetchd \(error.description)")
        } catch let error as JobFileError {
            diagnostics.report(.usage, "\(error)")
        } catch {
            diagnostics.report(.environment, "prefetchd \(spec.name): \(error)")
        }
        if logs { diagnostics.writeSummary(command: spec.name) }
        return diagnostics.exitStatus
    }

    /// The `--log-format` the arguments give (the last one), text when none.
    private static func logFormat(in arguments: [String]) -> Log.Format {
        var format = Log.Format.text
        for (index, argument) in arguments.enumerated() {
            let value = argument == "--log-format" ? arguments.dropFirst(index + 1).first
                : argument.hasPrefix("--log-format=") ? String(argument.dropFirst("--log-format=".count)) : nil
            if let value, let given = Log.Format(rawValue: value) { format = given }
        }
        return format
    }

    private static func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }
}
