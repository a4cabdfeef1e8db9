import PrefetchKit

/// `docs/prefetchd.1`, the man page, from the same command specs as `--help` (`prefetchd help --man`).
struct ManPage {
    let commands: [CommandSpec]

    func render() -> String {
        var page = """
            .\\" Made by `prefetchd help --man` from the command specs; do not edit by hand.
            .TH PREFETCHD 1 "" "prefetchd \(PrefetchVersion.string)" "User Commands"
            .SH NAME
            prefetchd \\- \(Self.escape(ToolText.summary))
            .SH SYNOPSIS

            """
        page += commands.map { ".B prefetchd\n" + Self.escape($0.synopsis) + "\n.br\n" }.joined()
        page += ".B prefetchd\n\\-h | \\-\\-help | \\-V | \\-\\-version\n"
        page += ".SH DESCRIPTION\n"
        page += commands.map { ".TP\n.B \($0.name)\n" + Self.escape($0.summary) + "\n" }.joined()
        page += ".SH COMMANDS\n"
        page += commands.map(section).joined()
        page += ".SH EXIT STATUS\n" + Self.escape(ToolText.exitStatus) + "\n"
        page += """
            .SH ENVIRONMENT
            .TP
            .B PREFETCHD_CACHE_DIR
            The cache folder of a command given no job file and no \\-\\-cache, and of a job file without cache.path.
            .TP
            .B JOB_COMPLETION_INDEX, PREFETCHD_SHARDS
            Without \\-\\-shard, run handles shard JOB_COMPLETION_INDEX+1 (0-based, as a Kubernetes Indexed Job sets it) of PREFETCHD_SHARDS; both or neither must be set, and with \\-\\-shard they must agree.
            .TP
            .B COLUMNS
            The width the progress line is laid out for when it is not written to a terminal (80 when unset).
            .TP
            .B JOURNAL_STREAM
            Set by systemd: log lines written to the journal's own stream are not stamped with the time, which the journal adds.
            .PP
            A job file's ${VAR} and ${VAR:-default}, and its password_env, read the environment when it loads; libcurl's proxy variables (http_proxy and the like) are not read: a job's proxy: is.
            .SH EXAMPLE
            .nf
            \(Self.escape(ToolText.example))
            .fi
            .SH NOTES
            \(Self.escape(ToolText.streams))

            """
        return page
    }

    private func section(_ spec: CommandSpec) -> String {
        var text = ".SS \(spec.name)\n.B prefetchd\n" + Self.escape(spec.synopsis) + "\n.PP\n" + Self.escape(spec.summary) + "\n"
        text += spec.paragraphs.map { ".PP\n" + Self.escape(Self.joined($0)) + "\n" }.joined()
        text += ".PP\nOptions (flags are off unless given):\n"
        text += spec.allOptions.map { ".TP\n.B " + Self.escape($0.spelling) + "\n" + Self.escape($0.explanation) + "\n" }.joined()
        text += ".PP\nExamples:\n.PP\n.RS\n.nf\n" + spec.examples.map { Self.escape($0) + "\n" }.joined() + ".fi\n.RE\n"
        return text
    }

    /// A paragraph's wrapped lines as one line, so no line starts with a character roff reads as a request.
    private static func joined(_ paragraph: String) -> String {
        paragraph.split(separator: "\n").map { $0.drop { $0 == " " } }.joined(separator: " ")
    }

    /// Text as roff prints it: backslashes and hyphens escaped, a leading `.` or `'` made plain.
    static func escape(_ text: String) -> String {
        let escaped = text.replacing("\\", with: "\\e").replacing("-", with: "\\-")
        return escaped.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }
}
