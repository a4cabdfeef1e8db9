import Foundation

/// Something `CacheChecker` found wrong between the index and the files.
package enum CacheProblem: Sendable, Equatable, CustomStringConvertible {
    /// An index row whose file is gone.
    case missingFile(relativePath: String)
    /// A file under a final name that the index does not know.
    case orphanFile(relativePath: String)
    case sizeMismatch(relativePath: String, expected: Int64, actual: Int64)
    case checksumMismatch(relativePath: String, expected: String, actual: String)
    /// The injected validator refused the file.
    case invalidFile(relativePath: String, reason: String)
    /// What is under an entry's name cannot be read as its file: a folder, or a file that fails to read.
    case unreadableFile(relativePath: String, reason: String)
    /// A file this user may not open (EACCES, EPERM): nothing is known against it, so it is left as it is.
    case forbiddenFile(relativePath: String, reason: String)
    /// A temp file older than the longest possible transfer (path relative to the cache folder).
    case staleTemp(relativePath: String)
    /// A partial body's row (`DiskCache+Partials`) whose file is gone; the path is the row's.
    case lostPartial(relativePath: String)
    /// One of the cache's own folders is a symbolic link (`DiskCache+Folders`).
    case linkedFolder(relativePath: String, what: String)
    /// The index's running totals (what `stats` and the size cap read) disagree with its rows.
    case totalsMismatch(keptEntries: Int, keptBytes: Int64, rowEntries: Int, rowBytes: Int64)
    /// The index file is damaged inside (`CacheIndex.damage`): its rows cannot be trusted or read, so
    /// nothing else is checked against them until it is made again.
    case damagedIndex(reason: String)

    package var relativePath: String {
        switch self {
        case .missingFile(let path), .orphanFile(let path), .sizeMismatch(let path, _, _),
            .checksumMismatch(let path, _, _), .invalidFile(let path, _), .unreadableFile(let path, _), .forbiddenFile(let path, _), .staleTemp(let path),
            .linkedFolder(let path, _), .lostPartial(let path):
            path
        case .totalsMismatch, .damagedIndex: "index.sqlite"
        }
    }

    package var description: String {
        switch self {
        case .missingFile(let path): "\(path): indexed but the file is missing."
        case .orphanFile(let path): "\(path): file is not in the index."
        case .sizeMismatch(let path, let expected, let actual): "\(path): \(actual) bytes, index says \(expected)."
        case .checksumMismatch(let path, _, _): "\(path): content does not match the indexed checksum."
        case .invalidFile(let path, let reason): "\(path): \(reason)"
        case .unreadableFile(let path, let reason): "\(path): cannot be read as the entry's file: \(reason)"
        case .forbiddenFile(let path, let reason): "\(path): \(reason); left as it is (--repair removes only what it can judge)."
        case .staleTemp(let path): "\(path): abandoned temp file."
        case .lostPartial(let path): "\(path): a partial body the index records is missing."
        case .linkedFolder(let path, let what): "\(path): the cache's own folder is \(what); nothing is read or written through it."
        case .totalsMismatch(let keptEntries, let keptBytes, let rowEntries, let rowBytes):
            "index.sqlite: its running totals (\(counted(keptEntries, "entry", plural: "entries")), \(counted(Int(keptBytes), "byte"))) "
                + "disagree with its rows (\(counted(rowEntries, "entry", plural: "entries")), \(counted(Int(rowBytes), "byte"))); "
                + "stats and the size cap read the totals."
        case .damagedIndex(let reason):
            "index.sqlite: damaged (\(reason)); --repair sets it aside and makes it again from the files, losing its URLs, "
                + "sets, variants' links to their originals, failure ledger and run history."
        }
    }
}

