import Foundation

/// `prefetchd export --layout sdwebimage`: a folder an iOS app bundles and hands SDImageCache as a
/// read-only path. It holds only the image files, each named as SDWebImage's
/// `SDDiskCacheFileNameForKey` names its key, and `manifest.json`.
package enum SDWebImageExport {
    /// One file of the export, as it will be or was written.
    package struct Planned: Sendable, Equatable {
        package var item: ExportSelection.Item
        package var file: String
    }

    package struct Result: Sendable {
        package var files: [Planned] = []
        package var linked = 0
        package var copied = 0
        package var bytes: Int64 { files.reduce(0) { $0 + $1.item.bytes } }
    }

    /// The files `selection` makes, by name.
    package static func plan(_ selection: ExportSelection) -> [Planned] {
        selection.items.map { Planned(item: $0, file: CacheFileNaming.sdWebImageFileName(forKey: $0.key)) }
            .sorted { $0.file < $1.file }
    }

    /// Writes the export of `selection` into `folder`: staged beside it, each file hard-linked from the
    /// cache when on the same file system and copied otherwise, the manifest last, then put in place.
    /// `stopSignal` is read before each file and before the export is put in place: a stop signal's
    /// number there ends it with `.stopped`, the staging folder removed.
    package static func write(_ selection: ExportSelection, variant: String?, to folder: ExportFolder,
                              stopSignal: @Sendable () -> Int32 = { 0 }) throws(ExportError) -> Result {
        let staging = try folder.makeStaging()
        do throws(ExportError) {
            var result = Result()
            for planned in plan(selection) {
                if case let signal = stopSignal(), signal != 0 { throw .stopped(signal) }
                if try place(planned.item.source, at: staging + "/" + planned.file) {
                    result.linked += 1
                } else {
                    result.copied += 1
                }
                result.files.append(planned)
            }
            let manifest = ExportManifest(variant: variant, entries: result.files.map {
                ExportManifest.Entry(key: $0.item.key, file: $0.file, bytes: $0.item.bytes, width: $0.item.width, height: $0.item.height)
            })
            try manifest.write(to: staging + "/" + ExportManifest.fileName)
            if case let signal = stopSignal(), signal != 0 { throw .stopped(signal) }
            try folder.publish(staging)
            return result
        } catch {
            try? ExportFolder.removeTree(staging)
            throw error
        }
    }

    /// Hard-links `source` to `target` (true), or copies it where a link cannot be made (false):
    /// another file system, or one without hard links.
    private static func place(_ source: String, at target: String) throws(ExportError) -> Bool {
        if link(source, target) == 0 { return true }
        guard [EXDEV, EPERM, EMLINK, ENOTSUP].contains(errno) else { throw .failed("link", target, errno) }
        do {
            try FileManager.default.copyItem(atPath: source, toPath: target)
        } catch {
            throw .fileSystem("copy \(source) to", target, error.localizedDescription)
        }
        return false
    }
}
