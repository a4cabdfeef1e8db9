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
}
