import Foundation

/// What the kernel's mount table (`/proc/self/mountinfo`) says of the file system a path is on: whether
/// it is mounted with online discard, where the last close of an unlinked file waits on the device
/// while its blocks are trimmed (bench/maintain/RESULTS.md, "Design figures"). `FileRemoval` holds a
/// clean's files open past the index's lock only there.
enum MountTable {
    /// Whether the file system holding `path` is mounted with `discard` (in its mount or its file
    /// system's options); false when the table cannot be read or names no mount above `path`.
    static func discards(at path: String, table: String? = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) -> Bool {
        guard let table else { return false }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var best: (depth: Int, discards: Bool)?
        for line in table.split(separator: "\n") {
            guard let mount = Mount(line: line), mount.contains(resolved) else { continue }
            // The last of equal mount points is the one on top.
            if best.map({ mount.point.count >= $0.depth }) ?? true { best = (mount.point.count, mount.discards) }
        }
        return best?.discards ?? false
    }

    /// One line of the table: `ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS`.
    struct Mount {
        let point: String
        let discards: Bool

        init?(line: Substring) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 10, let dash = fields.firstIndex(of: "-"), dash >= 6, dash + 3 < fields.count else { return nil }
            point = Self.unescaped(fields[4])
            let options = fields[5].split(separator: ",") + fields[dash + 3].split(separator: ",")
            discards = options.contains("discard")
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
