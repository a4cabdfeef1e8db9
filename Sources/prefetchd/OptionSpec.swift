/// One command-line option as a command declares it: enough to parse it and to explain it (in
/// `--help`, the man page and the completions).
struct OptionSpec: Sendable {
    /// Long name without dashes, e.g. `cache`.
    let name: String
    /// The one-letter spelling, e.g. `C` for `-C`; nil when there is none.
    let short: Character?
    /// Placeholder for the value (`DIR`, `N`); nil for a flag.
    let value: String?
    /// Allowed values, checked while parsing; empty means any.
    let choices: [String]
    /// What is used when the option is not given, as `--help` says it; nil for a flag (off unless given).
    let defaultValue: String?
    /// One sentence for `--help`.
    let help: String

    static func flag(_ name: String, short: Character? = nil, _ help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, value: nil, choices: [], defaultValue: nil, help: help)
    }

    static func value(_ name: String, short: Character? = nil, _ value: String, _ help: String,
                      default defaultValue: String, choices: [String] = []) -> OptionSpec {
        OptionSpec(name: name, short: short, value: value, choices: choices, defaultValue: defaultValue, help: help)
    }

    /// `-c, --concurrency N`, or `--cache DIR` when there is no short spelling.
    var spelling: String {
        let long = "--" + name + (value.map { " " + $0 } ?? "")
        return short.map { "-\($0), " + long } ?? long
    }

    /// The help sentence with the default, as `--help` and the man page print it.
    var explanation: String {
        help + (defaultValue.map { " (default: \($0))" } ?? "")
    }
}

/// What a command's command line said, after parsing against its option specs.
struct ParsedArguments: Sendable {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ name: String) -> String? { values[name] }
    func has(_ name: String) -> Bool { flags.contains(name) }
}
