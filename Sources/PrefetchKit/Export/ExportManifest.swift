import Foundation

/// `manifest.json` of an SDImageCache export: what each file is, for the app and for the next export
/// into the same folder (which replaces a folder only when it is a previous export).
package struct ExportManifest: Codable, Sendable, Equatable {
    package static let fileName = "manifest.json"
    /// The only layout so far; a manifest of another layout is not a previous export of this one.
    package static let layoutName = "sdwebimage"

    package struct Entry: Codable, Sendable, Equatable {
        /// The cache key SDImageCache looks the file up by (the URL, after the job's cache_key rule).
        package var key: String
        /// The file name in the folder: `SDDiskCacheFileNameForKey(key)`.
        package var file: String
        package var bytes: Int64
        /// Pixels, as the cache recorded them; null when no check measured them.
        package var width: Int?
        package var height: Int?

        /// Every field written, a missing size as null.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(key, forKey: .key)
            try container.encode(file, forKey: .file)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
        }
    }

    package var layout = Self.layoutName
    package var formatVersion = 1
    /// The variant whose files stand under their originals' keys; null for the originals.
    package var variant: String?
    /// Sorted by key.
    package var entries: [Entry]

    enum CodingKeys: String, CodingKey {
        case layout, formatVersion = "format_version", variant, entries
    }

    package init(variant: String?, entries: [Entry]) {
        self.variant = variant
        self.entries = entries.sorted { $0.key < $1.key }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(layout, forKey: .layout)
        try container.encode(formatVersion, forKey: .formatVersion)
        try container.encode(variant, forKey: .variant)
        try container.encode(entries, forKey: .entries)
    }

    /// Writes the manifest to `path` one entry at a time, so a large export's manifest is never
    /// whole in memory (JSONEncoder's tree of 100,000 entries took about 100 MiB): an object with
    /// `layout`, `format_version`, `variant` and `entries`, one entry a line.
    package func write(to path: String) throws(ExportError) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw .failed("create", path, errno)
        }
        defer { try? handle.close() }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var buffer = Data()
        func flush(_ force: Bool) throws(ExportError) {
            guard force || buffer.count >= 1 << 16 else { return }
            do {
                try handle.write(contentsOf: buffer)
            } catch {
                throw .fileSystem("write", path, error.localizedDescription)
            }
            buffer.removeAll(keepingCapacity: true)
        }
        // Strings, integers and nulls always encode.
        let variantText = (try? encoder.encode(variant)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
        buffer.append(Data("{\n  \"layout\": \"\(layout)\",\n  \"format_version\": \(formatVersion),\n  \"variant\": \(variantText),\n  \"entries\": [".utf8))
        for (index, entry) in entries.enumerated() {
            buffer.append(Data((index == 0 ? "\n    " : ",\n    ").utf8))
            buffer.append((try? encoder.encode(entry)) ?? Data("{}".utf8))
            try flush(false)
        }
        buffer.append(Data((entries.isEmpty ? "]\n}\n" : "\n  ]\n}\n").utf8))
        try flush(true)
    }

    /// The manifest in `folder`, when it holds one this layout wrote.
    package static func read(inFolder folder: String) -> ExportManifest? {
        guard let data = FileManager.default.contents(atPath: folder + "/" + fileName),
              let manifest = try? JSONDecoder().decode(ExportManifest.self, from: data),
              manifest.layout == layoutName else { return nil }
        return manifest
    }
}
