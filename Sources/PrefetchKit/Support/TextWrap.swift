/// Fills text into lines of at most `width` characters at word boundaries, for the `--help` texts:
/// every line after the first indented by `indent` (a hanging indent), the first by `firstIndent`.
/// A word longer than a line is cut, so no line is ever longer than `width`.
package enum TextWrap {
    package static func lines(_ text: String, width: Int, indent: Int = 0, firstIndent: Int? = nil) -> [String] {
        var lines: [String] = []
        var line = String(repeating: " ", count: firstIndent ?? indent)
        var lineHasWord = false
        let margin = String(repeating: " ", count: indent)
        for word in text.split(whereSeparator: \.isWhitespace) {
            var word = Substring(word)
            if lineHasWord && line.count + 1 + word.count > width {
                lines.append(line)
                line = margin
                lineHasWord = false
            }
            if lineHasWord { line += " " }
            while line.count + word.count > width, width > line.count {
                let room = width - line.count
                lines.append(line + word.prefix(room))
                word = word.dropFirst(room)
                line = margin
            }
            line += word
            lineHasWord = true
        }
        lines.append(line)
        return lines
    }

    /// `lines` joined, each ended by a newline.
    package static func fill(_ text: String, width: Int, indent: Int = 0, firstIndent: Int? = nil) -> String {
        lines(text, width: width, indent: indent, firstIndent: firstIndent).map { $0 + "\n" }.joined()
    }
}
