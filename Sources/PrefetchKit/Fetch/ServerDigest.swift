import Foundation

/// The digest a response's headers give of its body as sent (before any content decoding is undone):
/// `Content-MD5` (RFC 1864, base64), `Digest` (RFC 3230: `sha-256=BASE64`, also `sha-512` and `md5`)
/// and `Repr-Digest` (RFC 9530: `sha-256=:BASE64:`, a structured-field byte sequence; also `sha-512`).
/// Of the values given, the strongest algorithm is checked, and for one algorithm the newest header.
///
/// A value that is not what its algorithm needs (not base64, another length, not a byte sequence) says
/// nothing about the body: it is left out with a warning, and the others still count. Algorithms not
/// named here (`sha`, `unixsum`, ...) are left out silently.
package enum ServerDigest {
    package struct Choice: Equatable {
        package var expected: ExpectedDigest?
        /// One line for each malformed value left out.
        package var warnings: [String] = []
    }

    /// The values of each header, one per header line.
    package static func choose(contentMD5: [String], digest: [String], reprDigest: [String]) -> Choice {
        var choice = Choice()
        // Most responses give none: then there is nothing to weigh.
        guard !contentMD5.isEmpty || !digest.isEmpty || !reprDigest.isEmpty else { return choice }
        var candidates: [ExpectedDigest] = []
        func consider(_ algorithm: DigestAlgorithm, _ text: String, _ source: ExpectedDigest.Source) {
            if let bytes = base64(text), bytes.count == algorithm.length {
                candidates.append(ExpectedDigest(algorithm, bytes, from: source))
            } else {
                choice.warnings.append("ignored the \(source.rawValue) header's \(algorithm.name) value: "
                                       + "it is not the base64 of \(algorithm.length) bytes")
            }
        }
        for value in contentMD5 {
            consider(.md5, value.trimmingCharacters(in: .whitespaces), .contentMD5)
        }
        for (name, value) in members(digest) {
            guard let algorithm = algorithms[name] else { continue }
            consider(algorithm, value, .digest)
        }
        for (name, value) in members(reprDigest) {
            guard let algorithm = algorithms[name], algorithm != .md5 else { continue }
            // A byte sequence, `:BASE64:`, perhaps with parameters after it.
            let item = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            let inner = item.count >= 2 && item.hasPrefix(":") && item.hasSuffix(":") ? String(item.dropFirst().dropLast()) : "!"
            consider(algorithm, inner, .reprDigest)
        }
        choice.expected = candidates.max { ($0.algorithm, rank[$0.source] ?? 0) < ($1.algorithm, rank[$1.source] ?? 0) }
        return choice
    }

    private static let algorithms: [String: DigestAlgorithm] = ["md5": .md5, "sha-256": .sha256, "sha-512": .sha512]
    /// For one algorithm, the newer header wins.
    private static let rank: [ExpectedDigest.Source: Int] = [.contentMD5: 0, .digest: 1, .reprDigest: 2]

    /// The `name=value` members of comma-separated header values, names in lower case.
    private static func members(_ values: [String]) -> [(String, String)] {
        values.flatMap { $0.split(separator: ",") }.compactMap { member in
            guard let equals = member.firstIndex(of: "=") else { return nil }
            let name = member[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            return (name, member[member.index(after: equals)...].trimmingCharacters(in: .whitespaces))
        }
    }

    /// Standard base64, its padding optional.
    private static func base64(_ text: String) -> [UInt8]? {
        let padded = text.count % 4 == 0 ? text : text + String(repeating: "=", count: 4 - text.count % 4)
        return Data(base64Encoded: padded).map { Array($0) }
    }
}
