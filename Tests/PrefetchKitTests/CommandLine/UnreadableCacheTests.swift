import Foundation
import Glibc
import Testing
@testable import PrefetchKit

/// A cache folder this user may not read is not "no cache": every command says why, with exit 3.
@Suite(.timeLimit(.minutes(3))) struct UnreadableCacheTests {
    /// Runs a copy of `prefetchd` (in `folder`, so any user may run it) as `nobody` when the tests
    /// run as root, who may read anything; as the tests' own user otherwise.
    static func runAsAnotherUser(_ arguments: [String], in folder: TemporaryDirectory) throws -> Binary.Outcome {
        let copy = folder.path + "/prefetchd"
        if !FileManager.default.fileExists(atPath: copy) {
            try FileManager.default.copyItem(atPath: Binary.url.path, toPath: copy)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)
        }
        let process = Process()
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", copy] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: copy)
            process.arguments = arguments
        }
        return try Binary.outcome(of: process)
    }

    @Test(arguments: [["stats"], ["clean"], ["fsck"], ["path", "http://img.test/a.png"]])
    func everyCommandSaysPermissionDeniedAndExits3(_ command: [String]) throws {
        // Given a cache whose folder no one but its owner may enter
        let folder = try TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let root = folder.path + "/cache"
        _ = try fillCache(try DiskCache.open(at: root, layout: .native), count: 2)
        #expect(chmod(root, 0) == 0)
        defer { chmod(root, 0o755) }

        // When another user asks about it
        let outcome = try Self.runAsAnotherUser(command + ["--cache", root], in: folder)

        // Then it is told why, not that there is no cache
        #expect(outcome.status == 3, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("Permission denied"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("no cache"), "\(outcome.stderr)")
    }

    /// A cache another user may read but not write (its folder 0755, no `tmp/` in it) is read as it
    /// is by the commands that only read: nothing to make there, nothing refused.
    @Test(arguments: [["stats"], ["fsck"], ["verify"], ["path", "https://img0.example.com/p/0.png"]])
    func aCacheThisUserMayOnlyReadIsReadByTheCommandsThatOnlyRead(_ command: [String]) throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let root = folder.path + "/cache"
        let cache = try DiskCache.open(at: root, layout: .native)
        _ = try fillCache(cache, count: 2)
        try cache.flush()
        try FileManager.default.removeItem(atPath: root + "/tmp")
        let job = try folder.write("job.yaml", """
            version: 1
            cache: { path: "\(root)" }
            sets:
              - { name: main, urls: ["https://img0.example.com/p/0.png", "https://img1.example.com/p/1.png"] }
            """)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: job.path)
        let arguments = command == ["verify"] ? ["verify", job.path] : command + ["--cache", root]

        let outcome = try Self.runAsAnotherUser(arguments, in: folder)

        // (fsck reads the two bodies, which are not decodable images: it finds them, exit 1.)
        #expect(outcome.status == (command == ["fsck"] ? 1 : 0), "\(outcome.stdout) \(outcome.stderr)")
        #expect(!outcome.stderr.contains("Permission denied"), "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/tmp"))
    }

    /// A cache of `count` sound PNGs in `folder/cache`, owned by the user `runAsAnotherUser` runs as
    /// (when the tests run as root), with the keys it holds.
    static func anotherUsersCache(of count: Int, in folder: TemporaryDirectory) throws -> (cache: DiskCache, keys: [String]) {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let root = folder.path + "/cache"
        let cache = try DiskCache.open(at: root, layout: .native)
        let keys = (1...count).map { "http://img.test/\($0).png" }
        for key in keys {
            try cache.store(data: Data(ImageFixtures.png(width: 4, height: 3)), as: NewEntry(url: key, key: key))
        }
        try cache.flush()
        if getuid() == 0 {
            let chown = try Binary.tool(["chown", "-R", "65534:65534", root])
            #expect(chown.status == 0, "\(chown.stderr)")
        }
        return (cache, keys)
    }

    @Test func fsckRepairLeavesAFileItMayNotReadWhereItIs() throws {
        // Given a cache another user owns and may write, one of whose files that user may not read
        let folder = try TemporaryDirectory()
        let (cache, keys) = try Self.anotherUsersCache(of: 3, in: folder)
        let root = cache.root
        let closed = try #require(try cache.lookup(key: keys[0])).path
        #expect(chmod(closed, 0) == 0)

        // When that user has fsck repair the cache
        let outcome = try Self.runAsAnotherUser(["fsck", "--cache", root, "--repair"], in: folder)

        // Then the file is reported and left, with its row, and the summary says it was not repaired
        #expect(outcome.status == 1, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains(": Permission denied; left as it is (--repair removes only what it can judge).\n"), "\(outcome.stdout)")
        #expect(outcome.stdout.split(separator: "\n").count == 1, "\(outcome.stdout)")
        #expect(outcome.stderr.contains("1 problem found\n"), "\(outcome.stderr)")
        #expect(FileManager.default.fileExists(atPath: closed))
        let after = try #require(try DiskCache.openExisting(at: root, for: .read))
        #expect(try after.lookup(key: keys[0]) != nil)
        #expect(try after.index.entryCount() == 3)
    }

    @Test func fsckGoesOnPastAFolderItMayNotListAndDropsNoRowOfIt() throws {
        // Given a cache another user owns and may write, one of whose fan-out folders that user may not read
        let folder = try TemporaryDirectory()
        let (cache, keys) = try Self.anotherUsersCache(of: 6, in: folder)
        let root = cache.root
        let hidden = String(try #require(try cache.lookup(key: keys[0])).relativePath.prefix(2))
        let inHidden = try keys.filter { try cache.lookup(key: $0)?.relativePath.hasPrefix(hidden + "/") == true }.count
        #expect(chmod(root + "/" + hidden, 0) == 0)
        defer { chmod(root + "/" + hidden, 0o755) }

        // When that user has fsck repair the cache
        let outcome = try Self.runAsAnotherUser(["fsck", "--cache", root, "--repair"], in: folder)

        // Then the folder is the one problem, said and left, and every row stays
        #expect(outcome.status == 1, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout == "\(hidden): Could not list \(root)/\(hidden): Permission denied; left as it is "
                + "(--repair removes only what it can judge).\n", "\(outcome.stdout)")
        #expect(inHidden >= 1)
        let after = try #require(try DiskCache.openExisting(at: root, for: .read))
        #expect(try after.index.entryCount() == 6)
    }

    /// A damaged index that another user's fsck --repair makes again from the files holds every file
    /// but the one that user may not read, which is said and left.
    @Test func aDamagedIndexIsMadeAgainPastAFileItMayNotRead() throws {
        // Given another user's cache of 60 entries, one file closed to that user, the index's last pages zeroed
        let folder = try TemporaryDirectory()
        let (root, closed) = try { () throws -> (String, CacheEntry) in
            let (cache, keys) = try Self.anotherUsersCache(of: 60, in: folder)
            return (cache.root, try #require(try cache.lookup(key: keys[0])))
        }()
        // (the cache closed: its last connection has written the WAL into the index file)
        #expect(!FileManager.default.fileExists(atPath: root + "/index.sqlite-wal"))
        #expect(chmod(closed.path, 0) == 0)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: root + "/index.sqlite"))
        let size = try handle.seekToEnd()
        try #require(size > 3 * 4096)
        try handle.seek(toOffset: size - 3 * 4096)
        try handle.write(contentsOf: Data(count: 3 * 4096))
        try handle.close()

        // When that user has fsck repair it
        let outcome = try Self.runAsAnotherUser(["fsck", "--cache", root, "--repair"], in: folder)

        // Then the index is made again with the 59 it may read, and the closed file is said and left
        #expect(outcome.status == 1, "\(outcome.stdout)\(outcome.stderr)")
        #expect(outcome.stdout.contains("\(closed.relativePath): "), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("Permission denied; left as it is"), "\(outcome.stdout)")
        #expect(FileManager.default.fileExists(atPath: closed.path))
        let after = try #require(try DiskCache.openExisting(at: root, for: .read))
        #expect(try after.index.entryCount() == 59)
    }
}