/// The fsck engine: compares the index with the files, and repairs what it finds.
package struct CacheChecker: Sendable {
    package let cache: DiskCache
    /// Temp files older than this are abandoned (longer than any transfer can take).
    package let staleTempAge: TimeInterval

    package init(_ cache: DiskCache, staleTempAge: TimeInterval = 3600) {
        self.cache = cache
        self.staleTempAge = staleTempAge
    }

    /// How long a file without a row is given for another process's batch to record it (a run
    /// commits its open batch every 0.25 s).
    static let batchGrace: TimeInterval = 1

    /// Every problem in the cache. `validate` gets a file's absolute path and returns why it is not a
    /// good image, or nil; it runs on every indexed file whose size and checksum match and that was
    /// stored as an image (its row names a format), and on orphan files that look like images. A row
    /// without a format was stored by a `validate: none` set, which keeps whatever the server sent:
    /// fsck holds it to its size and checksum only, so that `--repair` never deletes what a job
    /// stored on purpose.
    /// A damaged index is the one problem reported: nothing can be checked against its rows.
    package func check(validate: (String) -> String? = { _ in nil }) throws(CacheError) -> [CacheProblem] {
        do {
            if let reason = try cache.index.damage() { return [.damagedIndex(reason: reason)] }
            return try checkAgainstRows(validate: validate)
        } catch where error.isDamagedIndex {
            return [.damagedIndex(reason: String(error.indexFailure.dropLast()))]
        }
    }

    private func checkAgainstRows(validate: (String) -> String?) throws(CacheError) -> [CacheProblem] {
        try cache.flush()
        var problems: [CacheProblem] = cache.linkedFolders().map { .linkedFolder(relativePath: $0.name, what: $0.what) }
            + cache.foldersThatAreFiles().map { .linkedFolder(relativePath: $0, what: "a file, not a folder") }
        var unlisted: [CacheProblem] = []
        var unindexed = Set(try cache.finalFiles { folder, error in unlisted.append(Self.unreadable(folder, error)) })
        problems += unlisted
        // Nothing is read through a folder that is not a real one: its rows are checked once
        // `--repair` has put a real folder there (`FsckCommand` checks again). Nor are the rows of a
        // folder that could not be listed: the folder is the one problem said of them.
        let unreal = Set(problems.map(\.relativePath))
        for entry in try cache.index.allEntries() {
            unindexed.remove(entry.relativePath)
            if unreal.contains(String(entry.relativePath.prefix { $0 != "/" })) { continue }
            if let problem = try problem(with: entry, validate: validate) { problems.append(problem) }
        }
        // A run in another process places a body under its name and commits its row with its batch,
        // a quarter of a second later at most: a file without a row is looked up again after a
        // moment, so that such a run's bodies are not taken for orphans.
        if !unindexed.isEmpty {
            Thread.sleep(forTimeInterval: Self.batchGrace)
            var recorded: [String] = []
            for relativePath in unindexed where try cache.index.stamp(relativePath: relativePath) != nil {
                recorded.append(relativePath)
            }
            unindexed.subtract(recorded)
        }
        // A file under an entry's name was placed by a run, after the check of its set's level. One
        // that is not an image at all came from a `validate: none` set and is indexed as it is.
        for relativePath in unindexed.sorted() {
            let path = cache.root + "/" + relativePath
            let format: ImageFormat?
            do {
                format = try DiskCache.sniffFormat(path)
            } catch {
                problems.append(Self.unreadable(relativePath, error))
                continue
            }
            if format != nil, let reason = validate(path) {
                problems.append(.invalidFile(relativePath: relativePath, reason: reason))
            } else {
                problems.append(.orphanFile(relativePath: relativePath))
            }
        }
        if cache.isRealFolder("tmp") { problems += try staleTemps() }
        if let drift = try cache.index.totalsDrift() { problems.append(drift) }
        return problems
    }

    /// Fixes `problems`: rows without files are dropped, bad files are deleted with their rows,
    /// orphans get rows from the rescan code, stale temps are deleted; totals that disagree with the
    /// rows are computed again from them, after the other repairs. One that cannot be fixed (a file
    /// fsck may not remove) does not stop the others: the first such failure is thrown at the end.
    package func repair(_ problems: [CacheProblem]) throws(CacheError) {
        var failure: CacheError?
        for problem in problems {
            do throws(CacheError) {
                try repair(problem)
            } catch {
                failure = failure ?? error
            }
        }
        try cache.flush()
        if problems.contains(where: { if case .totalsMismatch = $0 { true } else { false } }) {
            try cache.index.recomputeTotals()
        }
        if let failure { throw failure }
    }

    private func repair(_ problem: CacheProblem) throws(CacheError) {
        switch problem {
        case .missingFile(let path):
            try cache.index.deleteEntry(relativePath: path)
            try cache.removeVariants(ofOriginalAt: path)
        case .orphanFile(let path):
            try cache.index.insertIfMissing(try cache.entryForFile(path))
        case .sizeMismatch(let path, _, _), .checksumMismatch(let path, _, _), .invalidFile(let path, _):
            try cache.remove(relativePath: path)
        case .unreadableFile(let path, _):
            // The row goes whatever is there; a file is removed with it, a folder left as it is.
            try cache.index.deleteEntry(relativePath: path)
            let absolute = cache.root + "/" + path
            if !DiskCache.isRealFolder(absolute), unlink(absolute) != 0, errno != ENOENT { throw .fromErrno("remove", absolute) }
        case .staleTemp(let path):
            let absolute = cache.root + "/" + path
            guard unlink(absolute) == 0 || errno == ENOENT else { throw .fromErrno("remove", absolute) }
        case .lostPartial(let path):
            for record in try cache.index.partials() where record.relativePath == path {
                try cache.index.deletePartial(forKey: record.key)
            }
        case .linkedFolder(let path, _):
            try cache.replaceLinkedFolder(path)
        case .totalsMismatch, .damagedIndex, .forbiddenFile:
            break  // the totals after the other repairs; the index by opening the cache again (`DiskCache.open(damaged:)`); a forbidden file not at all
        }
    }

    /// A file that could not be read: forbidden to this user (said, and left), or unreadable.
    private static func unreadable(_ relativePath: String, _ error: CacheError) -> CacheProblem {
        if error.isPermissionDenied { return .forbiddenFile(relativePath: relativePath, reason: String(error.description.dropLast())) }
        return .unreadableFile(relativePath: relativePath, reason: error.description)
    }

    private func problem(with entry: CacheEntry, validate: (String) -> String?) throws(CacheError) -> CacheProblem? {
        var info = stat()
        guard stat(entry.path, &info) == 0 else {
            // A folder this user may not search hides the file; it is not known to be gone.
            if errno == EACCES { return .forbiddenFile(relativePath: entry.relativePath, reason: "cannot be looked at: Permission denied") }
            return .missingFile(relativePath: entry.relativePath)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = info.st_mode & S_IFMT == S_IFDIR ? "a folder, not a file" : "not a regular file"
            return .unreadableFile(relativePath: entry.relativePath, reason: what)
        }
        guard Int64(info.st_size) == entry.size else {
            return .sizeMismatch(relativePath: entry.relativePath, expected: entry.size, actual: Int64(info.st_size))
        }
        if let expected = entry.checksum {
            let actual: String
            do {
                actual = try ContentHasher.checksum(ofFileAt: entry.path)
            } catch {
                return Self.unreadable(entry.relativePath, error)
            }
            if actual != expected {
                return .checksumMismatch(relativePath: entry.relativePath, expected: expected, actual: actual)
            }
        }
        guard entry.format != nil else { return nil }
        return validate(entry.path).map { .invalidFile(relativePath: entry.relativePath, reason: $0) }
    }

    /// Temp files older than `staleTempAge`, and the partial bodies kept for a later run that are not
    /// what their rows say: a file no row records (older than that age too) is a stale temp, a row
    /// whose file is gone or shorter than recorded a lost partial. A partial is never an entry: not
    /// listed, checked as an image, or counted in the totals.
    private func staleTemps() throws(CacheError) -> [CacheProblem] {
        let cutoff = Date().timeIntervalSince1970 - staleTempAge
        var problems: [CacheProblem] = []
        var partials = Dictionary(try cache.index.partials().map { ($0.relativePath, $0) }, uniquingKeysWith: { first, _ in first })
        for name in try DiskCache.names(in: cache.tempFolder).sorted() {
            let isPartial = name.hasSuffix(DiskCache.partialSuffix)
            guard isPartial || name.hasSuffix(TempFile.suffix) else { continue }
            var info = stat()
            guard stat(cache.tempFolder + "/" + name, &info) == 0 else { continue }
            if isPartial, let record = partials.removeValue(forKey: "tmp/" + name) {
                if Int64(info.st_size) < record.size { problems.append(.lostPartial(relativePath: record.relativePath)) }
                continue
            }
            if Double(info.st_mtim.tv_sec) < cutoff { problems.append(.staleTemp(relativePath: "tmp/" + name)) }
        }
        problems += partials.keys.sorted().map { CacheProblem.lostPartial(relativePath: $0) }
        return problems
    }
}
