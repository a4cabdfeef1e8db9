import Foundation

/// Byte searches in a string's UTF-8, by libc's `memchr`: the per-URL paths (keys, shown URLs, file
/// names) scan every URL several times, and stepping through a `String.UTF8View` costs about thirty
/// instructions a byte where `memchr` costs a fraction of one.
extension String {
    /// The index of the first `byte` in the string's UTF-8, or nil. `byte` must be ASCII, so the
    /// index is also a valid `String.Index` (an ASCII byte always starts a character's scalar).
    func firstIndex(ofASCII byte: UInt8) -> String.Index? {
        var copy = self
        let offset: Int? = copy.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, let found = memchr(base, Int32(byte), utf8.count) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        return offset.map { utf8.index(startIndex, offsetBy: $0) }
    }

    /// Whether the string's UTF-8 holds `byte` (ASCII).
    func containsASCII(_ byte: UInt8) -> Bool {
        var copy = self
        return copy.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return false }
            return memchr(base, Int32(byte), utf8.count) != nil
        }
    }
}
