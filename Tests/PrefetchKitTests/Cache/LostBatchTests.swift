import Foundation
import Testing
@testable import PrefetchKit

/// A batch SQLite rolled back by itself (after a failed write: a full disk, an I/O error) takes the
/// bodies it placed with it, and the index says so until `settleAfterFailure` hands them out, also
/// after a later commit succeeded: the run's flusher keeps those stores for `revoke` while it does
/// (`Prefetcher.begin`), so its report never counts a removed body as fetched.
@Suite struct LostBatchTests {
    @Test func aLostBatchIsToldUntilItsBodiesAreHandedOutEvenAfterALaterCommit() throws {
        try TemporaryDirectory.withPath { folder in
            // Given three bodies stored in the index's open batch
            let cache = try DiskCache.open(at: folder, layout: .native)
            let lost = try fillCache(cache, count: 3)
            #expect(!cache.index.lostPlacedBodies())

            // When SQLite rolls that batch back by itself (as after a failed commit on a store's thread)
            try cache.index.withConnection { connection throws(CacheError) in
                try connection.database.execute("ROLLBACK")
            }

            // Then the index tells of the loss, and the bodies are gone with their rows
            #expect(cache.index.lostPlacedBodies())
            for key in lost {
                #expect(!FileManager.default.fileExists(atPath: cache.root + "/" + cache.relativePath(forKey: key)))
            }

            // and still does after a later store's batch was committed
            let kept = "https://img0.example.com/p/kept.png"
            try cache.store(data: pngLikeBody(9), as: NewEntry(url: kept, key: kept, setName: "main"))
            try cache.flush()
            #expect(cache.index.lostPlacedBodies())

            // until the bodies are handed out, which are exactly the lost batch's
            #expect(Set(cache.index.settleAfterFailure()) == Set(lost))
            #expect(!cache.index.lostPlacedBodies())
            #expect(try indexedPaths(cache) == [cache.relativePath(forKey: kept)])
        }
    }
}
