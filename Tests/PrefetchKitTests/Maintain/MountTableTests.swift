import Foundation
import Testing
@testable import PrefetchKit

/// Whether a clean's files are held open: the mount table's word on online discard.
@Suite struct MountTableTests {
    static let table = """
        22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,discard,errors=remount-ro
        25 22 0:21 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,size=1024k
        31 22 253:2 / /srv rw,relatime shared:9 - xfs /dev/vdb rw,attr2,inode64
        32 31 253:3 / /srv/cache\\040disk rw,relatime,discard - ext4 /dev/vdc rw
        33 31 0:40 / /srv/ram rw,relatime shared:10 - tmpfs tmpfs rw
        34 33 253:4 / /srv/ram rw,relatime shared:11 - ext4 /dev/vdd rw,discard
        """

    @Test(arguments: [
        ("/", true), ("/var/cache/prefetchd", true), ("/dev/shm/cache", false), ("/dev/shmem", true),
        ("/srv", false), ("/srv/images", false), ("/srv/cache disk/x", true), ("/srv/cache", false),
        ("/srv/ram/cache", true),
    ])
    func theMountHoldingAPathSaysWhetherItDiscards(path: String, discards: Bool) {
        // (by its own options or its file system's; the longest mount point above the path, and of two
        // at one point the later, which is on top; an escaped space in a mount point read as a space)
        #expect(MountTable.discards(at: path, table: Self.table) == discards)
    }

    @Test func anUnreadableOrEmptyTableHoldsNothing() {
        #expect(!MountTable.discards(at: "/var/cache", table: nil))
        #expect(!MountTable.discards(at: "/var/cache", table: ""))
        #expect(!MountTable.discards(at: "/var/cache", table: "garbage line\n - -"))
    }

    /// This machine's own table: /dev/shm is a tmpfs (never mounted with discard), so a clean there
    /// unlinks its files in place.
    @Test func aTmpfsOfThisMachineDoesNotDiscard() throws {
        let table = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
        #expect(table.contains(" /dev/shm "), "no /dev/shm mount on this machine")
        #expect(!MountTable.discards(at: "/dev/shm"))
    }
}
