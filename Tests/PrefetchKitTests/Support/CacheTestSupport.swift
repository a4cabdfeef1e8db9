import Foundation
@testable import PrefetchKit

/// A small body that sniffs as PNG and differs per `seed`.
func pngLikeBody(_ seed: Int, length: Int = 300) -> Data {
    Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) })
}

/// A cache with `count` small entries stored through the real store path; returns their keys.
func fillCache(_ cache: DiskCache, count: Int, length: (Int) -> Int = { 300 + $0 }, set: String = "main") throws -> [String] {
    try (0..<count).map { number in
        let key = "https://img\(number % 3).example.com/p/\(number).png"
        try cache.store(data: pngLikeBody(number, length: length(number)), as: NewEntry(url: key, key: key, setName: set))
        return key
    }
}

/// Fills `cache` with `count` entries (`fillCache`) last fetched, modified and used `days` days ago.
func fillAgedCache(_ cache: DiskCache, count: Int, days: Double) throws -> [String] {
    let keys = try fillCache(cache, count: count)
    let old = Date().addingTimeInterval(-days * 86_400)
    for key in keys { try setClocks(cache, key: key, fetched: old, modified: old, accessed: old) }
    return keys
}

/// Sets an entry's clocks through the index, and its file's mtime to its modification time (as if it
/// had been stored then): no sleeping.
func setClocks(
    _ cache: DiskCache, key: String, fetched: Date, modified: Date, accessed: Date
) throws {
    let relativePath = cache.relativePath(forKey: key)
    try cache.flush()
    try cache.index.withConnection { connection throws(CacheError) in
        try connection.write(
            "UPDATE entries SET fetched_at = ?, modified_at = ?, accessed_at = ? WHERE relative_path = ?",
            [.date(fetched), .date(modified), .date(accessed), .text(relativePath)])
    }
    try cache.flush()
    try setFileTime(cache.root + "/" + relativePath, modified)
}

/// Sets all three clocks of the entry `keys[number]` to `when(number)`, for every number.
func setAllClocks(_ cache: DiskCache, keys: [String], when: (Int) -> Date) throws {
    for (number, key) in keys.enumerated() {
        try setClocks(cache, key: key, fetched: when(number), modified: when(number), accessed: when(number))
    }
}

func setFileTime(_ path: String, _ date: Date) throws {
    let seconds = Int(date.timeIntervalSince1970)
    var times = [timeval(tv_sec: seconds, tv_usec: 0), timeval(tv_sec: seconds, tv_usec: 0)]
    guard utimes(path, &times) == 0 else { throw CacheError.fromErrno("set times of", path) }
}

/// Every file under a final name with its size: the truth a fresh scan sees.
func scanFiles(_ cache: DiskCache) throws -> [String: Int64] {
    var sizes: [String: Int64] = [:]
    for relativePath in try cache.finalFiles() {
        let attributes = try FileManager.default.attributesOfItem(atPath: cache.root + "/" + relativePath)
        sizes[relativePath] = (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }
    return sizes
}

/// Relative paths the index holds.
func indexedPaths(_ cache: DiskCache) throws -> Set<String> {
    Set(try cache.index.allEntries().map(\.relativePath))
}

/// A policy for tests: the whole orphan sweep every time, no lock wait.
/// The last use of `key`'s entry, the uses recorded since the last fold included (a lookup by path
/// reads the row's own; `IndexRecentUses`).
func lastUse(_ cache: DiskCache, key: String) throws -> Date? {
    let relativePath = cache.relativePath(forKey: key)
    return try cache.index.allEntries().first { $0.relativePath == relativePath }?.accessedAt
}

func testPolicy(
    maxAge: TimeInterval = 0, expireBy: ExpiryClock = .access, maxSize: Int64 = 0, trimTo: Double = 0.8
) -> CleanPolicy {
    CleanPolicy(maxAge: maxAge, expireBy: expireBy, maxSize: maxSize, trimTo: trimTo, orphanSweepRounds: 1, lockWait: 0.2)
}

/// What is in the cache's `tmp/` besides the space it holds back for clean: temp files and journals
/// left behind.
func tempLeftovers(root: String) throws -> [String] {
    try DiskCache.names(in: root + "/tmp").filter { !SpaceReserve.names.contains($0) }
}

/// `items` in row order, the order in which a clean removes and a check reads the entries: by the row
/// ids made from their relative paths (`IndexRowID`; no two paths of a test share one).
func inRowOrder<Item>(_ items: [Item], path: (Item) -> String) -> [Item] {
    items.sorted { IndexRowID.base(of: path($0)) < IndexRowID.base(of: path($1)) }
}

/// Relative paths in row order.
func inRowOrder(_ paths: [String]) -> [String] {
    inRowOrder(paths) { $0 }
}
