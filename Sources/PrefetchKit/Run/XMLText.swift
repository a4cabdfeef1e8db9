/// Text made safe for an XML 1.0 document, whatever it holds (a set's name, a URL, a library's
/// message): the five markup characters escaped, and every character XML 1.0 forbids (the control
/// characters other than tab, line feed and carriage return, U+FFFE and U+FFFF) replaced with U+FFFD.
enum XMLText {
    /// For element content: line breaks kept as they are, a carriage return as a reference (a parser
    /// would turn a bare one into a line feed).
    static func content(_ text: String) -> String {
        escape(text, keepingLines: true)
    }

    /// For an attribute's value: tab, line feed and carriage return as references too, which a parser
    /// would otherwise turn into spaces.
    static func attribute(_ text: String) -> String {
        escape(text, keepingLines: false)
    }

    /// By Unicode scalar, not by character: a quote followed by a combining mark is one Swift
    /// `Character`, and must still be escaped.
    private static func escape(_ text: String, keepingLines: Bool) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&apos;".unicodeScalars)
            case "\r": out.append(contentsOf: "&#13;".unicodeScalars)
            case "\t" where !keepingLines: out.append(contentsOf: "&#9;".unicodeScalars)
            case "\n" where !keepingLines: out.append(contentsOf: "&#10;".unicodeScalars)
            case "\t", "\n": out.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out.append("\u{FFFD}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
