/// Text made safe and short for the stats page.
enum HTMLText {
    /// Escapes `&`, `<`, `>`, both quotes, and shows the C0 controls and DEL as their Control Pictures
    /// (U+2400 to U+2421), which HTML does not allow as text.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{7F}": out += "\u{2421}"
            case _ where scalar.value < 0x20: out.unicodeScalars.append(Unicode.Scalar(0x2400 + scalar.value) ?? "?")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` cut to `limit` characters, its end an ellipsis, escaped.
    static func cut(_ text: String, _ limit: Int) -> String {
        escape(text.count > limit ? String(text.prefix(limit - 1)) + "\u{2026}" : text)
    }

    /// 1234567 as "1,234,567".
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        let groups = stride(from: digits.count, to: 0, by: -3).map { end in
            let start = max(0, end - 3)
            return String(digits.dropFirst(start).prefix(end - start))
        }
        return (number < 0 ? "-" : "") + groups.reversed().joined(separator: ",")
    }
}
