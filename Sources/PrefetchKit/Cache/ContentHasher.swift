internal import CCrypto
import Foundation

/// An incremental SHA-256 over a body as it streams in; the downloader feeds it chunk by chunk.
/// Owns one `EVP_MD_CTX`. Checksums are written `sha256:<hex>` so the algorithm can change later.
public final class ContentHasher {
    private let context: OpaquePointer
    private var finished = false

    public init() {
        // EVP_MD_CTX_new only fails when malloc does; that is not recoverable here.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto could not set up SHA-256")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds `bytes` to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "ContentHasher updated after finalize")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else {
            fatalError("libcrypto could not update SHA-256")
        }
    }

    public func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The checksum of everything fed so far, as `sha256:<lowercase hex>`; the hasher is spent afterwards.
    public func finalize() -> String {
        precondition(!finished, "ContentHasher finalized twice")
        finished = true
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else {
            fatalError("libcrypto could not finish SHA-256")
        }
        return Self.prefix + CacheDigest.hex(digest.prefix(Int(length)))
    }

    static let prefix = "sha256:"

    /// The checksum of a whole file, read in 64 KiB chunks.
    static func checksum(ofFileAt path: String) throws(CacheError) -> String {
        try checksum(ofFileAt: path, sync: false).checksum
    }

    /// The checksum and byte count of a whole file, read in 64 KiB chunks; `sync` fsyncs it first.
    static func checksum(ofFileAt path: String, sync: Bool) throws(CacheError) -> (checksum: String, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .fromErrno("open", path) }
        defer { close(fd) }
        if sync {
            guard fsync(fd) == 0 else { throw .fromErrno("fsync", path) }
        }
        let hasher = ContentHasher()
        var size: Int64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .fromErrno("read", path)
            }
            if count == 0 { break }
            size += Int64(count)
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return (hasher.finalize(), size)
    }
}

@available(*, unavailable)
extension ContentHasher: Sendable {}

/// One-shot digests used for file names.
enum CacheDigest {
    static func sha256Hex(_ text: String) -> String { digestHex(text, EVP_sha256()) }

    static func md5Hex(_ text: String) -> String { digestHex(text, EVP_md5()) }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func digestHex(_ text: String, _ md: OpaquePointer?) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        var utf8 = Array(text.utf8)
        guard EVP_Digest(&utf8, utf8.count, &digest, &length, md, nil) == 1 else {
            fatalError("libcrypto could not compute a digest")
        }
        return hex(digest.prefix(Int(length)))
    }
}
