import Foundation
import Testing
@testable import PrefetchKit

/// The commands that only read, beside a writer that holds the index's write lock and does not let go:
/// a run stopped with SIGSTOP (or Ctrl-Z) in the middle of a batch.
@Suite(.timeLimit(.minutes(3))) struct ReadersBesideAWriterTests {
    @Test func theCommandsThatOnlyReadDoNotWaitForAStoppedWriter() throws {
        // Given a cache of ten entries, and a writer holding an open batch of one more
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.path + "/cache", layout: .native)
        let keys = try fillCache(cache, count: 10)
        try cache.flush()
        let held = "https://img0.example.com/p/held.png"
        try cache.store(data: pngLikeBody(99, length: 500), as: NewEntry(url: held, key: held, setName: "held"))
        try withExtendedLifetime(cache) {
            // When stats, path and a dry-run clean are asked about it
            let stats = try Binary.run(["stats", "--cache", cache.root, "--format", "json"])
            let path = try Binary.run(["path", keys[0], "--cache", cache.root])
            let dryRun = try Binary.run(["clean", "--cache", cache.root, "--dry-run", "--max-age", "0"])

            // Then each answers from what is committed
            #expect(stats.status == 0, "\(stats.stderr)")
            let object = try #require(try? JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], "\(stats.stderr)")
            #expect(object["entries"] as? Int == 10)
            // (path prints the path, though it cannot record the use)
            #expect(path.status == 0 && path.stdout == cache.root + "/" + cache.relativePath(forKey: keys[0]) + "\n", "\(path.stderr)")
            #expect(path.stderr.contains("the use was not recorded: "), "\(path.stderr)")
            #expect(dryRun.status == 0, "\(dryRun.stderr)")
        }
    }
}
