/// A curl-style URL glob: `[1-100]`, zero-padded `[001-100]`, letters `[a-z]`, an optional step
/// `[0-100:10]`, and lists `{a,b,c}`, any number of them in one pattern. A backslash makes the next
/// character literal.
///
/// Expansion follows curl: the leftmost glob varies slowest. URLs are produced one at a time and the
/// count is the product of the glob sizes, so a pattern of millions of URLs costs no memory.
package struct URLPattern: Sequence, Sendable, Equatable {
    /// Most URLs one pattern may expand to.
    package static let maxExpansions = 100_000_000

    package let pattern: String
    /// How many URLs the pattern expands to.
    package let count: Int
    let parts: [Part]

    enum Part: Sendable, Equatable {
        case literal(String)
        /// `start + index * step`, left-padded with zeros to `width` digits.
        case numbers(start: Int, step: Int, count: Int, width: Int)
        /// Unicode scalar values `start + index * step`.
        case letters(start: UInt32, step: UInt32, count: Int)
        case list([String])

        var size: Int {
            switch self {
            case .literal: 1
            case .numbers(_, _, let count, _), .letters(_, _, let count): count
            case .list(let items): items.count
            }
        }

        func value(at index: Int) -> String {
            switch self {
            case .literal(let text):
                return text
            case .numbers(let start, let step, _, let width):
                let digits = String(start + index * step)
                return digits.count < width ? String(repeating: "0", count: width - digits.count) + digits : digits
            case .letters(let start, let step, _):
                return String(Character(Unicode.Scalar(start + UInt32(index) * step)!))
            case .list(let items):
                return items[index]
            }
        }
    }

    /// Parses and checks `pattern`: balanced globs, forward ranges of one kind, at most
    /// `maxExpansions` URLs, and an absolute http(s) URL with a host whatever the globs yield.
    package init(_ pattern: String) throws(URLPatternError) {
        self.pattern = pattern
        parts = try URLPatternParser(pattern).parse()
        var total = 1
        for part in parts {
            let (product, overflow) = total.multipliedReportingOverflow(by: part.size)
            guard !overflow, product <= Self.maxExpansions else {
                throw .tooManyURLs(limit: Self.maxExpansions)
            }
            total = product
        }
        count = total
        try checkURLShape()
    }

    package func makeIterator() -> Iterator {
        Iterator(parts: parts)
    }

    /// Walks the globs like an odometer, the rightmost glob turning fastest.
    package struct Iterator: IteratorProtocol {
        private let parts: [Part]
        private var indices: [Int]
        private var exhausted: Bool

        init(parts: [Part]) {
            self.parts = parts
            self.indices = Array(repeating: 0, count: parts.count)
            self.exhausted = false
        }

        package mutating func next() -> String? {
            guard !exhausted else { return nil }
            var url = ""
            for (part, index) in zip(parts, indices) {
                url += part.value(at: index)
            }
            advance()
            return url
        }

        private mutating func advance() {
            var position = parts.count - 1
            while position >= 0 {
                indices[position] += 1
                if indices[position] < parts[position].size { return }
                indices[position] = 0
                position -= 1
            }
            exhausted = true
        }
    }

    /// The scheme must be literal and a glob inside the host may only yield host characters; the
    /// first expansion, each glob's last value and every list item must pass the URL check.
    private func checkURLShape() throws(URLPatternError) {
        guard case .literal(let head)? = parts.first,
              let schemeEnd = head.firstRange(of: "://"),
              ["http", "https"].contains(head[..<schemeEnd.lowerBound].lowercased())
        else {
            throw .notHTTP
        }
        var inHost = true
        for (offset, part) in parts.enumerated() {
            switch part {
            case .literal(let text):
                let afterScheme = offset == 0 ? String(text[schemeEnd.upperBound...]) : text
                if afterScheme.contains(where: { "/?#".contains($0) }) { inHost = false }
            case .list(let items):
                for item in items {
                    if let bad = item.first(where: { $0.isWhitespace || ($0.asciiValue ?? 0x20) < 0x20 }) {
                        throw .badListItem(item, reason: "contains \(bad == " " ? "a space" : "a control or space character")")
                    }
                    if inHost && (item.isEmpty || !item.allSatisfy { $0.isLetter || $0.isNumber || "-._".contains($0) }) {
                        throw .badListItem(item, reason: "is not a host name part")
                    }
                }
            case .numbers, .letters:
                continue
            }
        }
        // The first expansion, and beside it each glob's last value and every list item (a port
        // range can pass 65535 at its end, a list hold one bad item), as libcurl would parse them.
        let first = parts.map { $0.value(at: 0) }
        var checked = [first.joined()]
        for (offset, part) in parts.enumerated() where part.size > 1 {
            let indexes: [Int] = if case .list = part { Array(1..<part.size) } else { [part.size - 1] }
            for index in indexes {
                var values = first
                values[offset] = part.value(at: index)
                checked.append(values.joined())
            }
        }
        for url in checked {
            if let problem = URLCheck.problem(url) { throw .badURL(problem) }
        }
    }
}
