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
        let status = dispatch(arguments)
        // Help and version text: a command's own output is judged before its summary (`dispatch`).
        guard status != .environment, let message = outputFailure(of: "prefetchd") else { return status }
        Console.error(message + "\n")
        return .environment
    }

    /// Why standard output could not be written, as the command's one line; nil when it could.
    private static func outputFailure(of command: String) -> String? {
        Console.outputFailure.map { "\(command): cannot write standard output: \(String(cString: strerror($0)))" }
    }

    private static func dispatch(_ arguments: [String]) -> ExitStatus {
        let diagnostics = Diagnostics()
        guard let first = arguments.first else {
            Console.error(Help(width: 80).tool(commands: commands))
            diagnostics.report(.usage)
            return diagnostics.exitStatus
        }
        if ["--help", "-h", "--version", "-V"].contains(first), arguments.count > 1 {
            diagnostics.report(.usage, "prefetchd: \(first) takes no arguments; `prefetchd COMMAND --help` shows a command's help")
            return diagnostics.exitStatus
        }
        switch first {
        case "--help", "-h":
            Console.out(Help.forStandardOutput.tool(commands: commands))
            return .success
        case "help":
            return help(Array(arguments.dropFirst()), diagnostics)
        case "--version", "-V":
            Console.out(VersionText.render())
            return .success
        default:
            break
        }
        guard let spec = command(named: first) else {
            diagnostics.report(.usage, "prefetchd: unknown command `\(first)`\(hint(for: first))")
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
                Console.out(Help.forStandardOutput.command(spec))
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
        if let message = outputFailure(of: "prefetchd \(spec.name)") { diagnostics.report(.environment, message) }
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

    /// `help [COMMAND]`; and, not listed, `help --man` and `help --completions bash|zsh`, which
    /// write the man page and the completion scripts the repository ships (docs/, completions/).
    private static func help(_ arguments: [String], _ diagnostics: Diagnostics) -> ExitStatus {
        switch arguments.first {
        case nil:
            Console.out(Help.forStandardOutput.tool(commands: commands))
        case "--man" where arguments.count == 1:
            Console.out(ManPage(commands: commands).render())
        case "--completions" where arguments.count == 2 && arguments[1] == "bash":
            Console.out(BashCompletion(commands: commands).render())
        case "--completions" where arguments.count == 2 && arguments[1] == "zsh":
            Console.out(ZshCompletion(commands: commands).render())
        case let name? where arguments.count == 1:
            guard let spec = command(named: name) else {
                diagnostics.report(.usage, "prefetchd help: unknown command `\(name)`\(hint(for: name))")
                return diagnostics.exitStatus
            }
            Console.out(Help.forStandardOutput.command(spec))
        default:
            diagnostics.report(.usage, "prefetchd help: give one command (usage: prefetchd help [COMMAND])")
            return diagnostics.exitStatus
        }
        return .success
    }

    private static func hint(for name: String) -> String {
        EditDistance.closest(to: name, among: commands.map(\.name)).map { "; did you mean `\($0)`?" } ?? " (see `prefetchd --help`)"
    }

    private static func command(named name: String) -> CommandSpec? {
        commands.first { $0.name == name }
    }
}
