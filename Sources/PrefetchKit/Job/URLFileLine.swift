/// One entry of a URL file: a URL, and after blanks an optional digest the stored body must have,
/// `sha256:HEX` (64 hex digits) or `sha512:HEX` (128), over the body as stored (after any content
/// decoding). Columns are 1-based, for diagnostics.
struct URLFileLine {
    let url: String
    let column: Int
    /// What follows the URL and its blanks, as written, and where it starts.
    let digest: (text: String, column: Int)?

    /// The algorithms a line may name, by their spelling there.
    private static let algorithms: [String: DigestAlgorithm] = ["sha256": .sha256, "sha512": .sha512]

    /// The digest the line expects, nil when it gives none, or why its second column is not one.
    func expectedDigest() throws(ValueProblem) -> ExpectedDigest? {
        guard let text = digest?.text else { return nil }
        let shown = text.count > 40 ? "\(text.prefix(40))..." : text
        guard !text.contains(where: { $0 == " " || $0 == "\t" }) else {
            throw ValueProblem(message: "a URL file line holds a URL and at most one digest after it; found more: `\(shown)`")
        }
        guard let colon = text.firstIndex(of: ":"),
              let algorithm = Self.algorithms[text[..<colon].lowercased()] else {
            throw ValueProblem(message: "`\(shown)` is not a digest: expected sha256:HEX or sha512:HEX after the URL "
                               + "(a space within a URL is written %20)")
        }
        let hex = Array(text[text.index(after: colon)...].utf8)
        if let bad = hex.firstIndex(where: { $0.hexDigitValue == nil }) {
            throw ValueProblem(message: "the \(algorithm.name) digest `\(shown)` has a character that is not a hex digit "
                               + "at character \(algorithm.name.count + 2 + bad)")
        }
        guard hex.count == algorithm.length * 2 else {
            throw ValueProblem(message: "the \(algorithm.name) digest `\(shown)` has \(hex.count) hex digits, "
                               + "not \(algorithm.length * 2)")
        }
        let bytes = stride(from: 0, to: hex.count, by: 2).map { hex[$0].hexDigitValue! << 4 | hex[$0 + 1].hexDigitValue! }
        return ExpectedDigest(algorithm, bytes, from: .urlFile)
    }
}
