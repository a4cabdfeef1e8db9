import Foundation

/// How `merge` puts a source entry's file under its final name in the destination; the source's
/// file is only read or linked, never written. Called with the index's write lock held, as a store
/// places its body.
///
/// A hard link is made at the final name at once: a link shows the whole file or nothing, so no
/// partial file is ever under a final name. When the name is taken (a newer fetch replacing an older
/// one) the link is made under a temp name in `tmp/` and renamed over it, so a reader sees the old
/// body or the new one. A copy (with `--copy`, or where the file system refuses a link: another file
/// system, or none of hard links) is written under a temp name in `tmp/` and renamed in. A kill
/// leaves at most a temp name there, which a clean sweeps.
enum BodyPlacement {
    /// Places `source` at `finalPath` in `cache`; true when it linked, false when it copied.
    static func place(_ source: String, at finalPath: String, in cache: DiskCache, link: Bool) throws(CacheError) -> Bool {
        if link {
            switch Glibc.link(source, finalPath) == 0 ? 0 : errno {
            case 0:
                return true
            case ENOENT:
                // The fan-out folder was removed behind our back (or the source's file went): make it again, once.
                try DiskCache.makeDirectory((finalPath as NSString).deletingLastPathComponent)
                guard Glibc.link(source, finalPath) == 0 else { throw .fromErrno("link", finalPath) }
                return true
            case EEXIST:
                let aside = cache.makeTempPath()
                if Glibc.link(source, aside) == 0 {
                    try rename(aside, over: finalPath)
                    return true
                }
                guard refusesLinks(errno) else { throw .fromErrno("link", aside) }
            case let failure where refusesLinks(failure):
                break
            default:
                throw .fromErrno("link", finalPath)
            }
        }
        let aside = cache.makeTempPath()
        try copy(source, to: aside, durable: cache.durable)
        try rename(aside, over: finalPath)
        return false
    }

    /// The errors of a file system that cannot link these two paths.
    private static func refusesLinks(_ failure: Int32) -> Bool {
        [EXDEV, EPERM, EMLINK, EOPNOTSUPP].contains(failure)
    }

    /// Renames the temp file `aside` to `finalPath`, making the fan-out folder again when it was
    /// removed; the temp file goes when it cannot be renamed.
    private static func rename(_ aside: String, over finalPath: String) throws(CacheError) {
        if Glibc.rename(aside, finalPath) == 0 { return }
        var failure = errno
        if failure == ENOENT {
            try? DiskCache.makeDirectory((finalPath as NSString).deletingLastPathComponent)
            failure = Glibc.rename(aside, finalPath) == 0 ? 0 : errno
        }
        guard failure != 0 else { return }
        unlink(aside)
        throw .fileSystem(operation: "place", path: finalPath, errno: failure)
    }

    /// Copies the file `source` to the new file `target`, fsynced when `durable`; no file is left at
    /// `target` when it fails.
    private static func copy(_ source: String, to target: String, durable: Bool) throws(CacheError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .fromErrno("open", source) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw .fromErrno("create", target) }
        var done = false
        defer {
            close(output)
            if !done { unlink(target) }
        }
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
        done = true
    }
}
