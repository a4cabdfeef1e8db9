import Foundation

/// A source entry's body made ready in the destination cache, under a temp name in its `tmp/` (which a
/// clean sweeps when a kill leaves one there): a hard link to the source's file when both are on one
/// file system, a copy otherwise. Never written through: the source's file is only read or linked.
/// Removed when dropped unplaced.
final class StagedBody {
    let path: String
    /// A hard link (the source's own file data), not a copy.
    let linked: Bool
    private var placed = false

    /// Links `source` into `cache`, or copies it when `link` is false or the file system refuses a link
    /// (another file system, or one without hard links).
    init(source: String, in cache: DiskCache, link: Bool) throws(CacheError) {
        let temp = cache.makeTempPath()
        path = temp
        if link {
            if Glibc.link(source, temp) == 0 {
                linked = true
                return
            }
            guard [EXDEV, EPERM, EMLINK, EOPNOTSUPP].contains(errno) else { throw .fromErrno("link", source) }
        }
        linked = false
        try Self.copy(source, to: temp, durable: cache.durable)
    }

    deinit {
        if !placed { unlink(path) }
    }

    /// Renames the body to `finalPath`, replacing what is there; the caller holds the index's write lock.
    func place(at finalPath: String) throws(CacheError) {
        if rename(path, finalPath) != 0 {
            guard errno == ENOENT else { throw .fromErrno("place", finalPath) }
            // The fan-out folder was removed behind our back: make it again, once.
            try DiskCache.makeDirectory((finalPath as NSString).deletingLastPathComponent)
            guard rename(path, finalPath) == 0 else { throw .fromErrno("place", finalPath) }
        }
        placed = true
    }

    /// Copies the file `source` to the new file `target`, fsynced when `durable`.
    private static func copy(_ source: String, to target: String, durable: Bool) throws(CacheError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .fromErrno("open", source) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw .fromErrno("create", target) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let count = read(input, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .fromErrno("read", source)
            }
            if count == 0 { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw .fromErrno("write", target)
                }
                offset += written
            }
        }
        if durable, fsync(output) != 0 { throw .fromErrno("fsync", target) }
    }
}
