import Foundation
import Testing
import CSQLite
@testable import PrefetchKit

/// SQLite's "database or disk is full" named as the disk's: a run stopped by it says "No space left
/// on device" and how to free space, whether or not SQLite kept the system's reason.
@Suite struct IndexFullErrorTests {
    /// A short write to a full disk (room for part of a WAL frame) gives SQLITE_FULL with no system
    /// error number. A page limit is the one way to get that pair on demand, so it stands in here.
    @Test func aFullIndexWithoutASystemReasonIsSaidToBeOutOfSpace() throws {
        let folder = try TemporaryDirectory()
        let database = try IndexDatabase(path: folder.file("full.sqlite").path)
        try database.execute("CREATE TABLE t(x BLOB)")
        try database.execute("PRAGMA max_page_count = 4")
        var caught: CacheError?
        do {
            try database.execute("INSERT INTO t VALUES(zeroblob(100000))")
        } catch {
            caught = error
        }
        let error = try #require(caught)
        #expect(error.isDiskFull)
        #expect(sqlite3_system_errno(database.handle) == 0)
        let reason = "\(RunError.cache(path: "cache", error))"
        #expect(reason.contains("database or disk is full: No space left on device"), "\(reason)")
        #expect(reason.hasSuffix("`prefetchd clean` frees space on a full disk."), "\(reason)")
    }
}
