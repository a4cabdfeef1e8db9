import Foundation
import Glibc
import Testing
@testable import PrefetchKit

/// A symbolic link where one of the cache's own folders belongs leads nothing outside the cache:
/// no file there is indexed, written or removed; fsck reports the link and --repair replaces it.
@Suite(.timeLimit(.minutes(3))) struct LinkedFolderTests {
    /// A native cache of three old entries in `<folder>/cache`, and `<folder>/outside` holding a file
    /// named like an entry of an empty fan-out folder, a text file, an old `.part` and a reserve's
    /// name, which stand for someone else's files.
    struct World {
        let folder: TemporaryDirectory
        var root: String { folder.path + "/cache" }
        var outside: String { folder.path + "/outside" }
        let outsiders: [String]
        /// A fan-out folder that holds no entry.
        let emptyFolder: String

        init() throws {
            folder = try TemporaryDirectory()
            let cache = try DiskCache.open(at: folder.path + "/cache", layout: .native)
            let used = Set(try fillCache(cache, count: 3).map { String(cache.relativePath(forKey: $0).prefix(2)) })
            try cache.flush()
            emptyFolder = try #require(CacheFileNaming.nativeFolders.first { !used.contains($0) })
            try FileManager.default.createDirectory(atPath: folder.path + "/outside", withIntermediateDirectories: true)
            let lookalike = emptyFolder + String(repeating: "0", count: 62) + ".png"
            outsiders = [lookalike, "notes.txt", "old.part", "clean.reserve"]
            for name in outsiders {
                try Data(pngLikeBody(7)).write(to: URL(fileURLWithPath: folder.path + "/outside/" + name))
                let old = Date().addingTimeInterval(-30 * 86_400)
                try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: folder.path + "/outside/" + name)
            }
        }

        /// Puts a link to `outside` in the place of the cache's `tmp` or its empty fan-out folder;
        /// returns that folder's name.
        @discardableResult
        func link(_ kind: String) throws -> String {
            let name = kind == "tmp" ? "tmp" : emptyFolder
            let path = root + "/" + name
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside)
            return name
        }

        func expectOutsideUntouched(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: outside).sorted()
            #expect(names == outsiders.sorted(), sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["fan-out", "tmp"])
    func cleanRefusesAndRemovesNothingOutside(_ kind: String) throws {
        let world = try World()
        let name = try world.link(kind)

        let clean = try Binary.run(["clean", "--cache", world.root, "--max-age", "1s"])

        #expect(clean.status == 3, "\(clean.stderr)")
        #expect(clean.stderr.contains("\(world.root)/\(name) is a symbolic link to \(world.outside)"), "\(clean.stderr)")
        try world.expectOutsideUntouched()
        let cache = try #require(try DiskCache.openExisting(at: world.root, for: .read))
        #expect(try cache.index.entryCount() == 3)
    }

    @Test(arguments: ["fan-out", "tmp"])
    func aRunRefusesToStoreThroughALink(_ kind: String) throws {
        let world = try World()
        try world.link(kind)
        let transport = ScriptedTransport { _ in .body(SchedulerTests.png) }

        #expect(throws: CacheError.self) {
            _ = try SchedulerTests.run(world.folder, sets: """
                  - { name: s, urls: ["http://img.test/a.png"] }
                """, transport: transport)
        }
        let run = try Binary.run(["run", try world.folder.write("job.yaml", """
            version: 1
            cache: { path: "\(world.root)" }
            sets:
              - { name: s, urls: ["http://127.0.0.1:9/a.png"] }
            """).path, "--progress", "never"])

        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("is a symbolic link"), "\(run.stderr)")
        #expect(transport.submitted.withLock { $0 }.isEmpty)
        try world.expectOutsideUntouched()
    }

    /// A plain file in a folder's place (where a store fails and says so): fsck names it, and --repair
    /// puts a folder there.
    @Test(arguments: ["fan-out", "tmp"])
    func aFileWhereAFolderBelongsIsReportedAndRepaired(_ kind: String) throws {
        let world = try World()
        let name = kind == "tmp" ? "tmp" : world.emptyFolder
        let path = world.root + "/" + name
        try FileManager.default.removeItem(atPath: path)
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: path))

        let check = try Binary.run(["fsck", "--cache", world.root])
        let repair = try Binary.run(["fsck", "--cache", world.root, "--repair"])
        let after = try Binary.run(["fsck", "--cache", world.root])

        #expect(check.status == 1, "\(check.stdout) \(check.stderr)")
        #expect(check.stdout.split(separator: "\n").map(String.init).first == "\(name): the cache's own folder is a file, not a folder; "
            + "nothing is read or written through it.", "\(check.stdout)")
        #expect(repair.status == 1, "\(repair.stderr)")
        #expect(DiskCache.isRealFolder(path))
        #expect(after.status == 0, "\(after.stdout) \(after.stderr)")
    }

    @Test(arguments: ["fan-out", "tmp"])
    func fsckReportsTheLinkAndRepairPutsARealFolderInItsPlace(_ kind: String) throws {
        let world = try World()
        let name = try world.link(kind)

        let check = try Binary.run(["fsck", "--cache", world.root])
        let repair = try Binary.run(["fsck", "--cache", world.root, "--repair"])
        let after = try Binary.run(["fsck", "--cache", world.root])
        let clean = try Binary.run(["clean", "--cache", world.root])

        // (The world's three entries are not decodable images: fsck reports them too, and --repair drops them.)
        #expect(check.status == 1, "\(check.stdout) \(check.stderr)")
        let lines = check.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(name): the cache's own folder is a symbolic link to \(world.outside); "
            + "nothing is read or written through it.", "\(check.stdout)")
        #expect(lines.dropFirst().allSatisfy { $0.hasSuffix(": corrupt") && !$0.hasPrefix(name) }, "\(check.stdout)")
        #expect(repair.status == 1, "\(repair.stderr)")
        #expect(DiskCache.isRealFolder(world.root + "/" + name))
        #expect(after.status == 0, "\(after.stdout) \(after.stderr)")
        #expect(clean.status == 0, "\(clean.stderr)")
        try world.expectOutsideUntouched()
    }

    /// A fan-out folder whose entry's file was moved outside and replaced by a link to it: every command
    /// that would read or take that file refuses the cache, and one `fsck --repair` leaves it whole.
    @Test func aLinkedFolderHoldingAnEntryIsReadByNoCommandAndOneRepairMendsIt() throws {
        // Given a cache of three entries, one of whose folders now links to where its file went
        let world = try World()
        let cache = try #require(try DiskCache.openExisting(at: world.root, for: .read))
        let entry = try #require(try cache.index.allEntries().first)
        let folder = String(entry.relativePath.prefix(2))
        let moved = world.folder.path + "/moved"
        try FileManager.default.moveItem(atPath: world.root + "/" + folder, toPath: moved)
        try FileManager.default.createSymbolicLink(atPath: world.root + "/" + folder, withDestinationPath: moved)
        let job = try world.folder.write("job.yaml", """
            version: 1
            cache: { path: "\(world.root)" }
            sets:
              - { name: s, urls: ["\(try #require(entry.key))"] }
            """).path

        // When path, verify, export and merge (from it, and into it) are asked
        let commands = [
            ["path", try #require(entry.key), "--cache", world.root], ["verify", job],
            ["export", world.folder.path + "/export", "--layout", "sdwebimage", "--cache", world.root],
            ["merge", world.root, "--into", world.folder.path + "/merged"],
        ]
        // Then each refuses, naming the link, and nothing is made from what is behind it
        for command in commands {
            let outcome = try Binary.run(command)
            #expect(outcome.status == 3, "\(command[0]): \(outcome.stdout) \(outcome.stderr)")
            #expect(outcome.stderr.contains("\(world.root)/\(folder) is a symbolic link to \(moved)"), "\(command[0]): \(outcome.stderr)")
            #expect(outcome.stderr.contains("prefetchd \(command[0]): cache \(world.root): "), "the cache named: \(outcome.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: world.folder.path + "/export"))
        #expect(!FileManager.default.fileExists(atPath: world.folder.path + "/merged"))
        let source = try DiskCache.open(at: world.folder.path + "/other", layout: .native)
        _ = try fillCache(source, count: 1)
        try source.flush()
        let into = try Binary.run(["merge", world.folder.path + "/other", "--into", world.root])
        #expect(into.status == 3 && into.stderr.contains("is a symbolic link"), "\(into.stderr)")

        // And fsck names the link without reading through it; one --repair leaves nothing for the next
        let check = try Binary.run(["fsck", "--cache", world.root])
        #expect(!check.stdout.contains(entry.relativePath), "\(check.stdout)")
        let repair = try Binary.run(["fsck", "--cache", world.root, "--repair"])
        #expect(repair.stdout.contains("\(entry.relativePath): indexed but the file is missing."), "\(repair.stdout)")
        let after = try Binary.run(["fsck", "--cache", world.root])
        #expect(after.status == 0 && after.stdout.isEmpty, "\(after.stdout) \(after.stderr)")
        #expect(FileManager.default.fileExists(atPath: moved + "/" + entry.relativePath.dropFirst(3)))
    }
}
