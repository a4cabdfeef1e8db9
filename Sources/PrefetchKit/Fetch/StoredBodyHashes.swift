/// What is computed over a body's bytes as they are stored: its XXH3 checksum, when the request asks
/// for one, and the digest a `url_file` line expects, when it gives one. Fed on the network thread and
/// finished on the closer thread that ends the body; one thread at a time.
final class StoredBodyHashes {
    private let checksum: ContentHasher?
    private let expected: DigestCheck?

    init(checksum: Bool, expected: ExpectedDigest?) {
        self.checksum = checksum ? ContentHasher() : nil
        self.expected = expected.map(DigestCheck.init)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        checksum?.update(bytes)
        expected?.update(bytes)
    }

    /// The checksum (nil when none was asked for), or the failure when the body is not the one expected.
    func finalize() -> Result<String?, FetchError> {
        if let mismatch = expected?.verdict() {
            return .failure(mismatch)
        }
        return .success(checksum?.finalize())
    }
}

@available(*, unavailable) extension StoredBodyHashes: Sendable {}
