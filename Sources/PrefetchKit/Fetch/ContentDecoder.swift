import Foundation

/// Undoes the content codings a response's `Content-Encoding` lists, in the reverse of the order they
/// were applied (`gzip, br` is decoded as br, then gzip), as the body streams in. Knows `gzip` (and
/// `x-gzip`), `deflate` and `br`; `identity` is no coding. Anything else, or more than five codings
/// (libcurl's own limit), is refused before any byte is stored.
package final class ContentDecoder {
    package static let maxCodings = 5
    /// In decoding order: the last coding applied first.
    private let stages: [any StreamDecoder]

    /// The decoder for `Content-Encoding` values (each header line's), or nil when they name no coding.
    package static func make(contentEncoding values: [String]) throws(FetchError) -> ContentDecoder? {
        let codings = values.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty else { return nil }
        guard codings.count <= maxCodings else {
            throw .unsupportedEncoding("Content-Encoding lists \(codings.count) codings; at most \(maxCodings) are decoded")
        }
        var stages: [any StreamDecoder] = []
        for coding in codings.reversed() {
            switch coding {
            case "gzip", "x-gzip": stages.append(InflateDecoder(.gzip))
            case "deflate": stages.append(InflateDecoder(.deflate))
            case "br": stages.append(BrotliDecoder())
            default:
                let shown = String(coding.unicodeScalars.prefix(40).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
                throw .unsupportedEncoding("the body is in the content coding `\(shown)`, which prefetchd does not decode "
                                           + "(it decodes gzip, deflate and br)")
            }
        }
        return ContentDecoder(stages: stages)
    }

    private init(stages: [any StreamDecoder]) {
        self.stages = stages
    }

    /// Decodes the next encoded bytes through every stage, handing the fully decoded pieces to `sink`;
    /// the first failure, a stage's or the sink's.
    package func decode(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> FetchError?) -> FetchError? {
        decode(input, stage: 0, into: sink)
    }

    private func decode(_ input: UnsafeRawBufferPointer, stage: Int,
                        into sink: (UnsafeRawBufferPointer) -> FetchError?) -> FetchError? {
        guard stage < stages.count else { return sink(input) }
        return stages[stage].decode(input) { decode($0, stage: stage + 1, into: sink) }
    }

    /// Nil when every stage's stream ended whole (or the body was empty).
    package func finish() -> FetchError? {
        stages.lazy.compactMap { $0.finish() }.first
    }
}

@available(*, unavailable) extension ContentDecoder: Sendable {}
