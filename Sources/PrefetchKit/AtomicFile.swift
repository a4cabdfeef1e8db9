import Foundation

/// Writes report files whole or not at all: a temp file beside the target, then a rename.
public enum AtomicFile {
    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Why a file could not be written at `path`, judged before any work is done: nil when its folder
    /// exists and takes new files and `path` is not itself a folder.
    public static func problem(writing path: String) -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            return "\(path) is a folder, not a file"
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return "the folder \(folder) does not exist"
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            return "the folder \(folder) does not take new files (\(String(cString: strerror(errno))))"
        }
        return nil
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
