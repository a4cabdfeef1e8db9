import Foundation

/// Variants in the cache: entries of their own, named from their key (`VariantSpec.key(forOriginal:)`)
/// with the extension of their format, and linked to their original by its relative path.
extension DiskCache {
    /// Where the variant `spec` of the original under `originalKey` (in `format`) lives.
    package func variantLocation(_ spec: VariantSpec, originalKey: String, format original: ImageFormat?) -> CacheLocation {
        let key = spec.key(forOriginal: originalKey)
        let ext = CacheFileNaming.fileExtension(of: spec.format.output(for: original))
        return CacheLocation(key: key, relativePath: CacheFileNaming.relativePath(forKey: key, layout: layout, fileExtension: ext))
    }

    /// Stores a made variant of the original at `originalPath` (relative) as its own entry.
    @discardableResult
    package func storeVariant(_ made: VariantMaker.Made, at location: CacheLocation, url: String, setName: String,
                              variant: String, originalPath: String) throws(CacheError) -> CacheEntry {
        let temp = try makeBodyFile(for: location)
        try temp.write(made.data)
        var entry = NewEntry(url: url, key: location.key, setName: setName, format: made.format, width: made.width, height: made.height)
        entry.variantOf = originalPath
        entry.variant = variant
        entry.frames = 1
        return try commit(temp, as: entry)
    }

    /// Absolute path of the variant `name` of the original at `originalPath` (relative to the cache,
    /// whether the original is kept or not), when its file is there with its recorded size; counts as
    /// a use of the variant.
    package func variantPath(named name: String, ofOriginalAt originalPath: String) throws(CacheError) -> String? {
        try usedPath(of: try variant(named: name, ofOriginalAt: originalPath))
    }

    /// The same for the variant `spec` makes of the original under `originalKey`, exactly: not another
    /// variant of that name (another job's, or one made before the set's parameters changed).
    package func variantPath(of spec: VariantSpec, originalKey: String) throws(CacheError) -> String? {
        try usedPath(of: try variant(of: spec, originalKey: originalKey))
    }

    /// The row of the variant `spec` makes of the original under `originalKey`, if one is stored.
    package func variant(of spec: VariantSpec, originalKey: String) throws(CacheError) -> CacheEntry? {
        let wanted = spec.key(forOriginal: originalKey)
        return try index.variants(ofOriginalAt: relativePath(forKey: originalKey)).first { $0.key == wanted }
    }

    /// The path of `row`'s file, when it is there with its recorded size; counts as a use.
    private func usedPath(of row: CacheEntry?) throws(CacheError) -> String? {
        guard let row, let key = row.key, let entry = try lookup(CacheLocation(key: key, relativePath: row.relativePath)) else { return nil }
        try index.touch(relativePath: entry.relativePath, at: Date())
        return entry.path
    }

    /// The variant named `name` of the original at `originalPath` (relative), if one is stored; the
    /// newest when the set's parameters changed and an older one is still there.
    package func variant(named name: String, ofOriginalAt originalPath: String) throws(CacheError) -> CacheEntry? {
        try index.variants(ofOriginalAt: originalPath).filter { $0.variant == name }.max { $0.modifiedAt < $1.modifiedAt }
    }
}
