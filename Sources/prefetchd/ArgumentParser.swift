import PrefetchKit

/// Parses `--name value`, `--name=value`, `-x value`, `-xVALUE`, grouped flags (`-nq`), flags and
/// positionals against a command's option specs. `--` ends the options. Every mistake is a
/// `UsageError` naming the option.
struct ArgumentParser {
    let command: String
    let options: [OptionSpec]

    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var rest = arguments[...]
        var optionsEnded = false
        while let argument = rest.popFirst() {
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                try long(argument.dropFirst(2), &rest, into: &parsed)
            } else {
                try short(argument.dropFirst(), &rest, into: &parsed)
            }
        }
        return parsed
    }

    /// `--name`, `--name=value` or `--name value`.
    private func long(_ body: Substring, _ rest: inout ArraySlice<String>, into parsed: inout ParsedArguments) throws(UsageError) {
        let name = String(body.prefix { $0 != "=" })
        let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
        guard let spec = options.first(where: { $0.name == name }) else {
            throw UsageError("\(command): unknown option `--\(name)`\(suggestion(for: name))")
        }
        if spec.value == nil, inline != nil {
            throw UsageError("\(command): --\(name) takes no value")
        }
        try take(spec, inline: inline, &rest, into: &parsed)
    }

    /// `-x`, a group of flags `-xyz`, or `-x VALUE` / `-xVALUE` (the value ends a group).
    private func short(_ letters: Substring, _ rest: inout ArraySlice<String>, into parsed: inout ParsedArguments) throws(UsageError) {
        var letters = letters
        while let letter = letters.popFirst() {
            guard let spec = options.first(where: { $0.short == letter }) else {
                throw UsageError("\(command): unknown option `-\(letter)` (see `prefetchd \(command) --help`)")
            }
            if spec.value != nil {
                try take(spec, inline: letters.isEmpty ? nil : String(letters), &rest, into: &parsed)
                return
            }
            try take(spec, inline: nil, &rest, into: &parsed)
        }
    }

    /// Records `spec`: a flag, or its value (inline, else the next argument).
    private func take(_ spec: OptionSpec, inline: String?, _ rest: inout ArraySlice<String>,
                      into parsed: inout ParsedArguments) throws(UsageError) {
        let name = spec.name
        guard let placeholder = spec.value else {
            guard parsed.flags.insert(name).inserted else {
                throw UsageError("\(command): --\(name) given twice")
            }
            return
        }
        // An empty value (`--cache=` or `--cache ""`) is as missing as none: taken as given, an empty
        // folder would be the current one.
        guard let value = inline ?? rest.popFirst(), !value.isEmpty else {
            throw UsageError("\(command): --\(name) needs a value (\(placeholder))")
        }
        if !spec.choices.isEmpty && !spec.choices.contains(value) {
            throw UsageError("\(command): --\(name) must be one of \(spec.choices.joined(separator: ", ")), not `\(value)`")
        }
        if parsed.values[name] != nil {
            throw UsageError("\(command): --\(name) given twice")
        }
        parsed.values[name] = value
    }

    private func suggestion(for name: String) -> String {
        let names = options.map(\.name)
        if let close = EditDistance.closest(to: name, among: names) {
            return "; did you mean `--\(close)`?"
        }
        return " (see `prefetchd \(command) --help`)"
    }
}
