import Foundation
import Testing
@testable import PrefetchKit

/// Whether a clean holds its files open: the mount table's word on the file system a cache is on.
@Suite struct MountTableTests {
    static let table = """
        27 22 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,discard,errors=remount-ro
        25 27 0:21 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,size=1024k
        31 27 253:2 / /srv rw,relatime shared:9 - xfs /dev/vdb rw,attr2,inode64
        32 31 253:3 / /srv/cache\\040disk rw,relatime,discard - ext4 /dev/vdc rw
        35 31 253:4 / /srv/ram rw,relatime shared:11 - btrfs /dev/vdd rw,discard=async,space_cache=v2
        33 31 0:40 / /srv/ram rw,relatime shared:10 - tmpfs tmpfs rw
        36 35 0:41 / /srv/ram rw,relatime - tmpfs  rw
        40 27 0:50 / /var/lib/docker/overlay rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u
        41 27 0:51 / /mnt/nfs rw,relatime - nfs4 server:/export rw,vers=4.2
        """

    @Test(arguments: [
        ("/", true), ("/var/cache/prefetchd", true), ("/dev/shm/cache", false), ("/dev/shmem", true),
        ("/srv", false), ("/srv/images", false), ("/srv/cache disk/x", true), ("/srv/cache", false),
        ("/srv/ram/cache", false), ("/var/lib/docker/overlay/cache", true), ("/mnt/nfs/cache", true),
    ])
    func theMountHoldingAPathSaysWhetherFreeingMayWait(path: String, waits: Bool) {
        // A disk's file system waits where it discards (by its mount's own options or its file
        // system's, `discard=async` too); a tmpfs never; an overlay or NFS, whose device the table does
        // not show, counts as waiting. The longest mount point above the path is its mount, and of
        // several at one point the one no other is mounted on (here the tmpfs 36, with an empty
        // source, on 35, listed before 33); an escaped space in a mount point reads as a space.
        #expect(MountTable.mayWaitToFree(at: path, table: Self.table) == waits)
    }

    @Test func anUnreadableOrEmptyTableCountsAsWaiting() {
        #expect(MountTable.mayWaitToFree(at: "/var/cache", table: nil))
        #expect(MountTable.mayWaitToFree(at: "/var/cache", table: ""))
        #expect(MountTable.mayWaitToFree(at: "/var/cache", table: "garbage line\n - -"))
    }

    /// A path through a symbolic link is judged by where it leads.
    @Test func aSymbolicLinkIsFollowed() throws {
        let folder = try TemporaryDirectory()
        let link = folder.path + "/to-shm"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/shm")
        #expect(ResolvedPath.of(link + "/cache/not-there") == "/dev/shm/cache/not-there")
        #expect(ResolvedPath.of(folder.path + "/missing/x").hasSuffix("/missing/x"))
    }

    /// This machine's own table: /dev/shm is a tmpfs, so a clean there unlinks its files in place.
    @Test func aTmpfsOfThisMachineNeverWaits() throws {
        let table = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        let shm = try #require(MountTable.mount(holding: "/dev/shm", in: table), "no mount holds /dev/shm")
        #expect(shm.type == "tmpfs")
        #expect(!MountTable.mayWaitToFree(at: "/dev/shm"))
    }

    /// The two ways of `FileRemoval`: held, each unlinked file comes back as a descriptor that keeps
    /// it until closed; in place, none, and the files are gone at once.
    @Test(arguments: [true, false])
    func fileRemovalHoldsFilesOnlyWhenAsked(holdsFiles: Bool) throws {
        let folder = try TemporaryDirectory()
        let paths = try (0..<6).map { try folder.write("f\($0 % 2)/file\($0)", "body \($0)").path }
        let remover = FileRemoval(threads: 2, batchFiles: 100, holdsFiles: holdsFiles)
        let descriptors = try remover.detach(after: { paths }) {}
        #expect(descriptors.count == (holdsFiles ? 6 : 0))
        #expect(paths.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(remover.batchFiles == 100)
        remover.releaseLater(descriptors)
        #expect(remover.settle())  // freed something: held ones closed now, or unlinked in place
        #expect(!remover.settle())  // and nothing since
    }

    /// What runs before the unlinks (a clean's journal) comes first: when it fails, no file is
    /// unlinked, the work beside it still ends, and its error is the one thrown.
    @Test(arguments: [true, false])
    func fileRemovalUnlinksNothingWhenItsPreparationFails(holdsFiles: Bool) throws {
        let folder = try TemporaryDirectory()
        let paths = try (0..<6).map { try folder.write("f\($0 % 2)/file\($0)", "body \($0)").path }
        let remover = FileRemoval(threads: 2, batchFiles: 100, holdsFiles: holdsFiles)
        let journal = folder.path + "/missing/journal"
        var worked = false
        #expect(throws: CacheError.self) {
            try remover.detach(after: { () throws(CacheError) -> [String] in
                throw .fromErrno("create", journal)
            }) { worked = true }
        }
        #expect(worked)
        #expect(paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        #expect(!remover.settle())
    }
}
