/// A digest a body must have: sent by the server in a header, over the bytes as they arrive (the
/// encoded representation), or given by a `url_file` line, over the bytes as stored.
package struct ExpectedDigest: Sendable, Equatable {
    /// Where the expected value came from: a response header or the job's URL file.
    package enum Source: String, Sendable {
        case contentMD5 = "Content-MD5"
        case digest = "Digest"
        case reprDigest = "Repr-Digest"
        case urlFile = "url_file"
    }

    package let algorithm: DigestAlgorithm
    package let bytes: [UInt8]
    package let source: Source

    package init(_ algorithm: DigestAlgorithm, _ bytes: [UInt8], from source: Source) {
        self.algorithm = algorithm
        self.bytes = bytes
        self.source = source
    }

    /// The failure for a body whose digest came out as `actual`, or nil when it matches.
    func mismatch(_ actual: [UInt8]) -> FetchError? {
        guard actual != bytes else { return nil }
        let place = source == .urlFile ? "the url_file line" : "the \(source.rawValue) header"
        return .digestMismatch("\(place) gives \(algorithm.name) \(CacheDigest.hex(bytes)), the body has \(CacheDigest.hex(actual))")
    }
}

/// An expected digest and the hasher that computes the body's, fed as the bytes go by.
final class DigestCheck {
    let expected: ExpectedDigest
    private let hasher: DigestHasher

    init(_ expected: ExpectedDigest) {
        self.expected = expected
        hasher = DigestHasher(expected.algorithm)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bytes)
    }

    /// The failure when the bytes fed do not have the expected digest; the check is spent afterwards.
    func verdict() -> FetchError? {
        expected.mismatch(hasher.finalize())
    }
}

@available(*, unavailable) extension DigestCheck: Sendable {}
