import PrefetchKit

/// The `--help` texts, rendered from the command specs so they cannot drift from what parses.
enum Help {
    static func tool(commands: [CommandSpec]) -> String {
        let width = commands.map(\.name.count).max() ?? 0
        let list = commands.map { "  \(pad($0.name, width))  \($0.summary)" }
        return """
            prefetchd \(PrefetchVersion.string) — batch image prefetcher and disk-cache maintainer

            Usage: prefetchd COMMAND [ARGUMENTS] [OPTIONS]
                   prefetchd COMMAND --help
                   prefetchd --help | --version

            Commands:
            \(list.joined(separator: "\n"))

            Exit status: 0 success; 1 finished but something failed; 2 usage or job-file error
            (nothing fetched, nothing changed); 3 environment error (cache unusable, disk full, lock
            held too long); 130/143/129 after SIGINT/SIGTERM/SIGHUP.

            Example:
              prefetchd check jobs/catalog.yaml && prefetchd run jobs/catalog.yaml --report run.json

            Logs go to standard error; machine output (JSON, paths) to standard output.

            """
    }

    static func command(_ spec: CommandSpec) -> String {
        let rendered = spec.allOptions.map { option -> (String, String) in
            let left = option.value.map { "--\(option.name) \($0)" } ?? "--\(option.name)"
            return (left, option.help)
        }
        let width = rendered.map(\.0.count).max() ?? 0
        let options = rendered.map { "  \(pad($0.0, width))  \($0.1)" }
        let examples = spec.examples.map { "  \($0)" }
        return """
            Usage: prefetchd \(spec.synopsis)

            \(spec.summary)

            \(spec.details)

            Options:
            \(options.joined(separator: "\n"))

            Examples:
            \(examples.joined(separator: "\n"))

            """
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
