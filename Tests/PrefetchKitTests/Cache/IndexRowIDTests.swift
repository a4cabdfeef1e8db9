import Foundation
import Testing
@testable import PrefetchKit

/// Row ids made from relative paths: a path whose first slot another path holds (two paths with the
/// same 61 bits) takes the next one, and every way an entry is found, used, swept and removed finds it
/// there and never the other path's row.
@Suite(.timeLimit(.minutes(1))) struct IndexRowIDTests {
    static let url = "http://127.0.0.1:9/rowid/photo.jpg"

    @Test func theIDKeepsTheSliceAndLeavesTheSlotsFree() {
        let path = "ab/ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab.jpg"
        let base = IndexRowID.base(of: path)
        #expect(base >= 0)
        #expect(base % IndexRowID.slots == 0)
        #expect(IndexRowID.slotIDs(of: path) == base...base + 3)
        #expect(IndexRowID.slice(ofPrefix: "ab/").contains(base))
        #expect(IndexRowID.slice(ofPrefix: "ab").contains(IndexRowID.base(of: "ab0123456789abcdef0123456789abcd.png")))
        #expect(!IndexRowID.slice(ofPrefix: "ac/").contains(base))
        #expect(IndexRowID.slice(ofPrefix: "ff").upperBound == Int64.max)
        #expect(IndexRowID.base(of: path) != IndexRowID.base(of: "ab/ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab.png"))
    }

    @Test func aPathWhoseFirstSlotIsTakenIsStoredFoundUsedAndRemovedInTheNext() throws {
        // Given a cache where another path's row holds the first slot of the entry's path (as a path
        // whose 61 bits agree would; none is known, so the row is written at that id by hand)
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        let path = cache.relativePath(forKey: Self.url)
        let base = IndexRowID.base(of: path)
        let squatter = String(path.prefix(3)) + "squatter.jpg"
        try cache.index.withConnection { connection throws(CacheError) in
            try connection.write(
                """
                INSERT INTO entries(id, url, cache_key, set_name, relative_path, byte_size, format, fetched_at, modified_at, accessed_at)
                VALUES(?1, 'http://other/', 'http://other/', 's', ?2, 3, 'jpeg', 1, 1, 1)
                """, [.integer(base), .text(squatter)])
        }
        try cache.flush()

        // When the entry is stored, and stored again
        try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: Self.url, key: Self.url))
        try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: Self.url, key: Self.url))
        try cache.flush()

        // Then it has one row, in the second slot, and the squatter keeps its own
        let database = try IndexDatabase(path: folder.file("cache").path + "/index.sqlite")
        #expect(try database.text("SELECT group_concat(id - \(base)) FROM (SELECT id FROM entries ORDER BY id)") == "0,1")
        #expect(try database.text("SELECT relative_path FROM entries WHERE id = \(base)") == squatter)
        // and it is found one at a time and in a batch, by path
        #expect(try cache.lookup(key: Self.url)?.relativePath == path)
        #expect(try cache.lookup([cache.location(forKey: Self.url)]).map { $0?.id } == [base + 1])
        #expect(try cache.index.entry(relativePath: path)?.url == Self.url)

        // When it is used, and its folder swept
        let later = Date().addingTimeInterval(86_400)
        try cache.index.touch(relativePath: path, at: later)
        try cache.flush()
        #expect(try database.text("SELECT accessed_at FROM entries WHERE id = \(base)") == "1.0")
        // (the use recorded for the entry's own row, in the second slot, and read as its last use)
        #expect(try database.text("SELECT group_concat(id - \(base)) FROM recent_uses") == "1")
        #expect(abs(try #require(try lastUse(cache, key: Self.url)).timeIntervalSince(later)) < 0.001)
        let folderRows = try cache.index.rows(withPathPrefix: String(path.prefix(3)))
        #expect(Set(folderRows.map(\.relativePath)) == [path, squatter])

        // When it is removed
        try cache.index.deleteEntry(relativePath: path)
        try cache.flush()

        // Then the squatter is left, untouched
        #expect(try database.text("SELECT group_concat(relative_path) FROM entries") == squatter)
        #expect(try cache.index.entry(relativePath: path) == nil)
    }
}
