/// One command-line option as a command declares it: enough to parse it and to explain it.
struct OptionSpec: Sendable {
    /// Long name without dashes, e.g. `cache`.
    let name: String
    /// Placeholder for the value (`DIR`, `N`); nil for a flag.
    let value: String?
    /// Allowed values, checked while parsing; empty means any.
    let choices: [String]
    /// One sentence for `--help`.
    let help: String

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, choices: [], help: help)
    }

    static func value(_ name: String, _ value: String, _ help: String, choices: [String] = []) -> OptionSpec {
        OptionSpec(name: name, value: value, choices: choices, help: help)
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
