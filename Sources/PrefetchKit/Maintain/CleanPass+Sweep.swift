import Foundation

/// Step 3, the sweep. `tmp/` is swept on every clean (it is small). Orphans need the files listed,
/// so that part visits a rotating share of the fan-out folders per clean (`orphanSweepRounds`),
/// one folder per batch, its rows read by the range of row ids of its slice (`IndexRowID`).
extension CleanPass {
    /// The meta key holding the next folder the orphan sweep visits.
    static let sweepCursorKey = "clean_sweep_cursor"

    /// Deletes temp files older than the longest possible transfer; a younger one may still be written.
    /// A partial body kept for a later run goes once its set's `resume_max_age` has passed, or as a
    /// temp file when no row records it (a crash between its placing and its row); a row whose file is
    /// gone is dropped. Both count as swept temp files.
    mutating func sweepTemp(into report: inout CleanReport) throws(MaintenanceError) {
        let cutoff = now.timeIntervalSince1970 - policy.staleTempAge
        let names = try wrap { () throws(CacheError) in try DiskCache.names(in: cache.tempFolder) }
        var partials = Dictionary(try wrap { () throws(CacheError) in try cache.index.partials() }.map { ($0.relativePath, $0) },
                                  uniquingKeysWith: { first, _ in first })
        for name in names.sorted() {
            let path = cache.tempFolder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if name.hasSuffix(DiskCache.partialSuffix) {
                let record = partials.removeValue(forKey: "tmp/" + name)
                let due = record.map { $0.expiresAt <= now } ?? (Double(info.st_mtim.tv_sec) < cutoff)
                guard due else { continue }
                if !dryRun && unlink(path) != 0 && errno != ENOENT { throw .cache(.fromErrno("remove", path)) }
                if !dryRun, let record { try wrap { () throws(CacheError) in try cache.index.deletePartial(forKey: record.key) } }
                report.sweptTemp.add(Int64(info.st_size))
                onItem(CleanItem(kind: .staleTemp, relativePath: "tmp/" + name, bytes: Int64(info.st_size)))
                continue
            }
            guard name.hasSuffix(TempFile.suffix) else {
                if !Self.isJournal(name) && !SpaceReserve.names.contains(name) { report.foreign.add(Int64(info.st_size)) }
                continue
            }
            guard Double(info.st_mtim.tv_sec) < cutoff else { continue }
            if !dryRun && unlink(path) != 0 && errno != ENOENT { throw .cache(.fromErrno("remove", path)) }
            report.sweptTemp.add(Int64(info.st_size))
            onItem(CleanItem(kind: .staleTemp, relativePath: "tmp/" + name, bytes: Int64(info.st_size)))
        }
        for record in partials.values where !dryRun {
            try wrap { () throws(CacheError) in try cache.index.deletePartial(forKey: record.key) }
        }
        if !dryRun { try wrap { () throws(CacheError) in try cache.flush() } }
    }

    /// Indexes files without rows (a file under a final name is always whole), drops rows without
    /// files, and counts foreign files, in this clean's share of the folders.
    mutating func sweepOrphans(into report: inout CleanReport) throws(MaintenanceError) {
        let rootNames = try wrap { () throws(CacheError) in try DiskCache.names(in: cache.root) }
        let slices = 256
        let share = (slices + max(policy.orphanSweepRounds, 1) - 1) / max(policy.orphanSweepRounds, 1)
        let start = try wrap { () throws(CacheError) in try cache.index.meta(Self.sweepCursorKey) }.flatMap(Int.init) ?? 0
        report.totalFolders = slices
        var flat: [String: [String]] = [:]
        for name in rootNames where !CacheOwnedPath.rootNames.contains(name) {
            switch cache.layout {
            case .native:
                if !(name.count == 2 && DiskCache.isLowerHex(name)) { report.foreign.add(size(of: name)) }
            case .sdwebimage:
                if DiskCache.isSDWebImageName(name) { flat[String(name.prefix(2)), default: []].append(name) }
                else { report.foreign.add(size(of: name)) }
            }
        }
        for step in 0..<share {
            let slice = (start + step) % slices
            let prefix = CacheFileNaming.nativeFolders[slice]
            switch cache.layout {
            case .native:
                let folder = prefix
                let listing = try wrap { () throws(CacheError) in try DiskCache.listing(of: cache.root + "/" + folder) }
                var files: [String] = []
                for (name, type) in listing {
                    let relativePath = folder + "/" + name
                    // The folder's own word on the type where it gives one: no stat per file.
                    let regular = type == DT_UNKNOWN ? isRegularFile(relativePath) : type == DT_REG
                    if regular && DiskCache.isNativeName(name, prefix: prefix) {
                        files.append(relativePath)
                    } else {
                        report.foreign.add(size(of: relativePath))
                    }
                }
                try reconcile(prefix: folder + "/", files: files, into: &report)
            case .sdwebimage:
                let files = (flat[prefix] ?? []).filter(isRegularFile)
                try reconcile(prefix: prefix, files: files, into: &report)
            }
            report.sweptFolders += 1
        }
        if !dryRun {
            try retrying { () throws(CacheError) in
                try cache.index.setMeta(Self.sweepCursorKey, String((start + share) % slices))
            }
        }
    }

    /// Compares one folder's files with its rows.
    private mutating func reconcile(prefix: String, files: [String], into report: inout CleanReport) throws(MaintenanceError) {
        let rows = try wrap { () throws(CacheError) in try cache.index.rows(withPathPrefix: prefix) }
        let indexed = Set(rows.map(\.relativePath))
        let present = Set(files)
        for relativePath in files.sorted() where !indexed.contains(relativePath) {
            let bytes = size(of: relativePath)
            if !dryRun {
                // Rescan's entry: times from the file's mtime; a run's pending upsert still wins.
                try retrying { () throws(CacheError) in try cache.index.insertIfMissing(try cache.entryForFile(relativePath)) }
            }
            report.orphans.add(bytes)
            onItem(CleanItem(kind: .orphan, relativePath: relativePath, bytes: bytes))
        }
        let missing = rows.filter { !present.contains($0.relativePath) }
        guard !missing.isEmpty else { return }
        var dropped: [(relativePath: String, size: Int64)] = []
        if dryRun {
            dropped = missing.filter { !droppedAhead.contains($0.relativePath) }.map { ($0.relativePath, $0.size) }
        } else {
            let root = cache.root
            try retrying { () throws(CacheError) in
                dropped.removeAll()
                try cache.index.inWriteTransaction { transaction throws(CacheError) in
                    for row in missing {
                        // Checked again under the write lock: a run may have stored it since the listing.
                        var info = stat()
                        guard stat(root + "/" + row.relativePath, &info) != 0, let entry = try transaction.entry(id: row.id)
                        else { continue }
                        try transaction.deleteEntry(id: row.id)
                        dropped.append((entry.relativePath, entry.size))
                    }
                }
            }
        }
        for entry in dropped { report.missingFiles.add(note(.missingFile, relativePath: entry.relativePath, bytes: entry.size)) }
    }

    private func size(of relativePath: String) -> Int64 {
        var info = stat()
        return lstat(cache.root + "/" + relativePath, &info) == 0 ? Int64(info.st_size) : 0
    }

    private func isRegularFile(_ relativePath: String) -> Bool {
        var info = stat()
        return lstat(cache.root + "/" + relativePath, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}
