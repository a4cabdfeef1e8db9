import Foundation
import Testing
@testable import PrefetchKit

/// A batch of lookups by one index query (rows' summaries) answers as the same lookups one at a time:
/// in the list's order, twice for a key listed twice, nil for a key never stored and for a row whose file is gone,
/// whatever the batch's length, and with `committedOnly` as committed rows only.
@Suite(.timeLimit(.minutes(3))) struct BatchLookupTests {
    static func url(_ number: Int) -> String { "http://127.0.0.1:9/batch/\(number).jpg" }

    /// A cache holding entries 0..<600 (committed), then 600..<610 stored in the open batch.
    static func filledCache(_ folder: TemporaryDirectory) throws -> DiskCache {
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        for number in 0..<600 {
            try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: url(number), key: url(number)))
        }
        try cache.flush()
        return cache
    }

    /// `count` locations: stored keys, each fifth one a key never stored, each seventh one repeating
    /// the key before it, and the key whose file was deleted in the middle.
    static func locations(_ count: Int, in cache: DiskCache, deleted: Int) -> [CacheLocation] {
        var keys: [String] = []
        for position in 0..<count {
            if position == count / 2 {
                keys.append(url(deleted))
            } else if position % 7 == 6, let last = keys.last {
                keys.append(last)
            } else {
                keys.append(url(position % 5 == 4 ? 10_000 + position : position % 610))
            }
        }
        return keys.map(cache.location(forKey:))
    }

    /// What a summary and a whole entry both tell: the size, the last fetch, whether the row has the URL.
    struct Glance: Equatable {
        let size: Int64
        let modifiedAt: Date
        let hasURL: Bool
    }

    static func glance(_ row: IndexedSummary?) -> Glance? {
        row.map { Glance(size: $0.size, modifiedAt: $0.modifiedAt, hasURL: $0.hasURL) }
    }

    static func glance(_ entry: CacheEntry?) -> Glance? {
        entry.map { Glance(size: $0.size, modifiedAt: $0.modifiedAt, hasURL: $0.url != nil) }
    }

    @Test(arguments: [1, 511, 512, 513])
    func aBatchAnswersAsLookupsOneAtATime(count: Int) throws {
        // Given a cache with stored entries, one of whose files is deleted behind its back
        let folder = try TemporaryDirectory()
        let cache = try Self.filledCache(folder)
        let deleted = 300
        #expect(unlink(try #require(try cache.lookup(key: Self.url(deleted))).path) == 0)
        let locations = Self.locations(count, in: cache, deleted: deleted)

        // When the same locations are looked up in one batch and one at a time
        let batched = try cache.lookup(locations)
        let single = try locations.map { location throws(CacheError) in try cache.lookup(location) }

        // Then the answers are the same, in the same order, a found entry for each stored key
        #expect(batched.count == locations.count)
        #expect(batched.map(Self.glance) == single.map(Self.glance))
        for (location, row) in zip(locations, batched) {
            let number = Int(location.key.split(separator: "/").last!.dropLast(4))!
            #expect((row != nil) == (number < 600 && number != deleted), "\(location.key)")
            // and each found row's id is the one its path took
            if let row { #expect(IndexRowID.slotIDs(of: location.relativePath).contains(row.id)) }
        }
        // and the row of the deleted file is gone from the index
        #expect(try cache.index.entry(relativePath: cache.relativePath(forKey: Self.url(deleted))) == nil)
    }

    @Test func committedOnlyLeavesOutTheOpenBatch() throws {
        // Given committed entries and ten more stored in the batch not committed yet
        let folder = try TemporaryDirectory()
        let cache = try Self.filledCache(folder)
        for number in 600..<610 {
            try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: Self.url(number), key: Self.url(number)))
        }
        let locations = (590..<610).map { cache.location(forKey: Self.url($0)) }

        // When they are looked up as committed, in one batch and one at a time, and then as the batch holds them
        let committed = try cache.lookup(locations, committedOnly: true)
        let single = try locations.map { location throws(CacheError) in try cache.lookup(location, committedOnly: true) }
        let withBatch = try cache.lookup(locations)

        // Then only the committed ten are found by the committed reads, and all twenty otherwise
        #expect(committed.map(Self.glance) == single.map(Self.glance))
        #expect(committed.map { $0 != nil } == (590..<610).map { $0 < 600 })
        #expect(withBatch.allSatisfy { $0 != nil })
    }
}
