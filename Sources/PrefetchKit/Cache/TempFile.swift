import Foundation

/// A body being written into `<cache>/tmp/`, on the cache's file system, hashed as it streams.
/// Commit it with `DiskCache.commit(_:as:)`; dropped uncommitted, it is closed and removed.
/// Owned by one writer at a time (not Sendable); hand it over with `sending`.
public final class TempFile {
    /// Absolute path of the temp file.
    public let path: String
    /// Bytes written so far.
    public private(set) var byteCount: Int64 = 0
    private(set) var descriptor: Int32
    private let hasher = ContentHasher()
    private var committed = false

    /// The suffix the sweeper recognises temp files by.
    static let suffix = ".part"

    init(path: String) throws(CacheError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .fromErrno("create", path) }
        self.path = path
        self.descriptor = fd
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(path) }
    }

    /// Appends `bytes` to the file and to the checksum.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(CacheError) {
        guard descriptor >= 0 else { throw .tempFileClosed(path: path) }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .fromErrno("write", path)
            }
            offset += written
        }
        hasher.update(bytes)
        byteCount += Int64(bytes.count)
    }

    public func write(_ data: Data) throws(CacheError) {
        // Data.withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        let result = data.withUnsafeBytes { bytes in Result { () throws(CacheError) in try write(bytes) } }
        try result.get()
    }

    /// Closes the file (after an fsync when `durable`) and returns its checksum; used once by commit.
    func finish(durable: Bool) throws(CacheError) -> String {
        guard descriptor >= 0 else { throw .tempFileClosed(path: path) }
        defer {
            close(descriptor)
            descriptor = -1
        }
        if durable {
            guard fsync(descriptor) == 0 else { throw CacheError.fromErrno("fsync", path) }
        }
        return hasher.finalize()
    }

    /// Marks the file renamed away, so deinit leaves the final file alone.
    func markCommitted() {
        committed = true
    }
}
