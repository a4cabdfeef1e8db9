/// The cheap check every job URL passes: absolute `http` or `https`, a host, no spaces or control bytes.
enum URLCheck {
    /// Why `url` is not usable, or nil when it is.
    static func problem(_ url: String) -> String? {
        Array(url.utf8).withUnsafeBufferPointer { problem(bytes: $0, url: url) }
    }

    /// The same check over raw bytes, used on URL file lines without building a `String` twice.
    static func problem(bytes: UnsafeBufferPointer<UInt8>, url: @autoclosure () -> String) -> String? {
        guard let schemeEnd = schemeLength(bytes) else {
            return "`\(url())` is not an absolute http or https URL"
        }
        if let bad = bytes.firstIndex(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "`\(url())` contains a space or control character at character \(bad + 1)"
        }
        var authorityEnd = schemeEnd
        while authorityEnd < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[authorityEnd]) {
            authorityEnd += 1
        }
        var hostStart = schemeEnd
        for index in schemeEnd..<authorityEnd where bytes[index] == UInt8(ascii: "@") {
            hostStart = index + 1
        }
        guard hostStart < authorityEnd, bytes[hostStart] != UInt8(ascii: ":") else {
            return "`\(url())` has no host"
        }
        return nil
    }

    /// Length of a leading `http://` or `https://`, compared without case.
    private static func schemeLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for scheme in ["https://", "http://"] {
            let expected = Array(scheme.utf8)
            if bytes.count >= expected.count, zip(bytes, expected).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) {
                return expected.count
            }
        }
        return nil
    }
}
