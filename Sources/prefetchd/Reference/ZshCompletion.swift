/// `completions/_prefetchd`, from the command specs (`prefetchd help --completions zsh`): the
/// commands with their summaries, then each command's options (`_arguments`), with choices or file
/// names for their values.
struct ZshCompletion {
    let commands: [CommandSpec]

    func render() -> String {
        let described = commands.map { "        " + Self.quoted("\($0.name):\(Self.sentence($0.summary))") }
        return """
            #compdef prefetchd
            # zsh completion for prefetchd. Made by `prefetchd help --completions zsh`; do not edit by hand.
            _prefetchd() {
                local -a commands
                commands=(
            \(described.joined(separator: "\n"))
                )
                if (( CURRENT == 2 )); then
                    _describe -t commands command commands
                    _arguments '(-h --help)'{-h,--help}'[show the help]' '(-V --version)'{-V,--version}'[show the versions]'
                    return
                fi
                local command=$words[2]
                shift words
                (( CURRENT-- ))
                case $command in

            """
            + commands.map(branch).joined()
            + """
                    help) _describe -t commands command commands ;;
                esac
            }
            _prefetchd "$@"

            """
    }

    private func branch(_ spec: CommandSpec) -> String {
        let specs = spec.allOptions.map(Self.argument) + ["'*:file:_files'"]
        return "        \(spec.name)) _arguments -s \\\n            " + specs.joined(separator: " \\\n            ") + " ;;\n"
    }

    /// `'(-c --concurrency)'{-c,--concurrency}'[Transfers in flight at once]:N:'`.
    private static func argument(_ option: OptionSpec) -> String {
        let long = "--" + option.name
        let names = option.short.map { "'(-\($0) \(long))'{-\($0),\(long)}" } ?? long
        var text = "[\(sentence(option.help))]"
        if let value = option.value {
            let action = !option.choices.isEmpty ? "(\(option.choices.joined(separator: " ")))"
                : value == "DIR" ? "_files -/" : BashCompletion.takesPath(option) ? "_files" : ""
            text += ":\(value):\(action)"
        }
        return names + quoted(text)
    }

    /// The first sentence, without the brackets and colons `_arguments` reads as syntax.
    private static func sentence(_ text: String) -> String {
        let first = text.split(separator: ". ", maxSplits: 1).first.map(String.init) ?? text
        let plain = first.replacing("[", with: "(").replacing("]", with: ")").replacing(":", with: " -")
        return plain.hasSuffix(".") ? String(plain.dropLast()) : plain
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
