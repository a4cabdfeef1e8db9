/// Why a scalar could not be read as the value its key needs; becomes the message of a diagnostic.
package struct ValueProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package var description: String { message }
}

/// Parsers for the job file's duration and size spellings, also used by command-line options.
package enum JobValues {
    private static let durationUnits: [(suffix: String, milliseconds: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000),
    ]

    private static let sizeUnits: [String: Int64] = [
        "": 1, "B": 1,
        "KB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000, "TB": 1_000_000_000_000,
        "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
    ]

    /// `500ms`, `15s`, `10m`, `2h`, `7d`, or a plain `0`.
    package static func duration(_ text: String) throws(ValueProblem) -> Duration {
        let (number, unit) = try split(text, what: "duration")
        if unit.isEmpty {
            guard number == 0 else {
                throw ValueProblem(message: "duration `\(text)` needs a unit: ms, s, m, h or d")
            }
            return .zero
        }
        guard let scale = durationUnits.first(where: { $0.suffix == unit })?.milliseconds else {
            throw ValueProblem(message: "duration `\(text)` has unknown unit `\(unit)`; use ms, s, m, h or d")
        }
        let (milliseconds, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow else { throw ValueProblem(message: "duration `\(text)` is too large") }
        return .milliseconds(milliseconds)
    }

    /// `512KiB`, `20MiB`, `2GiB`, `5MB` (powers of 10), plain bytes, or `0`; returns bytes.
    package static func size(_ text: String) throws(ValueProblem) -> Int64 {
        let (number, unit) = try split(text, what: "size")
        guard let scale = sizeUnits[unit] else {
            throw ValueProblem(message: "size `\(text)` has unknown unit `\(unit)`; use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow else { throw ValueProblem(message: "size `\(text)` is too large") }
        return bytes
    }

    /// Splits leading decimal digits from a unit, refusing signs, fractions and empty numbers.
    private static func split(_ text: String, what: String) throws(ValueProblem) -> (Int64, String) {
        let trimmed = text.trimmingSpaces
        if trimmed.hasPrefix("-") {
            throw ValueProblem(message: "\(what) `\(text)` is negative")
        }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        let unit = trimmed.dropFirst(digits.count).trimmingSpaces
        guard !digits.isEmpty, unit.allSatisfy(\.isLetter) else {
            throw ValueProblem(message: "`\(text)` is not a \(what)")
        }
        guard let number = Int64(digits) else {
            throw ValueProblem(message: "\(what) `\(text)` is too large")
        }
        return (number, unit)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and line ends.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
