import Foundation

/// The destination of an export: checked before any work, filled in a staging folder beside it, and
/// put in place in one rename, so an app build never sees half an export.
///
/// A destination that does not exist or is empty is simply renamed onto. One that holds a previous
/// export (its `manifest.json`, and no file the manifest does not list) is swapped with the staging
/// folder in one step and the old export removed afterwards. Anything else is refused: an export never
/// deletes files it did not write.
package struct ExportFolder: Sendable {
    package enum State: Sendable, Equatable {
        case absent, empty, previousExport
    }

    package let path: String
    package let state: State

    /// Judges `path`; throws `ExportError.foreignFolder` (or `.notAFolder`) when an export may not go there.
    package init(path: String) throws(ExportError) {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        state = try Self.judge(self.path)
    }

    private static func judge(_ path: String) throws(ExportError) -> State {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw .failed("read", path, errno) }
            return .absent
        }
        if info.st_mode & S_IFMT == S_IFLNK {
            throw .linkedFolder(path, target: (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .notAFolder(path) }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .fileSystem("list", path, error.localizedDescription)
        }
        if names.isEmpty { return .empty }
        guard let manifest = ExportManifest.read(inFolder: path) else {
            throw .foreignFolder(path, names.sorted()[0])
        }
        let listed = Set(manifest.entries.map(\.file) + [ExportManifest.fileName])
        if let foreign = names.sorted().first(where: { !listed.contains($0) }) {
            throw .foreignFolder(path, foreign)
        }
        return .previousExport
    }

    /// A new empty folder beside the destination, `<name>.tmp-XXXXXX`, on its file system.
    package func makeStaging() throws(ExportError) -> String {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: parent) else { throw .failed("find the folder", parent, ENOENT) }
        var template = Array((path + ".tmp-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw .failed("create folder", path + ".tmp-XXXXXX", errno) }
        return String(cString: made)
    }

    /// Puts the filled `staging` folder in the destination's place.
    package func publish(_ staging: String) throws(ExportError) {
        switch state {
        case .absent, .empty:
            // rename(2) replaces an empty folder; one that gained files since the check is refused.
            guard rename(staging, path) == 0 else { throw .failed("rename into", path, errno) }
        case .previousExport:
            if FolderExchange.exchange(staging, path) {
                // `staging` now holds the previous export.
                try Self.removeTree(staging)
            } else {
                try replaceInTwoSteps(staging)
            }
        }
    }

    /// Where the file system cannot swap two folders: the old export moved aside, the new one renamed
    /// in, the old one removed. Between the two renames the destination does not exist.
    private func replaceInTwoSteps(_ staging: String) throws(ExportError) {
        let aside = staging + ".old"
        guard rename(path, aside) == 0 else { throw .failed("move aside", path, errno) }
        guard rename(staging, path) == 0 else {
            let failure = errno
            _ = rename(aside, path)
            throw .failed("rename into", path, failure)
        }
        try Self.removeTree(aside)
    }

    /// Removes a folder the export made (the staging folder after a failure, or a replaced export).
    package static func removeTree(_ path: String) throws(ExportError) {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw .fileSystem("remove", path, error.localizedDescription)
        }
    }
}
