import Foundation

/// Why an export could not be written; each prints as one sentence.
package enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The destination holds a file no previous export wrote (the first such name).
    case foreignFolder(String, String)
    case notAFolder(String)
    /// The destination is a symbolic link (to `target`): an export renames a folder into its place,
    /// which would replace the link, not what it points at.
    case linkedFolder(String, target: String)
    /// The operation, its path, and the system's reason.
    case fileSystem(String, String, String)
    /// A stop signal (its number) ended the export before it was put in place; nothing was left.
    case stopped(Int32)

    /// `operation` on `path` failed with `code` (an errno value).
    static func failed(_ operation: String, _ path: String, _ code: Int32) -> ExportError {
        .fileSystem(operation, path, String(cString: strerror(code)))
    }

    package var description: String {
        switch self {
        case .foreignFolder(let path, let name):
            "\(path) holds \(name), which no export wrote (an export replaces only a folder it made, with its "
                + "\(ExportManifest.fileName)); give a new or empty folder"
        case .notAFolder(let path):
            "\(path) exists and is not a folder"
        case .linkedFolder(let path, let target):
            "\(path) is a symbolic link to \(target); give the folder itself (an export is renamed into its place)"
        case .fileSystem(let operation, let path, let reason):
            "cannot \(operation) \(path): \(reason)"
        case .stopped(let signal):
            "stopped by signal \(signal) before the export was put in place"
        }
    }
}
