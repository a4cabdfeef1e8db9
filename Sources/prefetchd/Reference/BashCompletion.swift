/// `completions/prefetchd.bash`, from the command specs (`prefetchd help --completions bash`):
/// commands after `prefetchd`, each command's options after a `-`, an option's choices (or file
/// names for a path) after the option, and file names for the job files.
struct BashCompletion {
    let commands: [CommandSpec]

    func render() -> String {
        let names = commands.map(\.name).joined(separator: " ")
        return """
            # bash completion for prefetchd. Made by `prefetchd help --completions bash`; do not edit by hand.
            _prefetchd() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
                if ((COMP_CWORD == 1)); then
                    COMPREPLY=($(compgen -W "\(names) help -h --help -V --version" -- "$cur"))
                    return
                fi
                local options values
                case ${COMP_WORDS[1]} in

            """
            + commands.map(branch).joined()
            + """
                    help) COMPREPLY=($(compgen -W "\(names)" -- "$cur")); return ;;
                    *) return ;;
                esac
                case $prev in

            """
            + valueBranches
            + """
                esac
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W "$options" -- "$cur"))
                else
                    COMPREPLY=($(compgen -f -- "$cur"))
                fi
            }
            complete -o filenames -F _prefetchd prefetchd

            """
    }

    private func branch(_ spec: CommandSpec) -> String {
        let spellings = spec.allOptions.flatMap { option in ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? []) }
        return "        \(spec.name)) options=\"\(spellings.joined(separator: " "))\" ;;\n"
    }

    /// After an option that takes a value: its choices, else file names for a path, else nothing.
    private var valueBranches: String {
        var seen = Set<String>()
        var text = ""
        for option in commands.flatMap(\.allOptions) where option.value != nil {
            let spellings = ["--" + option.name] + (option.short.map { ["-\($0)"] } ?? [])
            let pattern = spellings.filter { seen.insert($0).inserted }
            guard !pattern.isEmpty else { continue }
            let reply = !option.choices.isEmpty ? "COMPREPLY=($(compgen -W \"\(option.choices.joined(separator: " "))\" -- \"$cur\"))"
                : Self.takesPath(option) ? "COMPREPLY=($(compgen -f -- \"$cur\"))" : "COMPREPLY=()"
            text += "        \(pattern.joined(separator: "|"))) \(reply); return ;;\n"
        }
        return text
    }

    static func takesPath(_ option: OptionSpec) -> Bool {
        ["DIR", "FILE", "FILE.json", "FILE.xml", "JOB.yaml"].contains(option.value ?? "")
    }
}
