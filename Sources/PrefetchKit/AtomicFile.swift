import Foundation

/// Writes report files whole or not at all: a temp file beside the target, then a rename.
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func write(_ data: Data, to path: String) throws(WriteError) {
        let target = URL(fileURLWithPath: path)
        let temp = target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(getpid()).tmp").path
        guard FileManager.default.createFile(atPath: temp, contents: data) else {
            throw WriteError(description: "cannot create \(temp): \(String(cString: strerror(errno)))")
        }
        guard rename(temp, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temp)
            throw WriteError(description: "cannot rename into \(path): \(reason)")
        }
    }
}
