internal import CCurl
internal import Glibc

/// The check every job URL passes: absolute `http` or `https`, a host, no spaces or control bytes, and
/// then libcurl's own URL parser, the one a transfer uses, so that what a job file accepts a run can
/// fetch (a port over 65535 or an unencoded `@` in a password would otherwise fail only in the run, as
/// `invalid_request`, and be banned by the failure ledger).
///
/// Runs once per URL file line, so the long scans are done by libc's `strcspn`.
package enum URLCheck {
    /// The most of a refused text a message quotes: what is not a URL at all (a line of a binary file
    /// read as a URL list) is shown as far as it tells what it is.
    static let shownCharacters = 80

    /// Every byte a URL may not contain: controls, space and DEL.
    private static let forbidden = String(decoding: Array(1...0x20) + [0x7F], as: UTF8.self)
    /// Those and every byte past ASCII (NUL-terminated), so that one scan finds an ASCII URL clean.
    private static let forbiddenOrNonASCII: [CChar] = (Array(1...0x20) + Array(0x7F...0xFF) + [0]).map { CChar(bitPattern: $0) }

    /// Why a URL with characters past ASCII (which libcurl percent-encodes) is not usable: a space of
    /// another kind (a no-break space before a URL file line's digest would join the digest to the
    /// URL), or bytes that were not UTF-8 (read as U+FFFD, which would be fetched as `%EF%BF%BD`).
    private static func nonASCIIProblem(_ url: String, hiding params: [String]) -> String? {
        for (offset, scalar) in url.unicodeScalars.enumerated() where !scalar.isASCII {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            if scalar == "\u{FFFD}" {
                return "`\(shortened(url, hiding: params))` holds bytes that are not UTF-8 text at character \(offset + 1)"
            }
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .format {
                return "`\(shortened(url, hiding: params))` contains the space or invisible character \(code) at character \(offset + 1)"
            }
        }
        return nil
    }

    /// `url` as a message quotes it: its password and the values of `params` hidden (`redact_params`),
    /// its first `shownCharacters` only.
    private static func shortened(_ url: String, hiding params: [String]) -> String {
        let shown = quoted(url, hiding: params)
        return shown.count > shownCharacters ? "\(shown.prefix(shownCharacters))..." : shown
    }

    private static func quoted(_ url: String, hiding params: [String]) -> String {
        URLRedaction.shown(keyed: redactedRefused(url), hiding: params)
    }

    /// Why `url` is not usable, or nil when it is. The message shows the URL with its password and
    /// the values of `params` (the set's `redact_params`) hidden.
    package static func problem(_ url: String, hiding params: [String] = URLRedaction.commonSecrets) -> String? {
        let length = url.utf8.count
        return url.withCString { text -> String? in
            let https = strncasecmp(text, "https://", 8) == 0
            guard https || strncasecmp(text, "http://", 7) == 0 else {
                return "`\(shortened(url, hiding: params))` is not an absolute http or https URL"
            }
            var clean = strcspn(text, forbiddenOrNonASCII)
            if clean < length, UInt8(bitPattern: text[clean]) >= 0x80 {
                if let problem = nonASCIIProblem(url, hiding: params) { return problem }
                clean = strcspn(text, forbidden)
            }
            guard clean == length else {
                return "`\(shortened(url, hiding: params))` contains a space or control character at character \(clean + 1)"
            }
            let authority = text + (https ? 8 : 7)
            let authorityLength = strcspn(authority, "/?#")
            var hostStart = authorityLength
            while hostStart > 0, authority[hostStart - 1] != CChar(UInt8(ascii: "@")) {
                hostStart -= 1
            }
            guard hostStart < authorityLength, authority[hostStart] != CChar(UInt8(ascii: ":")) else {
                return "`\(quoted(url, hiding: params))` has no host"
            }
            // The plain shape, `scheme://host[:port]` with a host name of letters, digits, dots and
            // hyphens (or four decimal octets) and a port of 1-65535, is one libcurl's parser always
            // accepts (what follows the authority it takes as it is, once spaces and controls are out):
            // most job URLs skip a parse that costs more than the rest of a cached URL's lookup.
            if hostStart == 0, length <= plainLengthLimit,
               isPlainAuthority(UnsafeRawBufferPointer(start: authority, count: authorityLength)) {
                return nil
            }
            let parsed = curl_url()
            defer { curl_url_cleanup(parsed) }
            let code = curl_url_set(parsed, CURLUPART_URL, text, 0)
            guard code == CURLUE_OK else {
                return "`\(quoted(url, hiding: params))` is not a URL libcurl can fetch: \(String(cString: curl_url_strerror(code)))"
            }
            return nil
        }
    }

    /// The longest URL that may skip libcurl's parse, far under its own limit (8,000,000 bytes).
    private static let plainLengthLimit = 65_536

    /// Whether `authority` (no user part) is a host name of ASCII letters, digits, dots and hyphens, or
    /// a dotted quad of decimal octets, then at most a `:` and a port from 1 to 65535 without leading zeros.
    private static func isPlainAuthority(_ authority: UnsafeRawBufferPointer) -> Bool {
        let count = authority.count
        var index = 0
        var letters = false, dots = 0, octet = 0, octetDigits = 0, octetsSound = true
        var previous: UInt8 = UInt8(ascii: ".")  // a host may not start with a dot
        while index < count, authority[index] != UInt8(ascii: ":") {
            let byte = authority[index]
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                letters = true
            case UInt8(ascii: "-"):
                guard previous != UInt8(ascii: ".") else { return false }
                letters = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if octetDigits == 1 && octet == 0 { octetsSound = false }  // a leading zero
                octet = octet * 10 + Int(byte - UInt8(ascii: "0"))
                octetDigits += 1
                if octetDigits > 3 || octet > 255 { octetsSound = false }
            case UInt8(ascii: "."):
                // No empty label, none ending in a hyphen.
                guard previous != UInt8(ascii: "."), previous != UInt8(ascii: "-") else { return false }
                if octetDigits == 0 { octetsSound = false }
                dots += 1
                octet = 0
                octetDigits = 0
            default:
                return false
            }
            previous = byte
            index += 1
        }
        guard index > 0, index <= 253, previous != UInt8(ascii: "."), previous != UInt8(ascii: "-") else { return false }
        // A name of digits and dots alone that is not a dotted quad (libcurl reads `1.2.3` and `0x7f.1` as
        // addresses in ways of its own) is left to libcurl.
        guard letters || (dots == 3 && octetsSound && octetDigits > 0) else { return false }
        guard index < count else { return true }
        let digits = count - index - 1
        guard (1...5).contains(digits), authority[index + 1] != UInt8(ascii: "0") else { return false }
        var port = 0
        for position in (index + 1)..<count {
            let byte = authority[position]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
            port = port * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return port <= 65535
    }
}
