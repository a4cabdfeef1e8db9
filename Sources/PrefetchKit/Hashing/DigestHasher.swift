internal import CCrypto

/// The digest algorithms a body can be checked against, strongest last.
package enum DigestAlgorithm: Int, Sendable, Comparable, CaseIterable {
    case md5, sha256, sha512

    /// Bytes in a digest.
    package var length: Int {
        switch self {
        case .md5: 16
        case .sha256: 32
        case .sha512: 64
        }
    }

    /// The name messages give it, as `url_file` lines spell it.
    package var name: String {
        switch self {
        case .md5: "md5"
        case .sha256: "sha256"
        case .sha512: "sha512"
        }
    }

    fileprivate var evp: OpaquePointer? {
        switch self {
        case .md5: EVP_md5()
        case .sha256: EVP_sha256()
        case .sha512: EVP_sha512()
        }
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An incremental digest through libcrypto's EVP interface, fed as bytes arrive. Owns one
/// `EVP_MD_CTX`. Whatever the bytes' source, the digest is of everything fed in order, so a body
/// that continued an earlier partial file would feed that file's bytes first.
final class DigestHasher {
    let algorithm: DigestAlgorithm
    private let context: OpaquePointer

    init(_ algorithm: DigestAlgorithm) {
        self.algorithm = algorithm
        // Only a failed malloc makes these fail; that is not recoverable here.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, algorithm.evp, nil) == 1 else {
            fatalError("libcrypto could not set up \(algorithm.name)")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else {
            fatalError("libcrypto could not update \(algorithm.name)")
        }
    }

    /// The digest of everything fed so far; the hasher is spent afterwards.
    func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else {
            fatalError("libcrypto could not finish \(algorithm.name)")
        }
        return Array(digest.prefix(Int(length)))
    }
}

@available(*, unavailable) extension DigestHasher: Sendable {}
