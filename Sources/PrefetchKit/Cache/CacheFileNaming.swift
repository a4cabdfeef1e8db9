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
            let ext = pathExtension(of: key)
            let keepsExtension = !ext.isEmpty && ext.utf8.count <= nativeMaxExtensionLength
                && ext.utf8.allSatisfy(isASCIILetterOrDigit)
            // `ab/<sha256 hex>.<ext>`, written in one buffer (this runs for every lookup and store). One
            // level of 256 folders named by the first two hex digits of the hash (nginx's `levels=2`).
            // A million entries make about 4,000 files a folder, which ext4's hashed directories handle
            // well; two levels (`levels=1:2`, 4,096 folders) are slower to fill, as nearly every early
            // store then also creates a folder.
            let suffix = keepsExtension ? Array(ext.utf8) : []
            return String(unsafeUninitializedCapacity: 3 + 64 + 1 + suffix.count) { out in
                CacheDigest.writeSHA256Hex(of: key, into: UnsafeMutableBufferPointer(rebasing: out[3..<67]))
                out[0] = out[3]
                out[1] = out[4]
                out[2] = UInt8(ascii: "/")
                guard !suffix.isEmpty else { return 67 }
                out[67] = UInt8(ascii: ".")
                for (offset, byte) in suffix.enumerated() {
                    // ASCII letters and digits only: lowercasing is setting one bit of a letter.
                    out[68 + offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                }
                return 68 + suffix.count
            }
        case .sdwebimage:
            return sdWebImageFileName(forKey: key)
        }
    }

    /// The path of a key whose file extension is given rather than read from the key (a variant's,
    /// whose format may differ from its original's).
    static func relativePath(forKey key: String, layout: CacheLayout, fileExtension ext: String) -> String {
        switch layout {
        case .native:
            let hash = CacheDigest.sha256Hex(key)
            return String(hash.prefix(2)) + "/" + hash + "." + ext
        case .sdwebimage:
            return CacheDigest.md5Hex(key) + "." + ext
        }
    }

    /// The file extension an entry of `format` gets when prefetchd names it.
    static func fileExtension(of format: ImageFormat) -> String {
        switch format {
        case .jpeg: "jpg"
        default: format.rawValue
        }
    }

    private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        default: false
        }
    }

    /// Every folder the native layout uses: `00` ... `ff`.
    static let nativeFolders: [String] = (0..<256).map { value in
        let digits = Array("0123456789abcdef")
        return String([digits[value >> 4], digits[value & 15]])
    }

    /// SDDiskCacheFileNameForKey: lowercase hex MD5 of the UTF-8 key, then "." + the URL's path
    /// extension when it has one no longer than 222 UTF-16 units, NSString's `length` (":" and NUL
    /// removed, as SDWebImage does).
    /// An extension holding a control character is left out (the name is the hash alone): a newline
    /// in a file name would split it in every list of paths, a clean's journal among them.
    static func sdWebImageFileName(forKey key: String) -> String {
        let hash = CacheDigest.md5Hex(key)
        let ext = pathExtension(of: key).filter { $0 != ":" && $0 != "\0" }
        guard !ext.isEmpty, ext.utf16.count <= sdWebImageMaxExtensionLength,
              !ext.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return hash }
        return hash + "." + ext
    }

    /// The extension of the last path component of a URL's path (not its query or fragment);
    /// for a key that is not a URL, of the key itself. Empty when there is none.
    /// Percent-escapes in the extension are decoded, as NSURL's `pathExtension` does, and so split it
    /// as NSURL does: an escaped `/` (`%2F`) starts a last component of its own, whose extension it is
    /// (none when it has no dot), so that no extension ever holds a `/`.
    static func pathExtension(of key: String) -> String {
        // Bytes, not Characters, read in place: this runs for every lookup and store.
        var key = key
        return key.withUTF8 { bytes in
            var start = 0
            var end = bytes.count
            if let scheme = schemeEnd(in: bytes) {
                // Skip the authority; the path runs to the query or fragment.
                start = scheme
                while start < end, bytes[start] != UInt8(ascii: "/"), bytes[start] != UInt8(ascii: "?"),
                      bytes[start] != UInt8(ascii: "#") {
                    start += 1
                }
                end = bytes[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? end
            }
            while end > start, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
            let componentStart = (bytes[start..<end].lastIndex(of: UInt8(ascii: "/")) ?? (start - 1)) + 1
            guard let dot = bytes[componentStart..<end].lastIndex(of: UInt8(ascii: ".")), dot != componentStart else {
                return ""
            }
            let ext = UnsafeBufferPointer(rebasing: bytes[(dot + 1)..<end])
            let text = String(decoding: ext, as: UTF8.self)
            guard ext.contains(UInt8(ascii: "%")) else { return text }
            return decodedExtension(text.removingPercentEncoding ?? text)
        }
    }

    /// The extension from `decoded`, the part of a last path component after its last raw dot with
    /// its escapes decoded: the whole of it, unless a decoded `/` begins a new last component.
    private static func decodedExtension(_ decoded: String) -> String {
        var decoded = Substring(decoded)
        while decoded.hasSuffix("/") { decoded = decoded.dropLast() }
        guard let slash = decoded.lastIndex(of: "/") else { return String(decoded) }
        let component = decoded[decoded.index(after: slash)...]
        guard let dot = component.lastIndex(of: "."), dot != component.startIndex else { return "" }
        return String(component[component.index(after: dot)...])
    }

    /// The offset just past the first `://` in `bytes`, if there is one.
    private static func schemeEnd(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 3 else { return nil }
        for index in 0...(bytes.count - 3)
        where bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/") && bytes[index + 2] == UInt8(ascii: "/") {
            return index + 3
        }
        return nil
    }
}
