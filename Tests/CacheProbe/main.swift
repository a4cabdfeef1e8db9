// cache-probe CACHE_DIR COUNT TOTAL
// Looks up COUNT keys of cache-filler's numbering (0..<TOTAL, a fixed pseudo-random order) through
// DiskCache.path(forKey:) — the lookup `prefetchd path` makes: index row, a stat of the file, and a
// batched last-access update — and prints the lookups, hits and seconds.
import Foundation
import PrefetchKit

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), let total = Int(arguments[3]), total > 0 else {
    FileHandle.standardError.write(Data("usage: cache-probe CACHE_DIR COUNT TOTAL\n".utf8))
    exit(2)
}

do {
    guard let cache = try DiskCache.openExisting(at: arguments[1]) else {
        FileHandle.standardError.write(Data("cache-probe: no cache at \(arguments[1])\n".utf8))
        exit(1)
    }
    var hits = 0
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let started = ContinuousClock.now
    for _ in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let number = Int((state >> 33) % UInt64(total))
        let url = "https://img\(number % 8).example.com/catalog/\(number).jpg"
        if try cache.path(forKey: url) != nil { hits += 1 }
    }
    try cache.flush()
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("lookups \(count) hits \(hits) seconds \(seconds)")
} catch {
    FileHandle.standardError.write(Data("cache-probe: \(error)\n".utf8))
    exit(1)
}
