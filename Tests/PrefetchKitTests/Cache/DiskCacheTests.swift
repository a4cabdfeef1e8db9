import Foundation
import Testing
@testable import PrefetchKit

@Suite struct DiskCacheTests {
    @Test func anIndexErrorNamesAStatementByItsFirstLine() throws {
        try TemporaryDirectory.withPath { folder in
            let database = try IndexDatabase(path: folder + "/index.sqlite")
            #expect {
                try database.execute("CREATE TABLE twice (\n    a INTEGER,\n    a INTEGER\n)")
            } throws: { error in
                let text = "\(error)"
                return !text.contains("\n") && text.contains("failed to run CREATE TABLE twice (:") && text.contains("duplicate column")
            }
        }
    }

    @Test func openMakesTheCacheFolderWithItsMissingParents() throws {
        try TemporaryDirectory.withPath { folder in
            // Given a cache path two folders below one that exists, and one below a plain file
            let nested = folder + "/srv/prefetchd/catalog"
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/file"))

            // Then the first is made, parents and all, and takes a store
            let cache = try DiskCache.open(at: nested, layout: .native)
            let stored = try cache.store(data: pngLikeBody(1), as: NewEntry(url: "https://c.example/1.png", key: "https://c.example/1.png"))
            #expect(FileManager.default.fileExists(atPath: stored.path))
            #expect(stored.path.hasPrefix(nested + "/"))
            // And the second is refused with the reason, as is the file itself
            #expect {
                try DiskCache.open(at: folder + "/file/cache", layout: .native)
            } throws: { "\($0)".contains("Not a directory") }
            #expect {
                try DiskCache.open(at: folder + "/file", layout: .native)
            } throws: { "\($0)" == "is a file, not a cache folder: \(folder)/file" }
            // (also by the commands that only read an existing cache, rather than "no cache there")
            #expect {
                try DiskCache.openExisting(at: folder + "/file")
            } throws: { "\($0)" == "is a file, not a cache folder: \(folder)/file" }
        }
    }

    @Test func aNewCacheWhoseTmpIsAFileIsRefusedWithTheReason() throws {
        try TemporaryDirectory.withPath { folder in
            // Given a folder with no cache yet, holding a plain file named tmp
            try Data("notes".utf8).write(to: URL(fileURLWithPath: folder + "/tmp"))

            // Then making a cache there says why it cannot (not a stale "No such file or directory")
            #expect {
                try DiskCache.open(at: folder, layout: .native)
            } throws: { error in
                let text = "\(error)"
                return text.hasPrefix("Could not create \(folder)/tmp/") && text.hasSuffix(": Not a directory.")
            }
            // And leaves the file, and no marker
            #expect(FileManager.default.contents(atPath: folder + "/tmp") == Data("notes".utf8))
            #expect(!FileManager.default.fileExists(atPath: folder + "/CACHEDIR.TAG"))
        }
    }

    @Test(arguments: CacheLayout.allCases)
    func storedBodyIsFoundAgain(layout: CacheLayout) throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: layout)
            let url = "https://cdn.example.com/a/b/photo.JPG?v=2"
            let body = pngLikeBody(1)
            let stored = try cache.store(data: body, as: NewEntry(url: url, key: url, setName: "hero", etag: "\"e1\""))

            let found = try #require(try cache.lookup(key: url))
            #expect(found == stored)
            #expect(found.size == Int64(body.count))
            #expect(found.format == .png)
            #expect(found.setName == "hero")
            #expect(found.etag == "\"e1\"")
            #expect(FileManager.default.contents(atPath: found.path) == body)
            #expect(try cache.lookup(key: url + "&other") == nil)
        }
    }

    /// A committed-only lookup reads beside a store in progress: it neither waits for the writer that
    /// holds the index nor sees that writer's uncommitted rows, and sees them once committed.
    @Test func aCommittedOnlyLookupDoesNotWaitForTheWriter() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let committed = "https://cdn.example.com/committed.png"
            let pending = "https://cdn.example.com/pending.png"
            try cache.store(data: pngLikeBody(1), as: NewEntry(url: committed, key: committed))
            try cache.flush()
            try cache.store(data: pngLikeBody(2), as: NewEntry(url: pending, key: pending))

            // The writer holds the index for 3 s, or until released.
            let writerHolds = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let writer = Thread {
                _ = try? cache.index.withConnection { _ in
                    writerHolds.signal()
                    _ = release.wait(timeout: .now() + 3)
                }
            }
            writer.start()
            writerHolds.wait()
            let started = Date()

            #expect(try cache.lookup(cache.location(forKey: committed), committedOnly: true)?.url == committed)
            #expect(try cache.lookup(cache.location(forKey: pending), committedOnly: true) == nil)
            #expect(Date().timeIntervalSince(started) < 1)
            release.signal()
            try cache.flush()
            #expect(try cache.lookup(cache.location(forKey: pending), committedOnly: true)?.url == pending)
        }
    }

    @Test func nativeLayoutFansOutBySHA256WithTheImageExtension() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            // Hashes from coreutils sha256sum.
            #expect(cache.relativePath(forKey: "https://cdn.example.com/banners/1.JPG?x=1")
                == "4f/4fa86cac76ebae20c02a718444cf3fb750774e45d29bee0614a7b92393fff7d2.jpg")
            #expect(cache.relativePath(forKey: "https://cdn.example.com/noext")
                == "e8/e8cebd4941771bcede6807187f5f17f237b76ac8b7432820509bf0a83bfe4f73")
        }
    }

    @Test func aTempFileIsInvisibleUntilCommitted() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/a.png"
            let finalPath = folder + "/" + cache.relativePath(forKey: url)
            let temp = try cache.makeTempFile()
            try temp.write(pngLikeBody(2))

            #expect(temp.path.hasPrefix(folder + "/tmp/") && temp.path.hasSuffix(".part"))
            #expect(!FileManager.default.fileExists(atPath: finalPath))
            #expect(try cache.lookup(key: url) == nil)

            try cache.commit(temp, as: NewEntry(url: url, key: url))
            #expect(FileManager.default.fileExists(atPath: finalPath))
            #expect(!FileManager.default.fileExists(atPath: temp.path))
            #expect(throws: CacheError.tempFileClosed(path: temp.path)) { try cache.commit(temp, as: NewEntry(url: url, key: url)) }
        }
    }

    @Test func aBodyFileWrittenThroughItsPathIsHashedAndCommitted() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/d.png"
            let temp = try cache.makeBodyFile(forKey: url)
            // Unnamed, in the entry's own folder: nothing to see there until it is committed.
            #expect(temp.path.hasPrefix("/proc/self/fd/"))
            let entryFolder = folder + "/" + (cache.relativePath(forKey: url) as NSString).deletingLastPathComponent
            #expect(try FileManager.default.contentsOfDirectory(atPath: entryFolder).isEmpty)
            #expect(try tempLeftovers(root: folder).isEmpty)
            // The downloader opens the path and writes the body itself.
            let body = Data("abc".utf8)
            let handle = try #require(FileHandle(forWritingAtPath: temp.path))
            try handle.write(contentsOf: body)
            try handle.close()

            let stored = try cache.commit(temp, as: NewEntry(url: url, key: url, setName: "s"))

            #expect(stored.size == 3)
            // XXH3-128 of "abc" from `xxhsum -H2`.
            #expect(stored.checksum == "xxh3:06b05ab6733a618578af5f94892f3950")
            #expect(try cache.lookup(key: url)?.path == stored.path)
            #expect(FileManager.default.contents(atPath: stored.path) == body)
            #expect(try FileManager.default.contentsOfDirectory(atPath: entryFolder) == [(stored.path as NSString).lastPathComponent])
        }
    }

    /// An unnamed file goes in by its descriptor where the kernel allows that, and through its
    /// `/proc/self/fd` path where it does not; either way a taken name is replaced whole.
    @Test(arguments: [true, false])
    func anUnnamedFileIsLinkedInByItsDescriptorOrItsProcPath(byDescriptor: Bool) throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path
        let target = folder + "/body.jpg"
        var asides: [String] = []
        func place(_ text: String) throws -> Int32 {
            let temp = try #require(try TempFile(unnamedIn: folder))
            try temp.write(Data(text.utf8))
            return temp.place(at: target, aside: {
                asides.append(folder + "/aside-\(asides.count).part")
                return asides[asides.count - 1]
            }, byDescriptor: byDescriptor)
        }
        #expect(try place("first") == 0)
        #expect(FileManager.default.contents(atPath: target) == Data("first".utf8))
        #expect(try place("second body") == 0)
        #expect(FileManager.default.contents(atPath: target) == Data("second body".utf8))
        #expect(asides.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["body.jpg"])
    }

    @Test func aBodyFileReplacesAnEarlierBodyWhole() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/r.png"
            let first = try cache.store(data: Data("first".utf8), as: NewEntry(url: url, key: url))
            let temp = try cache.makeBodyFile(forKey: url)
            try temp.write(Data("second body".utf8))
            #expect(FileManager.default.contents(atPath: first.path) == Data("first".utf8))

            let second = try cache.commit(temp, as: NewEntry(url: url, key: url))

            #expect(second.path == first.path)
            #expect(FileManager.default.contents(atPath: second.path) == Data("second body".utf8))
            #expect(try cache.lookup(key: url)?.size == 11)
            #expect(try tempLeftovers(root: folder).isEmpty)
        }
    }

    @Test func aBodyFileRemakesARemovedFolder() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/gone.png"
            let entryFolder = folder + "/" + (cache.relativePath(forKey: url) as NSString).deletingLastPathComponent
            try FileManager.default.removeItem(atPath: entryFolder)

            let stored = try cache.store(data: Data("body".utf8), as: NewEntry(url: url, key: url))

            #expect(FileManager.default.contents(atPath: stored.path) == Data("body".utf8))
        }
    }

    @Test func aDroppedTempFileIsRemoved() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            var path = ""
            do {
                let temp = try cache.makeTempFile()
                try temp.write(Data("partial".utf8))
                path = temp.path
                #expect(FileManager.default.fileExists(atPath: path))
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func durableCommitStoresTheSameBody() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .sdwebimage, durable: true)
            let url = "https://cdn.example.com/d.gif"
            let entry = try cache.store(data: Data("GIF89a-body".utf8), as: NewEntry(url: url, key: url))
            #expect(entry.format == .gif)
            #expect(FileManager.default.contents(atPath: entry.path) == Data("GIF89a-body".utf8))
        }
    }

    @Test func openingWithAnotherLayoutIsAnError() throws {
        try TemporaryDirectory.withPath { folder in
            _ = try DiskCache.open(at: folder, layout: .native)
            #expect(throws: CacheError.layoutMismatch(path: folder, existing: .native, requested: .sdwebimage)) {
                try DiskCache.open(at: folder, layout: .sdwebimage)
            }
            // The marker alone decides once the index is gone.
            try FileManager.default.removeItem(atPath: folder + "/index.sqlite")
            #expect(throws: CacheError.layoutMismatch(path: folder, existing: .native, requested: .sdwebimage)) {
                try DiskCache.open(at: folder, layout: .sdwebimage)
            }
        }
    }

    @Test func aSizeMismatchOnLookupDropsTheRow() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/s.png"
            let entry = try cache.store(data: pngLikeBody(3), as: NewEntry(url: url, key: url))
            try Data("short".utf8).write(to: URL(fileURLWithPath: entry.path))

            #expect(try cache.lookup(key: url) == nil)
            #expect(try cache.index.entryCount() == 0)
        }
    }

    @Test func aMissingFileOnLookupDropsTheRow() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .sdwebimage)
            let url = "https://cdn.example.com/m.png"
            let entry = try cache.store(data: pngLikeBody(4), as: NewEntry(url: url, key: url))
            try FileManager.default.removeItem(atPath: entry.path)

            #expect(try cache.path(forKey: url) == nil)
            #expect(try cache.index.entryCount() == 0)
        }
    }

    @Test func pathCountsAsAUseWrittenAtFlush() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/t.png"
            let entry = try cache.store(data: pngLikeBody(5), as: NewEntry(url: url, key: url))
            try cache.flush()
            let reader = try IndexDatabase(path: folder + "/index.sqlite")
            let query = "SELECT accessed_at FROM entries"
            let before = try #require(try reader.text(query))

            let later = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded())
            #expect(try cache.path(forKey: url) == entry.path)
            try cache.touch(key: url, at: later)
            #expect(try reader.text(query) == before)

            // Written at the flush, beside the row; read as the entry's last use from the whole row
            try cache.flush()
            #expect(try reader.text(query) == before)
            #expect(try reader.text("SELECT accessed_at FROM recent_uses").flatMap(Double.init) == later.timeIntervalSince1970)
            #expect(try lastUse(cache, key: url) == later)
            #expect(try #require(try cache.lookup(key: url)).accessedAt < later)
            // and moved into the row by a fold
            try cache.index.foldRecentUses()
            #expect(try reader.text(query).flatMap(Double.init) == later.timeIntervalSince1970)
            #expect(try reader.text("SELECT count(*) FROM recent_uses") == "0")
            #expect(try cache.lookup(key: url)?.accessedAt == later)
        }
    }

    /// A cache in `folder` holding three small entries, committed, and their URLs.
    private static func threeStored(_ folder: String) throws -> (DiskCache, [String]) {
        let cache = try DiskCache.open(at: folder, layout: .native)
        let urls = (0..<3).map { "https://cdn.example.com/\($0).png" }
        for url in urls { try cache.store(data: pngLikeBody(5), as: NewEntry(url: url, key: url)) }
        try cache.flush()
        return (cache, urls)
    }

    @Test func aBatchOfUsesKeepsEachTimeExactlyAndOnlyMovesForward() throws {
        try TemporaryDirectory.withPath { folder in
            // Given three entries and uses at times a JSON list must carry to the last bit
            let (cache, urls) = try Self.threeStored(folder)
            let base = Date().timeIntervalSince1970 + 3600
            let times = [base + 0.1, base + 1.0 / 3.0, base + 0.123456789]

            // When they are written in one batch, the first key's twice (the later one last), and an
            // earlier use of the second key after its later one
            for (url, time) in zip(urls, times) { try cache.touch(key: url, at: Date(timeIntervalSince1970: time)) }
            try cache.touch(key: urls[0], at: Date(timeIntervalSince1970: times[0] + 5))
            try cache.flush()
            try cache.touch(key: urls[1], at: Date(timeIntervalSince1970: base - 100))
            try cache.flush()

            // Then each row holds its latest use exactly, and the earlier one did not move it back
            #expect(try lastUse(cache, key: urls[0])?.timeIntervalSince1970 == times[0] + 5)
            #expect(try lastUse(cache, key: urls[1])?.timeIntervalSince1970 == times[1])
            #expect(try lastUse(cache, key: urls[2])?.timeIntervalSince1970 == times[2])
            // and so after a fold into the rows
            try cache.index.foldRecentUses()
            #expect(try cache.lookup(key: urls[0])?.accessedAt.timeIntervalSince1970 == times[0] + 5)
            #expect(try cache.lookup(key: urls[1])?.accessedAt.timeIntervalSince1970 == times[1])
            #expect(try cache.lookup(key: urls[2])?.accessedAt.timeIntervalSince1970 == times[2])
        }
    }

    /// A batched lookup hands over each row's id, and a use by that id is written for that row alone,
    /// in the same batch as uses by path, the later of two times kept.
    @Test func aUseByTheRowIDALookupReadIsWrittenForThatRow() throws {
        try TemporaryDirectory.withPath { folder in
            let (cache, urls) = try Self.threeStored(folder)
            let rows = try cache.lookup(urls.map(cache.location(forKey:)))
            let first = try #require(rows[0]), second = try #require(rows[1])
            #expect(first.hasURL && second.hasURL && first.id != second.id)
            let later = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded())

            try cache.touch(rowID: first.id, at: later)
            try cache.touch(rowID: first.id, at: later.addingTimeInterval(-60))
            try cache.touch(key: urls[1], at: later.addingTimeInterval(5))
            try cache.flush()

            #expect(try lastUse(cache, key: urls[0]) == later)
            #expect(try lastUse(cache, key: urls[1]) == later.addingTimeInterval(5))
            #expect(try #require(try lastUse(cache, key: urls[2])) < later)
        }
    }

    @Test func aRefetchKeepsTheFirstFetchTime() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/r.png"
            let first = try cache.store(data: pngLikeBody(6), as: NewEntry(url: url, key: url))
            let second = try cache.store(data: pngLikeBody(7, length: 500), as: NewEntry(url: url, key: url))

            #expect(try cache.lookup(key: url)?.fetchedAt == first.fetchedAt)
            #expect(second.size == 508)
            #expect(try cache.index.entryCount() == 1)
            #expect(FileManager.default.contents(atPath: second.path) == pngLikeBody(7, length: 500))
        }
    }

    @Test func removeDeletesFileAndRow() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/x.webp"
            let entry = try cache.store(data: pngLikeBody(8), as: NewEntry(url: url, key: url))
            try cache.remove(key: url)
            #expect(!FileManager.default.fileExists(atPath: entry.path))
            #expect(try cache.lookup(key: url) == nil)
        }
    }

    @Test func revalidationUpdatesValidatorsAndModificationTime() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let url = "https://cdn.example.com/v.png"
            try cache.store(data: pngLikeBody(9), as: NewEntry(url: url, key: url, etag: "\"a\""))
            let later = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 60).rounded())
            try cache.markRevalidated(key: url, etag: "\"b\"", lastModified: nil, at: later)

            let entry = try #require(try cache.lookup(key: url))
            #expect(entry.etag == "\"b\"")
            #expect(entry.modifiedAt == later)
            #expect(entry.validatedAt == later)
            #expect(entry.fetchedAt < later)
        }
    }

    @Test func countsBytesAndOldestEntries() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = (0..<3).map { "https://cdn.example.com/\($0).png" }
            for (number, key) in keys.enumerated() {
                try cache.store(data: pngLikeBody(number, length: 100), as: NewEntry(url: key, key: key))
            }
            try cache.touch(key: keys[0], at: Date().addingTimeInterval(100))

            #expect(try cache.index.entryCount() == 3)
            #expect(try cache.index.totalBytes() == 324)
            try cache.flush()
            let entries = try cache.index.allEntries()
            #expect(entries.sorted { $0.accessedAt < $1.accessedAt }.prefix(2).map(\.key) == [keys[1], keys[2]])
            #expect(entries.sorted { $0.fetchedAt < $1.fetchedAt }.map(\.key) == keys)
        }
    }
}
