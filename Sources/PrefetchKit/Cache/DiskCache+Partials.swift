import Foundation

/// Bodies a run received part way and keeps for a later run to resume: each is a named file in
/// `<cache>/tmp/` (`<sha256(key)>.resume`, a name the `.part` sweep leaves alone) with a row in the
/// index's `partials` table giving the bytes it holds for certain and the validator its `If-Range`
/// sends. Never an entry: nothing looks it up as one, no total or stat counts it, and it reaches a
/// final name only whole, by the same commit as any body.
extension DiskCache {
    /// The suffix of a partial body's file.
    static let partialSuffix = ".resume"

    /// Where `key`'s partial body is kept, relative to `root`.
    func partialRelativePath(forKey key: String) -> String {
        "tmp/" + CacheDigest.sha256Hex(key) + Self.partialSuffix
    }

    /// Keeps `body`, whose first `size` bytes are a cut body of `key`, for a later run: the file is
    /// fsynced, put under its partial name (over an older partial of the key), the folder fsynced,
    /// and only then the row written. A crash before the row leaves a file no run uses (a clean
    /// removes it as a temp file); after it, a partial whose recorded bytes are on disk.
    package func keepPartial(_ body: TempFile, key: String, url: String, size: Int64, validator: ResumePoint.Validator,
                             keepFor maxAge: Duration, now: Date = Date()) throws(CacheError) {
        let relativePath = partialRelativePath(forKey: key)
        let path = root + "/" + relativePath
        try body.sync(durable: true)
        let failure = body.path == path ? 0 : body.place(at: path, aside: makeTempPath)
        guard failure == 0 else { throw .fileSystem(operation: "keep the partial body", path: path, errno: failure) }
        try Self.syncDirectory(tempFolder)
        var etag: String?
        var lastModified: String?
        switch validator {
        case .etag(let value): etag = value
        case .lastModified(let value): lastModified = value
        }
        try index.recordPartial(PartialRecord(
            key: key, relativePath: relativePath, url: url, size: size, etag: etag, lastModified: lastModified,
            recordedAt: now, expiresAt: now.addingTimeInterval(maxAge.seconds)))
    }

    /// The partial kept for `key`, opened to be written on, with its record; nil when there is none.
    /// One that has expired, has no validator, or whose file is gone or shorter than recorded is
    /// removed, file and row, and nil returned.
    package func openPartial(forKey key: String, now: Date = Date()) throws(CacheError) -> (body: TempFile, record: PartialRecord)? {
        guard let record = try index.partial(forKey: key) else { return nil }
        let path = root + "/" + record.relativePath
        var info = stat()
        guard record.expiresAt > now, record.etag != nil || record.lastModified != nil,
              stat(path, &info) == 0, Int64(info.st_size) >= record.size,
              let body = try? TempFile(partialAt: path)
        else {
            try dropPartial(record)
            return nil
        }
        return (body, record)
    }

    /// Removes a partial: its file, then its row.
    package func dropPartial(_ record: PartialRecord) throws(CacheError) {
        let path = root + "/" + record.relativePath
        guard unlink(path) == 0 || errno == ENOENT else { throw .fromErrno("remove", path) }
        try index.deletePartial(forKey: record.key)
    }

    /// Removes `key`'s partial, if it has one.
    package func dropPartial(forKey key: String) throws(CacheError) {
        if let record = try index.partial(forKey: key) { try dropPartial(record) }
    }
}
