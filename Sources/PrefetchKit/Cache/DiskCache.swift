internal import CShims
import Foundation
import Synchronization

/// The durable disk cache: bodies are written to files without a final name (unnamed files in their
/// entry's folder, or named temp files in `<cache>/tmp/`), put under their final name whole, and
/// recorded in the index in the same step. A reader never sees a partial file under a final name.
package final class DiskCache: Sendable {
    /// Absolute path of the cache folder.
    package let root: String
    package let layout: CacheLayout
    /// fsync each body and its folder before the rename is recorded.
    package let durable: Bool
    package let index: CacheIndex
    /// True when open found an existing cache's index missing or unusable and rebuilt it from the files.
    package let rebuiltIndex: Bool
    private let tempCounter = Atomic<Int>(0)
    /// The cache folder, opened once (`O_PATH`) so that a lookup's `stat` of an entry's file walks its
    /// relative path only, not the folders above the cache again (a tenth of a warm `verify`'s time);
    /// -1 when it could not be opened, and the absolute path is used.
    private let rootDescriptor: Int32

    var tempFolder: String { root + "/tmp" }

    private init(root: String, layout: CacheLayout, durable: Bool, index: CacheIndex, rebuiltIndex: Bool) {
        self.root = root
        self.layout = layout
        self.durable = durable
        self.index = index
        self.rebuiltIndex = rebuiltIndex
        rootDescriptor = Glibc.open(root, pf_open_flag_path() | O_DIRECTORY | O_CLOEXEC)
    }

    deinit {
        if rootDescriptor >= 0 { close(rootDescriptor) }
    }

    /// Opens (creating when needed) the cache at `path`. A cache made with another layout is an error;
    /// a missing or corrupt index is rebuilt by scanning the files, as is one `damaged` deeper inside
    /// than opening reads (found by `fsck`: why), which is set aside first.
    package static func open(
        at path: String, layout: CacheLayout, durable: Bool = false, damaged: String? = nil
    ) throws(CacheError) -> DiskCache {
        let root = URL(fileURLWithPath: path).standardizedFileURL.path
        try makeDirectoryAndParents(root)
        try refuseReadOnly(root)
        try makeDirectory(root + "/tmp")
        let isNew = try CacheMarker.claim(root: root, layout: layout, durable: durable)
        if isNew && layout == .native {
            // Made once, when the cache is made, so a store never has to create its folder (one
            // removed later is made again by the store that needs it).
            for folder in CacheFileNaming.nativeFolders {
                try makeDirectory(root + "/" + folder)
            }
        }
        let opening = try CacheIndex.open(root: root, damaged: damaged)
        let index = opening.index
        switch try index.meta("layout") {
        case layout.rawValue: break
        case let recorded?:
            throw .layoutMismatch(path: root, existing: CacheLayout(rawValue: recorded) ?? layout, requested: layout)
        case nil: try index.setMeta("layout", layout.rawValue)
        }
        let cache = DiskCache(root: root, layout: layout, durable: durable, index: index,
                              rebuiltIndex: opening.rebuilt && !isNew)
        let rescanned = opening.rebuilt ? try cache.rescan() : 0
        // Said when something was lost: a damaged index, or files an index had known. (A cache whose
        // index another process has not made yet, as two runs start on a new cache, lost nothing.)
        if cache.rebuiltIndex && (opening.setAside != nil || rescanned > 0) {
            tellRebuilt(root, setAside: opening.setAside)
        }
        try index.flush()
        // After the index, so that a disk with little room holds the index before the reserve.
        if isNew { cache.keepCleanReserve() }  // a cache made on a full disk has none until a clean
        return cache
    }

    /// Says in the log that an existing cache's index was made anew, and what that lost.
    private static func tellRebuilt(_ root: String, setAside: (path: String, reason: String)?) {
        let what = setAside.map { "could not be used (\($0.reason)); it is kept as \($0.path), and" } ?? "was missing, and"
        Log.message(.warning, "prefetchd: the index of the cache \(root) \(what) a new one was made from the files: the "
            + "URLs and sets of its entries, the links of variants to their originals, the failure ledger and the run "
            + "history are lost; a run fills in "
            + "the URL and set of each entry it finds again.")
    }

    /// Opens the cache at `path` with the layout it was made with; nil when no cache is there
    /// (nothing is created). For commands that work on a cache given only by its folder, `for` what
    /// they will do with it.
    package static func openExisting(at path: String, for access: CacheAccess = .write) throws(CacheError) -> DiskCache? {
        let root = URL(fileURLWithPath: path).standardizedFileURL.path
        try refuseNonFolder(root)
        guard let layout = try CacheMarker.recordedLayout(root: root) else { return nil }
        if access == .clean { SpaceReserve.release(root: root) }
        do {
            return try open(at: root, layout: layout)
        } catch let error where access == .read && (error.isUnwritableDisk || error.isPermissionDenied) {
            // The snapshot's own failure, when it is the index's version, says more than the disk's.
            let index: CacheIndex
            do throws(CacheError) {
                index = try CacheIndex.openSnapshot(root: root)
            } catch let snapshotError {
                switch snapshotError {
                case .newerIndex, .retiredIndex, .indexNeedsUpgrade: throw snapshotError
                default: throw error
                }
            }
            return DiskCache(root: root, layout: layout, durable: false, index: index, rebuiltIndex: false)
        }
    }

    /// Makes whole the room `clean` needs on a full disk (`SpaceReserve`): when the cache is made, and as
    /// a run starts, where a clean that was killed let it go; a disk without room for it is left as it is.
    package func keepCleanReserve() {
        try? SpaceReserve.restore(root: root)
    }

    /// Where `key`'s file lives, relative to `root`.
    package func relativePath(forKey key: String) -> String {
        CacheFileNaming.relativePath(forKey: key, layout: layout)
    }

    /// `key` with its relative path, worked out once (a digest) for the lookup, the body file and the
    /// commit of one URL.
    package func location(forKey key: String) -> CacheLocation {
        CacheLocation(key: key, relativePath: relativePath(forKey: key))
    }

    /// The folder `relativePath`'s file lives in.
    /// (Searched in the contiguous bytes: `String.UTF8View.lastIndex` stepped back a byte at a time
    /// through the string's index machinery, about 2,000 instructions a path.)
    private func folder(of relativePath: String) -> String {
        var path = relativePath
        return path.withUTF8 { bytes in
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return root }
            return root + "/" + String(decoding: UnsafeBufferPointer(rebasing: bytes[..<slash]), as: UTF8.self)
        }
    }

    /// A new empty temp file in `<cache>/tmp/`, named `<pid>-<counter>-<random>.part`.
    package func makeTempFile() throws(CacheError) -> TempFile {
        try TempFile(path: makeTempPath())
    }

    /// A new empty file for `key`'s body: unnamed, in the folder the entry will live in, when the file
    /// system can make one; otherwise a named temp file in `<cache>/tmp/`.
    package func makeBodyFile(forKey key: String) throws(CacheError) -> TempFile {
        try makeBodyFile(for: location(forKey: key))
    }

    /// As `makeBodyFile(forKey:)`; the file remembers the location, so its commit as that key does
    /// not work the path out again.
    package func makeBodyFile(for location: CacheLocation) throws(CacheError) -> TempFile {
        let body = try makeBodyFile(in: folder(of: location.relativePath))
        body.location = location
        return body
    }

    private func makeBodyFile(in folder: String) throws(CacheError) -> TempFile {
        do {
            if let body = try TempFile(unnamedIn: folder) { return body }
        } catch .fileSystem(operation: _, path: _, errno: ENOENT) where folder != root {
            // The fan-out folder was removed behind our back: make it again, once.
            try Self.makeDirectory(folder)
            if let body = try TempFile(unnamedIn: folder) { return body }
        }
        return try makeTempFile()
    }

    /// A fresh path in `<cache>/tmp/` (the name a named temp file gets); nothing is created.
    func makeTempPath() -> String {
        let counter = tempCounter.wrappingAdd(1, ordering: .relaxed).newValue
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        return "\(tempFolder)/\(getpid())-\(counter)-\(random)\(TempFile.suffix)"
    }

    /// What a writer that checksummed a body as it wrote it knows about the file.
    package struct Streamed: Sendable {
        package var checksum: String
        package var size: Int64
    }

    /// Puts a finished temp file under its final name and records it, replacing an earlier body for
    /// the key. The checksum and size are those of what went through `temp.write`, or what another
    /// writer that wrote it through `temp.path` `streamed` (of the same `ContentHasher`); without
    /// either the file is read back. fsyncs the file and its folder when `durable`.
    @discardableResult
    package func commit(_ temp: TempFile, as entry: NewEntry, streamed: Streamed? = nil) throws(CacheError) -> CacheEntry {
        try temp.sync(durable: durable)
        let (checksum, size): (String, Int64)
        if let streamed {
            (checksum, size) = (streamed.checksum, streamed.size)
        } else if temp.byteCount > 0 {
            (checksum, size) = (temp.checksum(), temp.byteCount)
        } else {
            (checksum, size) = try ContentHasher.checksum(ofFileAt: temp.path, sync: false)
        }
        return try install(temp, size: size, checksum: checksum, as: entry)
    }

    /// Places a temp file under `entry`'s final name and records the row, both under the index's write
    /// lock (see `CacheIndex.upsert(placing:)`), so a clean never finds a body newer than its row.
    private func install(_ temp: TempFile, size: Int64, checksum: String, as entry: NewEntry) throws(CacheError) -> CacheEntry {
        let relativePath = temp.location.flatMap { $0.key == entry.key ? $0.relativePath : nil } ?? relativePath(forKey: entry.key)
        let finalPath = root + "/" + relativePath
        let folder = folder(of: relativePath)
        let format: ImageFormat?
        if let known = entry.format {
            format = known
        } else if entry.unchecked {
            format = nil
        } else {
            format = try Self.sniffFormat(temp.path)
        }
        let stored = try index.upsert { () throws(CacheError) -> CacheEntry in
            var failure = temp.place(at: finalPath, aside: makeTempPath)
            if failure == ENOENT && folder != root {
                // The fan-out folder was removed behind our back: make it again, once.
                try Self.makeDirectory(folder)
                failure = temp.place(at: finalPath, aside: makeTempPath)
            }
            guard failure == 0 else { throw .fileSystem(operation: "place", path: finalPath, errno: failure) }
            if durable { try Self.syncDirectory(folder) }
            // As the index stores it (seconds since 1970), so the value returned equals the row read back.
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970)
            return CacheEntry(
                url: entry.url, key: entry.key, setName: entry.setName, relativePath: relativePath, path: finalPath,
                size: size, format: format, width: entry.width,
                height: entry.height, etag: entry.etag, lastModified: entry.lastModified, checksum: checksum,
                fetchedAt: now, modifiedAt: now, accessedAt: now, validatedAt: now, frames: entry.frames,
                variantOf: entry.variantOf, variant: entry.variant)
        }
        // Not read back (a query per store): a re-fetched key keeps its first `fetched_at` in the
        // index, while the value returned here says now.
        return stored
    }

    /// Writes `data` through a temp file and commits it (tests, benchmarks, small bodies).
    @discardableResult
    package func store(data: Data, as entry: NewEntry) throws(CacheError) -> CacheEntry {
        let temp = try makeBodyFile(forKey: entry.key)
        try temp.write(data)
        return try commit(temp, as: entry)
    }

    /// The entry for `key` when its file is present with the recorded size; otherwise nil, and a stale
    /// row is dropped. Does not count as a use: call `touch(key:)` for that.
    package func lookup(key: String) throws(CacheError) -> CacheEntry? {
        try lookup(location(forKey: key))
    }

    /// As `lookup(key:)`, for a location already worked out. With `committedOnly` the row is read as
    /// last committed, without waiting for stores in progress: an entry stored in this process within
    /// the last batch (a quarter second) may not be seen yet.
    /// With `droppingGoneRows` false a row whose file is gone is left as it is (`verify` writes nothing).
    package func lookup(
        _ location: CacheLocation, committedOnly: Bool = false, droppingGoneRows: Bool = true
    ) throws(CacheError) -> CacheEntry? {
        guard let entry = try index.entry(relativePath: location.relativePath, committedOnly: committedOnly) else { return nil }
        return try isPresent(entry.relativePath, size: entry.size, droppingGoneRow: droppingGoneRows) ? entry : nil
    }

    /// As `lookup(_:committedOnly:)` for each of `locations`, in their order, with one index query for
    /// them all, each row's summary for the entry (with its row id, for its use: `touch(rowID:at:)`).
    func lookup(_ locations: [CacheLocation], committedOnly: Bool = false) throws(CacheError) -> [IndexedSummary?] {
        var rows = try index.summaries(relativePaths: locations.map(\.relativePath), committedOnly: committedOnly)
        for (position, location) in zip(rows.indices, locations) {
            if let row = rows[position], try !isPresent(location.relativePath, size: row.size, droppingGoneRow: true) {
                rows[position] = nil
            }
        }
        return rows
    }

    /// The originals' bodies at `locations` whose files are there at their recorded sizes, in their
    /// order (nil for one without a row or whose file is gone or of another size); rows are left as
    /// they are (`verify` writes nothing). The rows are looked up in the index, or in `originals`
    /// when `verify` has read them all (`CacheIndex.originalBodies(rows:)`).
    func presentBodies(_ locations: [CacheLocation], among originals: StringTable<StoredBody>?) throws(CacheError) -> [StoredBody?] {
        let paths = locations.map(\.relativePath)
        let bodies = if let originals { paths.map(originals.value(for:)) } else { try index.bodies(relativePaths: paths) }
        return zip(paths, bodies).map { path, body in body.flatMap { holdsFile(path, size: $0.size) ? $0 : nil } }
    }

    /// Whether the file of the row at `relativePath` is present with the recorded `size`; when it is
    /// not, the row is dropped with `droppingGoneRow`.
    private func isPresent(_ relativePath: String, size: Int64, droppingGoneRow: Bool) throws(CacheError) -> Bool {
        guard holdsFile(relativePath, size: size) else {
            if droppingGoneRow { try index.deleteEntry(relativePath: relativePath) }
            return false
        }
        return true
    }

    /// Whether the file at `relativePath` is there with `size` bytes.
    private func holdsFile(_ relativePath: String, size: Int64) -> Bool {
        var info = stat()
        let found = rootDescriptor >= 0 ? fstatat(rootDescriptor, relativePath, &info, 0) : stat(root + "/" + relativePath, &info)
        return found == 0 && Int64(info.st_size) == size
    }

    /// Absolute path of `key`'s cached file, or nil when not cached; counts as a use.
    package func path(forKey key: String) throws(CacheError) -> String? {
        guard let entry = try lookup(key: key) else { return nil }
        try touch(key: key)
        return entry.path
    }

    /// Records a use of `key`; written in a batch, not one write per hit.
    package func touch(key: String, at time: Date = Date()) throws(CacheError) {
        try touch(location(forKey: key), at: time)
    }

    /// As `touch(key:)`, for a location already worked out (no second digest of the key).
    package func touch(_ location: CacheLocation, at time: Date = Date()) throws(CacheError) {
        try index.touch(relativePath: location.relativePath, at: time)
    }

    /// As `touch(key:)`, for the row `rowID` a batched lookup read (`lookup(_:committedOnly:)`).
    func touch(rowID: Int64, at time: Date = Date()) throws(CacheError) {
        try index.touch(rowID: rowID, at: time)
    }

    /// Gives `key`'s entry, when a rescan made it, the URL and set a run found it by.
    package func adopt(key: String, url: String, setName: String) throws(CacheError) {
        try index.adopt(relativePath: relativePath(forKey: key), url: url, key: key, setName: setName)
    }

    /// Records a 304 for `key`: new validators if given, modified and validated now.
    package func markRevalidated(key: String, etag: String?, lastModified: String?, at time: Date = Date()) throws(CacheError) {
        try index.markRevalidated(relativePath: relativePath(forKey: key), etag: etag, lastModified: lastModified, at: time)
    }

    /// Deletes `key`'s file and row.
    package func remove(key: String) throws(CacheError) {
        try remove(relativePath: relativePath(forKey: key))
    }

    /// Deletes a file (if present) and its row, and the variants made from it (a variant never
    /// outlives its original).
    package func remove(relativePath: String) throws(CacheError) {
        try removeOne(relativePath)
        try removeVariants(ofOriginalAt: relativePath)
    }

    /// Deletes the variants made from the original at `relativePath`, files and rows, but those at
    /// `keeping`: after the original is removed, or replaced by another body (`keeping` the ones just
    /// made from it); only those `named` when given.
    package func removeVariants(ofOriginalAt relativePath: String, keeping: Set<String> = [], named: Set<String>? = nil) throws(CacheError) {
        for variant in try index.variants(ofOriginalAt: relativePath) where !keeping.contains(variant.relativePath) {
            if let named, !named.contains(variant.variant ?? "") { continue }
            try removeOne(variant.relativePath)
        }
    }

    private func removeOne(_ relativePath: String) throws(CacheError) {
        let path = root + "/" + relativePath
        guard unlink(path) == 0 || errno == ENOENT else { throw .fromErrno("remove", path) }
        try index.deleteEntry(relativePath: relativePath)
    }

    /// Forgets the uses recorded and not yet written: after a flush that gave up, so that closing the
    /// cache does not wait to try again.
    package func forgetPendingUses() {
        index.forgetPendingUses()
    }

    /// Commits batched index writes and access times, waiting at most `wait` for another connection's
    /// write lock (the index's own busy timeout when nil).
    package func flush(waitingAtMost wait: Duration? = nil) throws(CacheError) {
        try index.flush(waitingAtMost: wait)
    }

    static func makeDirectory(_ path: String) throws(CacheError) {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw .fromErrno("create folder", path) }
    }

    /// Makes `path` and whichever of its parents are missing, as `mkdir -p` does; a file in its
    /// place is refused by name.
    static func makeDirectoryAndParents(_ path: String) throws(CacheError) {
        guard mkdir(path, 0o755) != 0 else { return }
        switch errno {
        case EEXIST:
            try refuseNonFolder(path)
        case ENOENT:
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { throw .fromErrno("create folder", path) }
            try makeDirectoryAndParents(parent)
            try makeDirectory(path)
        default:
            throw .fromErrno("create folder", path)
        }
    }

    /// Throws when something other than a folder is at `path`; nothing there is fine.
    package static func refuseNonFolder(_ path: String) throws(CacheError) {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
            throw .notAFolder(path: path)
        }
    }

    /// A cache on a file system mounted read-only cannot be opened for writing: said so by name, not as
    /// whichever of SQLite's files failed to open first.
    private static func refuseReadOnly(_ path: String) throws(CacheError) {
        var info = statvfs()
        if statvfs(path, &info) == 0, info.f_flag & UInt(ST_RDONLY) != 0 {
            throw .fileSystem(operation: "write to", path: path, errno: EROFS)
        }
    }

    static func syncDirectory(_ path: String) throws(CacheError) {
        let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .fromErrno("open folder", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .fromErrno("fsync folder", path) }
    }

    /// The format named by the first bytes of the file at `path`.
    static func sniffFormat(_ path: String) throws(CacheError) -> ImageFormat? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .fromErrno("open", path) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: ImageSniffer.prefixLength)
        let count = read(fd, &bytes, bytes.count)
        guard count >= 0 else { throw .fromErrno("read", path) }
        return ImageSniffer.format(of: bytes.prefix(count))
    }
}
