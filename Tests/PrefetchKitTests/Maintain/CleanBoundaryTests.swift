import Foundation
import Testing
@testable import PrefetchKit

/// `clean` at the exact edges of its limits: an entry exactly `max_age` old by each clock, a cache
/// exactly at `max_size`, and a trim that lands exactly on `trim_to × max_size`.
@Suite struct CleanBoundaryTests {
    private static let day: TimeInterval = 86_400

    /// A whole second, so that every date a test derives from it is stored exactly.
    private static func wholeSecondNow() -> Date {
        Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    @Test(arguments: ExpiryClock.allCases)
    func anEntryExactlyMaxAgeOldIsKeptAndOneSecondOlderExpires(clock: ExpiryClock) throws {
        try TemporaryDirectory.withPath { folder in
            // Given entries one second under max_age, exactly max_age and one second over it by `clock`,
            // their other two clocks a month old
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 3)
            let now = Self.wholeSecondNow()
            let maxAge = 7 * Self.day
            let month = now.addingTimeInterval(-30 * Self.day)
            for (key, age) in zip(keys, [maxAge - 1, maxAge, maxAge + 1]) {
                let dated = now.addingTimeInterval(-age)
                try setClocks(cache, key: key, fetched: clock == .creation ? dated : month,
                              modified: clock == .modification ? dated : month, accessed: clock == .access ? dated : month)
            }
            let policy = testPolicy(maxAge: maxAge, expireBy: clock)

            // When a dry run and then a clean expire entries older than max_age by `clock`
            var predicted: [String] = []
            let dry = try CacheCleaner(cache, policy: policy).run(dryRun: true, now: now, onItem: { predicted.append($0.relativePath) })
            let report = try CacheCleaner(cache, policy: policy).run(now: now)

            // Then only the entry older than max_age goes: one exactly max_age old stays, file and row
            #expect(predicted == [cache.relativePath(forKey: keys[2])])
            #expect(dry.expired.entries == 1)
            #expect(report.expired.entries == 1)
            for (number, key) in keys.enumerated() {
                let kept = number < 2
                #expect((try cache.lookup(key: key) != nil) == kept, "entry \(number) by \(clock)")
                #expect(FileManager.default.fileExists(atPath: cache.root + "/" + cache.relativePath(forKey: key)) == kept,
                        "entry \(number) by \(clock)")
            }
        }
    }

    /// Ten entries of 1,000 bytes under a cap one byte above their total, exactly at it and one byte
    /// below it, trimmed to half the cap: how many the trim takes.
    @Test(arguments: [(10_001, 0), (10_000, 0), (9_999, 6)])
    func aCacheExactlyAtMaxSizeIsNotTrimmed(maxSize: Int64, trimmed: Int) throws {
        try TemporaryDirectory.withPath { folder in
            // Given ten entries of 1,000 bytes, entry 0 the least recently used
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 10, length: { _ in 992 })
            let now = Self.wholeSecondNow()
            try setAllClocks(cache, keys: keys) { now.addingTimeInterval(Double($0 - 100) * 60) }
            #expect(try cache.index.totalBytes() == 10_000)

            // When a clean caps the cache at `maxSize`
            let report = try CacheCleaner(cache, policy: testPolicy(maxSize: maxSize, trimTo: 0.5)).run(now: now)

            // Then it trims only a cache over the cap (one byte over: down to 4,999 bytes, so six go)
            #expect(report.trimmed == CleanTally(entries: trimmed, bytes: Int64(trimmed * 1_000)))
            #expect(try cache.index.totalBytes() == Int64((10 - trimmed) * 1_000))
            #expect(try indexedPaths(cache) == Set(keys.dropFirst(trimmed).map(cache.relativePath(forKey:))))
        }
    }

    /// Twenty entries of 1,000 bytes trimmed to half a cap whose low-water mark is one byte above
    /// 6,000, exactly 6,000 and one byte below: the entries that go, least recently used first.
    @Test(arguments: [(12_002, 6_001, 14), (12_000, 6_000, 14), (11_998, 5_999, 15)])
    func aTrimDownToExactlyTheLowWaterMarkStopsThere(maxSize: Int64, lowWaterMark: Int64, gone: Int) throws {
        try TemporaryDirectory.withPath { folder in
            // Given twenty entries of 1,000 bytes, entry 0 the least recently used
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 20, length: { _ in 992 })
            let now = Self.wholeSecondNow()
            try setAllClocks(cache, keys: keys) { now.addingTimeInterval(Double($0 - 100) * 60) }
            let policy = testPolicy(maxSize: maxSize, trimTo: 0.5)
            #expect(policy.lowWaterMark == lowWaterMark)

            // When a dry run and then a clean trim it
            var order: [String] = []
            let dry = try CacheCleaner(cache, policy: policy).run(dryRun: true, now: now)
            let report = try CacheCleaner(cache, policy: policy)
                .run(now: now, onItem: { if $0.kind == .trimmed { order.append($0.relativePath) } })

            // Then the least recently used go until the cache is at or under the mark, and no more:
            // landing exactly on it (14 gone, 6,000 bytes left) takes no fifteenth
            let expected = CleanTally(entries: gone, bytes: Int64(gone * 1_000))
            #expect(dry.trimmed == expected)
            #expect(report.trimmed == expected)
            #expect(order == inRowOrder(keys.prefix(gone).map(cache.relativePath(forKey:))))
            #expect(try cache.index.totalBytes() == Int64((20 - gone) * 1_000))
            let left = Set(keys.dropFirst(gone).map(cache.relativePath(forKey:)))
            #expect(try indexedPaths(cache) == left)
            #expect(Set(try scanFiles(cache).keys) == left)
        }
    }

    /// Twenty-four entries of 1,000 bytes last used three to an hour over eight hours (in each hour one,
    /// then two at the same second), trimmed by 5,000, 6,000 and 7,000 bytes: the whole hours the
    /// totals say fit go by their ids, the hour that reaches the mark by a walk, ties by row id.
    @Test(arguments: [5, 6, 7])
    func aTrimAcrossHoursOfLastUseTakesTheLeastRecentlyUsedThenByRowID(gone: Int) throws {
        try TemporaryDirectory.withPath { folder in
            // Given the entries, entry 0 in the oldest hour
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 24, length: { _ in 992 })
            let now = Self.wholeSecondNow()
            let firstHour = (now.timeIntervalSince1970 / 3_600).rounded(.down) * 3_600 - 48 * 3_600
            let used = { (number: Int) in
                Date(timeIntervalSince1970: firstHour + Double(number / 3) * 3_600 + (number % 3 == 0 ? 600 : 1_200))
            }
            try setAllClocks(cache, keys: keys, when: used)
            #expect(try cache.index.totalsDrift() == nil)
            let policy = testPolicy(maxSize: 20_000, trimTo: Double(24 - gone) / 20)
            #expect(policy.lowWaterMark == Int64((24 - gone) * 1_000))

            // When a dry run and then a clean trim it
            let dry = try CacheCleaner(cache, policy: policy).run(dryRun: true, now: now)
            let report = try CacheCleaner(cache, policy: policy).run(now: now)

            // Then the first `gone` by last use, then by row id, went, and no more
            let byUse = keys.indices.map { (used($0), cache.relativePath(forKey: keys[$0])) }
                .sorted { ($0.0, IndexRowID.base(of: $0.1)) < ($1.0, IndexRowID.base(of: $1.1)) }.map(\.1)
            let expected = CleanTally(entries: gone, bytes: Int64(gone * 1_000))
            #expect(dry.trimmed == expected)
            #expect(report.trimmed == expected)
            let left = Set(byUse.dropFirst(gone))
            #expect(try indexedPaths(cache) == left)
            #expect(Set(try scanFiles(cache).keys) == left)
            #expect(try cache.index.totalsDrift() == nil)
        }
    }
}
