internal import CIDN2
internal import Glibc

/// Host names as `allow_hosts` and `deny_hosts` compare them: one spelling for every way of writing
/// the same name, so that no spelling slips past a rule. The trailing dot of a fully qualified name
/// goes, letters are lowered, and an international name becomes its A-label by libidn2's UTS #46
/// mapping (the one libcurl resolves with), so `Bücher.test.`, `bücher．test` and `xn--bcher-kva.test`
/// are one name.
enum HostName {
    /// The name in that one spelling; nil when it is not a host name libidn2 can map.
    static func normalized(_ host: String) -> String? {
        var name = Substring(host)
        while name.hasSuffix(".") { name = name.dropLast() }
        guard name.utf8.contains(where: { $0 >= 0x80 }) else { return name.lowercased() }
        // libidn2 reads a C string, so it would map only the part before a NUL: two names as one.
        guard !name.utf8.contains(0) else { return nil }
        var output: UnsafeMutablePointer<CChar>?
        let flags = Int32(IDN2_NFC_INPUT.rawValue | IDN2_NONTRANSITIONAL.rawValue)
        guard idn2_to_ascii_8z(String(name), &output, flags) == Int32(IDN2_OK.rawValue), let output else { return nil }
        defer { free(output) }
        // The mapping may itself leave a trailing dot (from a full stop of another script).
        return normalized(String(cString: output))
    }
}
