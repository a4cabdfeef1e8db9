internal import CCrypto
internal import CXXHash
import Foundation

/// An incremental XXH3-128 checksum of a body as it streams in; the downloader feeds it chunk by
/// chunk on the network thread. Owns one `XXH3_state_t`. Checksums are written `xxh3:<32 hex>`.
///
/// The checksum only has to catch damage (a torn write, a flipped block), not an adversary, and
/// XXH3 does that about eight times faster than SHA-256 (measured: 13 GB/s against 1.5 GB/s with
/// SHA-NI), which matters on the network thread. SHA-256 stays for the file names.
public final class ContentHasher {
    private let state: OpaquePointer
    private var finished = false

    public init() {
        // XXH3_createState only fails when malloc does; that is not recoverable here.
        guard let state = XXH3_createState(), XXH3_128bits_reset(state) == XXH_OK else {
            fatalError("libxxhash could not set up XXH3")
        }
        self.state = state
    }

    deinit {
        XXH3_freeState(state)
    }

    /// Adds `bytes` to the checksum.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "ContentHasher updated after finalize")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard XXH3_128bits_update(state, base, bytes.count) == XXH_OK else {
            fatalError("libxxhash could not update XXH3")
        }
    }

    public func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The checksum of everything fed so far, as `xxh3:<lowercase hex>`; the hasher is spent afterwards.
    public func finalize() -> String {
        precondition(!finished, "ContentHasher finalized twice")
        finished = true
        var canonical = XXH128_canonical_t()
        XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state))
        return Self.prefix + CacheDigest.hex(withUnsafeBytes(of: canonical.digest) { Array($0) })
    }

    static let prefix = "xxh3:"

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
