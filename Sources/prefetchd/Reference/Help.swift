import PrefetchKit

#if canImport(Glibc)
import Glibc
#endif

/// The `--help` texts, rendered from the command specs so they cannot drift from what parses, and
/// filled to `width` columns: the terminal's (at most 100) when standard output is one, else 80.
struct Help {
    let width: Int

    static var forStandardOutput: Help {
        Help(width: TerminalWidth.columns(of: STDOUT_FILENO).map { min(100, max(40, $0)) } ?? 80)
    }

    /// The widest left column of the option list; a longer spelling puts its help on the next line.
    private static let optionColumn = 30

    func tool(commands: [CommandSpec]) -> String {
        let nameWidth = commands.map(\.name.count).max() ?? 0
        let list = commands.map { hanging("  " + $0.name, $0.summary, column: nameWidth + 4) }
        return TextWrap.fill("prefetchd \(PrefetchVersion.string) — batch image prefetcher and disk-cache maintainer", width: width)
            + """

            Usage: prefetchd COMMAND [ARGUMENTS] [OPTIONS]
                   prefetchd COMMAND -h | --help
                   prefetchd -h | --help | -V | --version

            Commands:

            """
            + list.joined() + "\n"
            + TextWrap.fill(ToolText.exitStatus, width: width) + "\n"
            + "Example:\n" + example(ToolText.example) + "\n"
            + TextWrap.fill(ToolText.streams, width: width)
    }

    func command(_ spec: CommandSpec) -> String {
        TextWrap.fill("Usage: prefetchd " + spec.synopsis, width: width, indent: 7, firstIndent: 0) + "\n"
            + TextWrap.fill(spec.summary, width: width) + "\n"
            + spec.paragraphs.map { TextWrap.fill($0, width: width) }.joined(separator: "\n") + "\n"
            + "Options (flags are off unless given):\n"
            + spec.allOptions.map { option($0, column: Self.column(spec.allOptions)) }.joined() + "\n"
            + "Examples:\n" + spec.examples.map(example).joined()
    }

    /// `  -c, --concurrency N  Transfers in flight ...`, the help hanging at `column`; a spelling too
    /// long for the column puts the help on the next line.
    private func option(_ option: OptionSpec, column: Int) -> String {
        let left = Self.left(option)
        if left.count + 2 > column {
            return left + "\n" + TextWrap.fill(option.explanation, width: width, indent: column)
        }
        return hanging(left, option.explanation, column: column)
    }

    /// `left` padded to `column`, then `text` filled from there with every further line at `column`.
    private func hanging(_ left: String, _ text: String, column: Int) -> String {
        var lines = TextWrap.lines(text, width: width, indent: column)
        lines[0] = Self.pad(left, column) + lines[0].dropFirst(column)
        return lines.map { $0 + "\n" }.joined()
    }

    /// `  -c, --concurrency N`, or `      --cache DIR` aligned under the long spellings.
    private static func left(_ option: OptionSpec) -> String {
        (option.short == nil ? "      " : "  ") + option.spelling
    }

    /// Where the option help starts: past the longest spelling, at most `optionColumn`.
    private static func column(_ options: [OptionSpec]) -> Int {
        min(optionColumn, (options.map { left($0).count }.max() ?? 0) + 2)
    }

    /// A command line, indented by two; too long a line goes on over lines ended by ` \`, as a shell reads it.
    private func example(_ line: String) -> String {
        let lines = TextWrap.lines(line, width: width - 2, indent: 6, firstIndent: 2)
        return lines.enumerated().map { index, text in index < lines.count - 1 ? text + " \\\n" : text + "\n" }.joined()
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
