/// What is wrong with a `url_pattern`; each case prints as one sentence.
package enum URLPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A `[` or `{` at this 1-based character position is never closed.
    case unclosed(Character, position: Int)
    /// A `]` or `}` at this position closes nothing.
    case unopened(Character, position: Int)
    /// A glob opened inside another one.
    case nested(position: Int)
    /// A `[...]` range that is not `first-last` or `first-last:step` of numbers or letters.
    case badRange(String)
    case reversedRange(String)
    case mixedRange(String)
    case tooManyURLs(limit: Int)
    case badListItem(String, reason: String)
    case notHTTP
    case badURL(String)

    package var description: String {
        switch self {
        case .unclosed(let open, let position): "`\(open)` at character \(position) is never closed"
        case .unopened(let close, let position): "`\(close)` at character \(position) closes no glob"
        case .nested(let position): "glob inside a glob at character \(position)"
        case .badRange(let range): "`[\(range)]` is not a range like [1-100], [001-100], [a-z] or [0-100:10]"
        case .reversedRange(let range): "range `[\(range)]` runs backwards"
        case .mixedRange(let range): "range `[\(range)]` mixes kinds; both ends must be numbers or letters of one case"
        case .tooManyURLs(let limit): "the pattern expands to more than \(limit) URLs"
        case .badListItem(let item, let reason): "list item `\(item)` \(reason)"
        case .notHTTP: "the pattern must start with a literal http:// or https://"
        case .badURL(let problem): problem
        }
    }
}

/// Splits a pattern into literal text and globs.
struct URLPatternParser {
    private let characters: [Character]

    init(_ pattern: String) {
        characters = Array(pattern)
    }

    func parse() throws(URLPatternError) -> [URLPattern.Part] {
        var parts: [URLPattern.Part] = []
        var literal = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\" where index + 1 < characters.count:
                literal.append(characters[index + 1])
                index += 2
                continue
            case "[", "{":
                let close: Character = character == "[" ? "]" : "}"
                let end = try closing(close, openedAt: index)
                let body = String(characters[(index + 1)..<end])
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(character == "[" ? try Self.range(body) : .list(Self.items(body)))
                index = end + 1
                continue
            case "]", "}":
                throw .unopened(character, position: index + 1)
            default:
                literal.append(character)
            }
            index += 1
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    private func closing(_ close: Character, openedAt start: Int) throws(URLPatternError) -> Int {
        var index = start + 1
        while index < characters.count {
            switch characters[index] {
            case close: return index
            case "[", "{", "]", "}": throw .nested(position: index + 1)
            default: index += 1
            }
        }
        throw .unclosed(characters[start], position: start + 1)
    }

    private static func items(_ body: String) -> [String] {
        body.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    private static func range(_ body: String) throws(URLPatternError) -> URLPattern.Part {
        let stepSplit = body.split(separator: ":", omittingEmptySubsequences: false)
        let bounds = stepSplit[0].split(separator: "-", omittingEmptySubsequences: false)
        guard stepSplit.count <= 2, bounds.count == 2, !bounds[0].isEmpty, !bounds[1].isEmpty else {
            throw .badRange(body)
        }
        var step = 1
        if stepSplit.count == 2 {
            guard let parsed = Int(stepSplit[1]), parsed > 0 else { throw .badRange(body) }
            step = parsed
        }
        let (low, high) = (bounds[0], bounds[1])
        if low.allSatisfy(\.isASCIIDigit) && high.allSatisfy(\.isASCIIDigit) {
            guard let first = Int(low), let last = Int(high) else { throw .tooManyURLs(limit: URLPattern.maxExpansions) }
            guard first <= last else { throw .reversedRange(body) }
            let width = low.count > 1 && low.hasPrefix("0") ? low.count : 0
            // [0-9223372036854775807] holds one value more than an Int counts.
            let (count, overflow) = ((last - first) / step).addingReportingOverflow(1)
            guard !overflow else { throw .tooManyURLs(limit: URLPattern.maxExpansions) }
            return .numbers(start: first, step: step, count: count, width: width)
        }
        if let first = low.singleLetter, let last = high.singleLetter {
            guard first.properties.isLowercase == last.properties.isLowercase else { throw .mixedRange(body) }
            guard first.value <= last.value else { throw .reversedRange(body) }
            // A step past the range yields the first letter only; clamped, it fits the scalar arithmetic.
            return .letters(start: first.value, step: UInt32(clamping: step), count: Int(last.value - first.value) / step + 1)
        }
        let isKnownKind: (Substring) -> Bool = { $0.allSatisfy(\.isASCIIDigit) || $0.singleLetter != nil }
        throw isKnownKind(low) && isKnownKind(high) ? .mixedRange(body) : .badRange(body)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    /// The ASCII letter this text is, if it is exactly one.
    fileprivate var singleLetter: Unicode.Scalar? {
        guard count == 1, let scalar = unicodeScalars.first, scalar.isASCII, scalar.properties.isAlphabetic else {
            return nil
        }
        return scalar
    }
}
