import Foundation
import Testing
@testable import PrefetchKit

/// The uses waiting for the index: each path once, with its latest time, in first-use order; and what
/// a flush writes of them to a real index.
@Suite struct PendingUsesTests {
    @Test func eachPathIsKeptOnceInTheOrderOfItsFirstUseWithItsLatestTime() {
        var uses = PendingUses()
        uses.note("b/2.jpg", at: 20)
        uses.note("a/1.jpg", at: 10)
        uses.note("b/2.jpg", at: 30)
        uses.note("c/3.jpg", at: 5)
        #expect(uses.count == 3)
        #expect(uses.uses.map(\.path) == ["b/2.jpg", "a/1.jpg", "c/3.jpg"])
        #expect(uses.uses.map(\.time) == [30, 10, 5])
        uses.removeAll()
        #expect(uses.isEmpty)
        uses.note("a/1.jpg", at: 40)
        #expect(uses.uses.map(\.path) == ["a/1.jpg"] && uses.uses.map(\.time) == [40])
    }

    /// Uses made in any order, more of them than a batch's rows, are written with each entry's latest
    /// time.
    @Test func aFlushWritesEveryUseWithItsLatestTime() throws {
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.path, layout: .native)
        let keys = (0..<600).map { "https://img.example.com/\($0).jpg" }
        for key in keys { try cache.store(data: Data("body \(key)".utf8), as: NewEntry(url: key, key: key)) }
        try cache.flush()
        let base = Date(timeIntervalSince1970: 2_000_000_000)
        for (place, key) in keys.enumerated().reversed() {
            try cache.touch(key: key, at: base + Double(place))
        }
        try cache.touch(key: keys[0], at: base + 10_000)
        try cache.touch(key: keys[1], at: base + 20_000)
        try cache.flush()
        for (place, key) in keys.enumerated() {
            let entry = try #require(try cache.lookup(key: key))
            let expected: Double = switch place {
            case 0: 10_000
            case 1: 20_000
            default: Double(place)
            }
            #expect(entry.accessedAt.timeIntervalSince(base) == expected, "\(key)")
        }
    }
}
