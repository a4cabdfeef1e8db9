internal import CXXHash
import Foundation

/// An incremental XXH3-128 checksum of a body as it streams in; the downloader feeds it each piece
/// as it arrives, on the network thread, and finishes it on a closer thread. Owns one `XXH3_state_t`.
/// Checksums are written `xxh3:<32 hex>`.
///
/// The checksum only has to catch damage (a torn write, a flipped block), not an adversary, and
/// XXH3 does that several times faster than SHA-256 (bench/RESULTS.md, "Design figures"), which
/// matters on the network thread. SHA-256 stays for the file names.
package final class ContentHasher {
    private let state: OpaquePointer
    private var finished = false

    package init() {
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
    package func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "ContentHasher updated after finalize")
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard XXH3_128bits_update(state, base, bytes.count) == XXH_OK else {
            fatalError("libxxhash could not update XXH3")
        }
    }

    package func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The checksum of everything fed so far, as `xxh3:<lowercase hex>`; the hasher is spent afterwards.
    package func finalize() -> String {
        precondition(!finished, "ContentHasher finalized twice")
        finished = true
        var canonical = XXH128_canonical_t()
        XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state))
        var checksum = Self.prefix
        withUnsafeBytes(of: canonical.digest) { checksum += CacheDigest.hex($0) }
        return checksum
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
