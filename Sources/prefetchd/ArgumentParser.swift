import PrefetchKit

/// Parses `--name value`, `--name=value`, flags and positionals against a command's option specs.
/// `--` ends the options. Every mistake is a `UsageError` naming the option.
struct ArgumentParser {
    let command: String
    let options: [OptionSpec]

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            guard argument.hasPrefix("--") else {
                throw UsageError("\(command): unknown option '\(argument)'; options are spelled --name (see 'prefetchd \(command) --help')")
            }
            let body = argument.dropFirst(2)
            let name: String
            var inlineValue: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                inlineValue = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw UsageError("\(command): unknown option '--\(name)'\(suggestion(for: name))")
            }
            guard let placeholder = spec.value else {
                if inlineValue != nil {
                    throw UsageError("\(command): --\(name) takes no value")
                }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("\(command): --\(name) needs a value (\(placeholder))")
            }
            if !spec.choices.isEmpty && !spec.choices.contains(value) {
                throw UsageError("\(command): --\(name) must be one of \(spec.choices.joined(separator: ", ")), not '\(value)'")
            }
            if parsed.values[name] != nil {
                throw UsageError("\(command): --\(name) given twice")
            }
            parsed.values[name] = value
        }
        return parsed
    }

    private func suggestion(for name: String) -> String {
        let names = options.map(\.name)
        if let close = EditDistance.closest(to: name, among: names) {
            return "; did you mean '--\(close)'?"
        }
        return " (see 'prefetchd \(command) --help')"
    }
}
