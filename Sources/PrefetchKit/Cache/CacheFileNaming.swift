import Foundation

/// Where a cache key's file lives inside the cache folder, for each layout.
enum CacheFileNaming {
    /// SDWebImage's SD_MAX_FILE_EXTENSION_LENGTH: NAME_MAX - CC_MD5_DIGEST_LENGTH * 2 - 1.
    static let sdWebImageMaxExtensionLength = 255 - 16 * 2 - 1

    /// The longest extension the native layout keeps (image extensions are short).
    static let nativeMaxExtensionLength = 10

    /// The path relative to the cache folder.
    static func relativePath(forKey key: String, layout: CacheLayout) -> String {
        switch layout {
        case .native:
            let hash = CacheDigest.sha256Hex(key)
            let ext = pathExtension(of: key)
            let keepsExtension = !ext.isEmpty && ext.count <= nativeMaxExtensionLength
                && ext.unicodeScalars.allSatisfy { $0.isASCII && CharacterSet.alphanumerics.contains($0) }
            let name = keepsExtension ? hash + "." + ext.lowercased() : hash
            return nativeDirectories(hash) + "/" + name
        case .sdwebimage:
            return sdWebImageFileName(forKey: key)
        }
    }

    /// nginx `levels=1:2` from the front of the hash: `a/bc` for `abc...`.
    static func nativeDirectories(_ hash: String) -> String {
        let characters = Array(hash)
        return "\(characters[0])/\(characters[1])\(characters[2])"
    }

    /// SDDiskCacheFileNameForKey: lowercase hex MD5 of the UTF-8 key, then "." + the URL's path
    /// extension when it has one no longer than 222 characters (":" and NUL removed, as SDWebImage does).
    static func sdWebImageFileName(forKey key: String) -> String {
        let hash = CacheDigest.md5Hex(key)
        let ext = pathExtension(of: key).filter { $0 != ":" && $0 != "\0" }
        guard !ext.isEmpty, ext.count <= sdWebImageMaxExtensionLength else { return hash }
        return hash + "." + ext
    }

    /// The extension of the last path component of a URL's path (not its query or fragment);
    /// for a key that is not a URL, of the key itself. Empty when there is none.
    static func pathExtension(of key: String) -> String {
        let path: String
        if let components = URLComponents(string: key), components.scheme != nil {
            path = components.path
        } else {
            path = key
        }
        let lastComponent = path.split(separator: "/").last.map(String.init) ?? ""
        guard let dot = lastComponent.lastIndex(of: "."), dot != lastComponent.startIndex else { return "" }
        return String(lastComponent[lastComponent.index(after: dot)...])
    }
}
