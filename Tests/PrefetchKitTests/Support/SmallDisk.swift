import Foundation
import Testing

/// A disk of its own for one test: a tmpfs of `megabytes` (and at most `inodes` files and folders, when
/// given) mounted at `mountPoint` in a private mount namespace (`unshare --map-root-user --mount`, so
/// the mount is gone when the steps end, whatever happens), where `steps` run one after the other. A
/// step is a command line; `prefetchd` and `cache-filler` stand for the built executables, and
/// `SmallDisk.fill` fills the disk to its last byte. Returns each step's outcome. Needs root, or a
/// kernel that lets users make their own namespaces (Debian's default).
enum SmallDisk {
    static func run(megabytes: Int, inodes: Int? = nil, at mountPoint: String, steps: [[String]]) throws -> [Binary.Outcome] {
        let results = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let options = "size=\(megabytes)m" + (inodes.map { ",nr_inodes=\($0)" } ?? "")
        var script = ["mount -t tmpfs -o \(options) tmpfs \(quoted(mountPoint)) || exit 97"]
        for (number, step) in steps.enumerated() {
            let command = try step.enumerated().map { $0.offset == 0 ? quoted(try executable($0.element)) : quoted($0.element) }
            let output = quoted(results.file("\(number)").path)
            script.append("\(command.joined(separator: " ")) </dev/null >\(output).out 2>\(output).err; echo $? >\(output).status")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--map-root-user", "--mount", "/bin/sh", "-c", script.joined(separator: "\n")]
        let shell = try Binary.outcome(of: process)
        guard shell.status == 0 else {
            throw SmallDiskError(message: "unshare with a tmpfs failed (status \(shell.status)): \(shell.stderr)")
        }
        return try steps.indices.map { number in
            func read(_ suffix: String) throws -> String {
                try String(contentsOf: results.file("\(number).\(suffix)"), encoding: .utf8)
            }
            return Binary.Outcome(
                status: Int32(try read("status").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1,
                stdout: try read("out"), stderr: try read("err"))
        }
    }

    /// A step that fills the disk holding `folder` to its last byte.
    static func fill(_ folder: String) -> [String] {
        let file = quoted(folder + "/fill")
        return ["/bin/sh", "-c", "dd if=/dev/zero of=\(file) bs=64k 2>/dev/null; dd if=/dev/zero of=\(file)-tail bs=1 2>/dev/null; exit 0"]
    }

    private static func executable(_ name: String) throws -> String {
        ["prefetchd", "cache-filler"].contains(name) ? try Binary.executable(name).path : name
    }

    private static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    struct SmallDiskError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
