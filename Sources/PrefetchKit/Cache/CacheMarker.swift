import Foundation

/// `<cache>/CACHEDIR.TAG`: the standard tag that tells backup tools to skip the folder, plus the
/// layout the cache was made with, so that the layout survives the loss of the index.
enum CacheMarker {
    static let fileName = "CACHEDIR.TAG"
    private static let signature = "Signature: 8a477f597d28d172789f06886806bc55"
    private static let layoutPrefix = "# prefetchd layout: "

    /// The layout the marker in `root` names; nil when there is no marker (no cache there).
    static func recordedLayout(root: String) throws(CacheError) -> CacheLayout? {
        let path = root + "/" + fileName
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            // No marker, no cache; any other failure (a folder this user may not read) is said as it is.
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .fromErrno("read", path)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard let data = try? handle.readToEnd() else { throw .unreadableMarker(path: path) }
        let text = String(decoding: data, as: UTF8.self)
        let recorded = text.split(separator: "\n").first { $0.hasPrefix(layoutPrefix) }
            .map { String($0.dropFirst(layoutPrefix.count)) }
        guard let recorded, let layout = CacheLayout(rawValue: recorded) else {
            throw .unreadableMarker(path: path)
        }
        return layout
    }

    /// Checks the marker names `layout`, writing it when the folder has none; true when it was written.
    @discardableResult
    static func claim(root: String, layout: CacheLayout, durable: Bool) throws(CacheError) -> Bool {
        let path = root + "/" + fileName
        if let existing = try recordedLayout(root: root) {
            guard existing == layout else {
                throw .layoutMismatch(path: root, existing: existing, requested: layout)
            }
            return false
        }
        let text = """
            \(signature)
            # This file is a cache directory tag created by prefetchd.
            # For information about cache directory tags see https://bford.info/cachedir/
            \(layoutPrefix)\(layout.rawValue)

            """
        // Written with the system's calls, whose errno says why (`tmp` a plain file: "Not a directory");
        // Foundation's createFile leaves errno as it found it. Removed by the TempFile when not placed.
        let temp = try TempFile(path: "\(root)/tmp/\(getpid())-marker\(TempFile.suffix)")
        try temp.write(Data(text.utf8))
        try temp.sync(durable: durable)
        let failure = temp.place(at: path, aside: { path })
        guard failure == 0 else { throw .fileSystem(operation: "rename into", path: path, errno: failure) }
        return true
    }
}
