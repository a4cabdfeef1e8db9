import Foundation

/// What the kernel's mount table (`/proc/self/mountinfo`) says of the file system a path is on: whether
/// freeing a file there may wait on a device, as it does under online discard, where the last close of
/// an unlinked file waits while its blocks are trimmed (bench/maintain/RESULTS.md, "Design figures").
/// `FileRemoval` holds a clean's files open past the index's lock unless the answer is no.
enum MountTable {
    /// File systems in memory: freeing a file there never waits on a device.
    static let inMemory: Set<String> = ["tmpfs", "ramfs"]
    /// File systems on a block device of their own, whose options say whether they discard.
    static let onABlockDevice: Set<String> = ["ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "jfs", "reiserfs"]

    /// Whether freeing a file under `path` may wait on a device: true unless its file system is in
    /// memory, or on a block device of its own and mounted without `discard` (in its mount's or its file
    /// system's options). Anything else (an overlay, as in a container, whose lower disk the table
    /// does not show; a network or FUSE file system; a table that cannot be read) counts as waiting.
    static func mayWaitToFree(at path: String, table: String? = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) -> Bool {
        guard let table, let mount = mount(holding: ResolvedPath.of(path), in: table) else { return true }
        if inMemory.contains(mount.type) { return false }
        return !onABlockDevice.contains(mount.type) || mount.discards
    }

    /// The mount `path` is on: the longest mount point at or above it, and of several at that point the
    /// one on top: none of the others is mounted on it, and of such, the last mounted (the highest ID).
    static func mount(holding path: String, in table: String) -> Mount? {
        let holding = table.split(separator: "\n").compactMap(Mount.init(line:)).filter { $0.contains(path) }
        guard let longest = holding.map(\.point.utf8.count).max() else { return nil }
        let candidates = holding.filter { $0.point.utf8.count == longest }
        return candidates.filter { top in !candidates.contains { $0.parent == top.id } }.max { $0.id < $1.id }
    }

    /// One line of the table: `ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS`.
    struct Mount {
        let id: Int
        let parent: Int
        let point: String
        let type: String
        let discards: Bool

        init?(line: Substring) {
            // Not omitting empty fields: a mount's source may be empty.
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count >= 10, let dash = fields[6...].firstIndex(of: "-"), dash + 3 < fields.count,
                  let id = Int(fields[0]), let parent = Int(fields[1]) else { return nil }
            self.id = id
            self.parent = parent
            point = Self.unescaped(fields[4])
            type = String(fields[dash + 1])
            let options = fields[5].split(separator: ",") + fields[dash + 3].split(separator: ",")
            discards = options.contains { $0 == "discard" || $0.hasPrefix("discard=") }
        }

        /// Whether `path` (absolute, symbolic links resolved) is at or under this mount point.
        func contains(_ path: String) -> Bool {
            point == "/" || path == point || path.hasPrefix(point + "/")
        }

        /// The table writes a space, tab, newline and backslash in a path as `\040`, `\011`, `\012`, `\134`.
        static func unescaped(_ field: Substring) -> String {
            var bytes: [UInt8] = []
            var rest = field.utf8[...]
            while let byte = rest.popFirst() {
                if byte == UInt8(ascii: "\\"), rest.count >= 3,
                   let value = UInt8(String(decoding: rest.prefix(3), as: UTF8.self), radix: 8) {
                    bytes.append(value)
                    rest = rest.dropFirst(3)
                } else {
                    bytes.append(byte)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
