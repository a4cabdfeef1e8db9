import Foundation

/// Writes report files whole or not at all: a temp file beside the target, then a rename.
///
/// Only a regular file (or a path that does not exist yet) is replaced that way. Through a symbolic
/// link the file it names is replaced and the link kept; `-`, a device, a FIFO or a socket (such as
/// `/dev/stdout`) is written into as it is, never replaced by a file.
package enum AtomicFile {
    package struct WriteError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Why a file could not be written at `path`, judged before any work is done: nil when `path` is
    /// a stream to write into, or names a file whose folder exists and takes new files.
    package static func problem(writing path: String) -> String? {
        guard !path.isEmpty else { return "no file name given" }
        switch destination(of: path) {
        case .stream(let stream):
            return stream == "-" || access(stream, W_OK) == 0
                ? nil : "\(stream) cannot be written (\(String(cString: strerror(errno))))"
        case .folder:
            return "\(path) is a folder, not a file"
        case .file(let file):
            let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                return "the folder \(folder) does not exist"
            }
            guard access(folder, W_OK | X_OK) == 0 else {
                return "the folder \(folder) does not take new files (\(String(cString: strerror(errno))))"
            }
            return nil
        }
    }

    package static func write(_ data: Data, to path: String) throws(WriteError) {
        switch destination(of: path) {
        case .stream(let stream):
            try writeInto(stream, data)
        case .folder:
            throw WriteError(description: "\(path) is a folder, not a file")
        case .file(let file):
            try replace(file, with: data)
        }
    }

    private enum Destination {
        /// Written into as it is: standard output (`-`), a device, a FIFO, a socket.
        case stream(String)
        case folder
        /// A regular file (or none yet) at this path, symbolic links followed.
        case file(String)
    }

    private static func destination(of path: String) -> Destination {
        if path == "-" { return .stream(path) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            // Nothing there yet, or a link to nothing: the file is made where the link points.
            return .file((try? FileManager.default.destinationOfSymbolicLink(atPath: path)).map {
                $0.hasPrefix("/") ? $0 : URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent($0).path
            } ?? path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
        case S_IFDIR: return .folder
        default: return .stream(path)
        }
    }

    private static func replace(_ path: String, with data: Data) throws(WriteError) {
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

    private static func writeInto(_ stream: String, _ data: Data) throws(WriteError) {
        let descriptor = stream == "-" ? STDOUT_FILENO : open(stream, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw WriteError(description: "cannot open \(stream): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDOUT_FILENO { close(descriptor) } }
        let failure = data.withUnsafeBytes { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure {
            let name = stream == "-" ? "standard output" : stream
            throw WriteError(description: "cannot write \(name): \(String(cString: strerror(failure)))")
        }
    }
}
