import Foundation
import Testing
@testable import PrefetchKit

/// A run reads its keys' rows a batch at a time (`Prefetcher.readAheadCount`): what it decides, counts
/// and records must not depend on where a batch ends.
@Suite(.timeLimit(.minutes(3))) struct RunReadAheadTests {
    @Test func aWarmRerunAcrossBatchesFindsEveryKeyAndRecordsItsUse() throws {
        // Given a job of more than two batches' worth of URLs, one listed twice within the first batch,
        // one again just past its end and the last again in the last batch, all fetched once
        let harness = try RunHarness()
        let count = Prefetcher.readAheadCount * 2 + 40
        let paths = (0..<count).map { "/count/ahead-\($0)" }
        let batch = Prefetcher.readAheadCount
        // The first batch ends with paths[batch - 2]; the second begins with it again.
        let listed = Array(paths[0..<10]) + [paths[3]] + Array(paths[10..<(batch - 1)]) + [paths[batch - 2]]
            + Array(paths[(batch - 1)...]) + [paths[count - 1]]
        try harness.folder.write("urls.txt", listed.map(harness.url).joined(separator: "\n") + "\n")
        let job = try harness.job(defaults: ["concurrency": "16", "per_host": "16"],
                                  sets: ["  - name: s\n    url_file: urls.txt"])
        let first = try harness.run([job])
        #expect(first.report.totals == .expected(requested: listed.count, unique: count, fetched: count,
                                                 bytes: harness.png.count * count))
        // and then one file deleted behind the cache's back and every use set back a day
        let gone = Prefetcher.readAheadCount + 7
        #expect(unlink(harness.finalPath(forKey: harness.url(paths[gone]))) == 0)
        let dayAgo = Date().addingTimeInterval(-86_400)
        do {
            let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
            try cache.index.withConnection { connection throws(CacheError) in
                try connection.write("UPDATE entries SET accessed_at = ?", [.date(dayAgo)])
            }
            try cache.flush()
        }

        // When the job runs again
        let started = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let second = try harness.run([job])

        // Then every key is cached but the deleted one, fetched again; none is fetched twice
        #expect(second.report.totals == .expected(requested: listed.count, unique: count, fetched: 1, cached: count - 1,
                                                  bytes: harness.png.count))
        #expect(try harness.server.hits("ahead-\(gone)") == 2)
        #expect(try harness.server.hits("ahead-3") == 1)
        #expect(try harness.server.hits("ahead-\(batch - 2)") == 1)
        #expect(try harness.server.hits("ahead-\(count - 1)") == 1)
        // and every entry's last use is this run's
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        let entries = try cache.index.allEntries()
        #expect(entries.count == count)
        #expect(entries.allSatisfy { $0.accessedAt >= started }, "uses left as they were")
    }

    @Test func aShardLooksUpOnlyItsOwnKeys() throws {
        // Given a cached job of a batch and a half, one of whose files outside shard 1 of 2 is gone
        let harness = try RunHarness()
        let count = Prefetcher.readAheadCount + Prefetcher.readAheadCount / 2
        let urls = (0..<count).map { harness.url("/count/shard-\($0)") }
        try harness.folder.write("urls.txt", urls.joined(separator: "\n") + "\n")
        let job = try harness.job(defaults: ["concurrency": "16", "per_host": "16"],
                                  sets: ["  - name: s\n    url_file: urls.txt"])
        try harness.run([job])
        let shard = try #require(Shard(index: 1, count: 2))
        let outside = try #require(urls.first { !shard.contains(key: $0) })
        #expect(unlink(harness.finalPath(forKey: outside)) == 0)

        // When shard 1 runs again
        let result = try harness.run([job]) { $0.settings.shard = shard }

        // Then its keys are cached, the others skipped, and the row of the file outside it is left alone
        let inside = urls.filter { shard.contains(key: $0) }.count
        #expect(result.report.totals == .expected(requested: count, unique: count, cached: inside, skipped: count - inside))
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        #expect(try cache.index.entry(relativePath: cache.relativePath(forKey: outside)) != nil)
    }
}
