import Foundation
import Testing
@testable import PrefetchKit

/// A native cache at `path` with `count` real PNGs (numbers `first..<first+count`, each its own width)
/// stored through the real store path; returns their keys.
@discardableResult
func storePNGs(at path: String, count: Int, first: Int = 0, host: String = "merge.example") throws -> [String] {
    let cache = try DiskCache.open(at: path, layout: .native)
    let keys = try (first..<(first + count)).map { number in
        let key = "https://\(host)/p/\(number).png"
        let body = Data(ImageFixtures.png(width: UInt32(1 + number % 97), height: UInt32(1 + number / 97 % 5)))
        try cache.store(data: body, as: NewEntry(url: key, key: key, setName: "main"))
        return key
    }
    try cache.flush()
    return keys
}

/// What a cache folder holds, file by file (path relative to it, size, inode), and its index file's
/// bytes: to show that something left it exactly as it was.
func folderState(_ root: String) throws -> [String: [UInt64]] {
    var state: [String: [UInt64]] = [:]
    let walker = try #require(FileManager.default.enumerator(atPath: root))
    while let relative = walker.nextObject() as? String {
        var info = stat()
        guard lstat(root + "/" + relative, &info) == 0 else { continue }
        state[relative] = [UInt64(info.st_size), UInt64(info.st_ino), UInt64(info.st_mtim.tv_sec), UInt64(info.st_mtim.tv_nsec)]
    }
    return state
}

/// The keys of every entry in the cache at `path`, and how many rows it has.
func cacheKeys(_ path: String) throws -> (keys: Set<String>, rows: Int) {
    let entries = try DiskCache.open(at: path, layout: .native).index.allEntries()
    return (Set(entries.compactMap(\.key)), entries.count)
}
