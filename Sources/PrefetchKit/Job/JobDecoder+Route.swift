import Foundation

/// The option keys of how a set's requests travel: `stall`, `proxy`, `no_proxy`, `ca_file`, `ca_path`
/// and `connect_to`.
extension JobDecoder {
    static let stallKeys = ["low_speed_limit", "low_speed_time"]
    static let proxyKeys = ["url"] + credentialKeys
    static let proxySchemes = ["http", "https", "socks5", "socks5h"]
    static let connectToKeys = ["host", "port", "to"]

    /// `{low_speed_limit: SIZE, low_speed_time: DURATION}` over `inherited`: either may be left out.
    mutating func stall(_ node: YAMLNode, _ path: String, over inherited: StallLimit) -> StallLimit? {
        guard let fields = mapping(node, path, allowed: Self.stallKeys) else { return nil }
        guard !fields.isEmpty else {
            report(node, path, "needs `low_speed_limit` (bytes/s, 0 for no stall limit) or `low_speed_time`, or both")
            return nil
        }
        var limit = inherited
        var complete = true
        if let pair = fields["low_speed_limit"] {
            if let bytes = size(pair.value, Self.join(path, "low_speed_limit"), allowZero: true) {
                limit.bytesPerSecond = bytes
            } else {
                complete = false
            }
        }
        if let pair = fields["low_speed_time"] {
            let keyPath = Self.join(path, "low_speed_time")
            if let time = duration(pair.value, keyPath, allowZero: false) {
                if time < .seconds(1) {
                    report(pair.value, keyPath, "must be at least 1s: the limit is judged about once a second")
                    complete = false
                } else {
                    limit.time = time
                }
            } else {
                complete = false
            }
        }
        return complete ? limit : nil
    }

    /// A proxy URL, `none`, or `{url, username, password_env | password_file}`; `.some(nil)` is `none`.
    mutating func proxy(_ node: YAMLNode, _ path: String) -> ProxySettings?? {
        if case .scalar = node.content {
            guard let text = string(node, path) else { return nil }
            if text == "none" { return .some(nil) }
            return proxyURL(text, node, path).map { ProxySettings(url: $0) }
        }
        guard let fields = mapping(node, path, allowed: Self.proxyKeys) else { return nil }
        guard let urlNode = fields["url"]?.value else {
            report(node, path, "needs `url`, the proxy's scheme://host:port")
            return nil
        }
        let url = string(urlNode, Self.join(path, "url")).flatMap { proxyURL($0, urlNode, Self.join(path, "url")) }
        var login: CredentialSettings?
        if fields["username"] != nil || fields["password_env"] != nil || fields["password_file"] != nil {
            guard let read = self.credentials(fields, node, path) else { return nil }
            login = read
        }
        return url.map { ProxySettings(url: $0, credentials: login) }
    }

    /// `scheme://host:port`, with a scheme libcurl proxies through and no credentials, path or query.
    private mutating func proxyURL(_ text: String, _ node: YAMLNode, _ path: String) -> String? {
        let shown = oneLine(text)
        guard let separator = text.range(of: "://"),
              Self.proxySchemes.contains(text[..<separator.lowerBound].lowercased()) else {
            report(node, path, "`\(shown)` is not a proxy URL: use http://, https://, socks5:// or socks5h:// with host:port, or `none`")
            return nil
        }
        let authority = text[separator.upperBound...].prefix { $0 != "/" }
        let rest = text[separator.upperBound...].dropFirst(authority.count)
        guard !authority.contains("@") else {
            report(node, path, "the proxy URL must not hold credentials; give `username` and `password_env` or `password_file` beside `url`")
            return nil
        }
        guard rest.isEmpty || rest == "/", let components = URLComponents(string: text),
              let host = components.host, !host.isEmpty, let port = components.port else {
            report(node, path, "`\(shown)` is not a proxy URL of the form scheme://host:port (the port is needed)")
            return nil
        }
        guard (1...65535).contains(port) else {
            report(node, path, "port \(port) of `\(shown)` is out of range; use 1...65535")
            return nil
        }
        return "\(text[..<separator.lowerBound].lowercased())://\(authority)"
    }

    /// A list of host names, `.domain` suffixes, addresses and CIDR ranges, or one string of them
    /// separated by commas (so `no_proxy: ${NO_PROXY:-}` works); `*` alone matches every host.
    mutating func noProxy(_ node: YAMLNode, _ path: String) -> [String]? {
        var entries: [(text: String, node: YAMLNode, path: String)] = []
        if case .sequence = node.content {
            guard let items = list(node, path) else { return nil }
            for item in items {
                guard let text = nonEmptyString(item.node, item.path) else { return nil }
                entries.append((text, item.node, item.path))
            }
        } else {
            guard let text = string(node, path) else { return nil }
            entries = text.split(separator: ",").map { (String($0).trimmingSpaces, node, path) }.filter { !$0.text.isEmpty }
        }
        var hosts: [String] = []
        for entry in entries {
            guard entry.text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._:/[]*".contains($0)) }),
                  entry.text == "*" || !entry.text.contains("*"), !entry.text.contains("/") || Self.isRange(entry.text) else {
                report(entry.node, entry.path, "`\(oneLine(entry.text))` is not a host name, .domain, address or CIDR range")
                return nil
            }
            hosts.append(entry.text)
        }
        return hosts
    }

    /// Whether `text` is an address, a `/` and a prefix length it has room for: `10.0.0.0/8`, `fd00::/8`.
    private static func isRange(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let bits = Int(parts[1]) else { return false }
        var v6 = in6_addr()
        if inet_pton(AF_INET, String(parts[0]), &v6) == 1 { return (0...32).contains(bits) }
        return inet_pton(AF_INET6, String(parts[0]), &v6) == 1 && (0...128).contains(bits)
    }

    /// A file (or, with `folder`, a folder) that exists, relative to the job file's folder.
    mutating func certificatePath(_ node: YAMLNode, _ path: String, folder isFolder: Bool) -> String? {
        guard let name = nonEmptyString(node, path) else { return nil }
        let resolved = name.hasPrefix("/") || folder.isEmpty ? name : "\(folder)/\(name)"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory) else {
            report(node, path, "`\(oneLine(resolved))` does not exist")
            return nil
        }
        guard isDirectory.boolValue == isFolder, FileManager.default.isReadableFile(atPath: resolved) else {
            let wanted = isFolder ? "a readable folder of hashed certificates" : "a readable PEM file"
            report(node, path, "`\(oneLine(resolved))` is not \(wanted)")
            return nil
        }
        return resolved
    }

    /// `[{host: NAME, port: N, to: HOST:PORT}]`; `port` (any when left out) and the port of `to` (the
    /// URL's when left out) are optional.
    mutating func connectTo(_ node: YAMLNode, _ path: String) -> [ConnectTarget]? {
        guard let items = list(node, path) else { return nil }
        var targets: [ConnectTarget] = []
        for item in items {
            guard let fields = mapping(item.node, item.path, allowed: Self.connectToKeys) else { continue }
            guard let hostNode = fields["host"]?.value, let toNode = fields["to"]?.value else {
                report(item.node, item.path, "needs `host` (the URL's host) and `to` (HOST:PORT to connect to)")
                continue
            }
            let host = nonEmptyString(hostNode, Self.join(item.path, "host")).flatMap {
                connectHost($0, hostNode, Self.join(item.path, "host"))
            }
            let port = fields["port"].flatMap { int($0.value, Self.join(item.path, "port"), in: 1...65535) }
            let to = nonEmptyString(toNode, Self.join(item.path, "to")).flatMap { connectAddress($0, toNode, Self.join(item.path, "to")) }
            guard let host, let to, fields["port"] == nil || port != nil else { continue }
            targets.append(ConnectTarget(host: host, port: port, toHost: to.host, toPort: to.port))
        }
        return targets.count == items.count ? targets : nil
    }

    private mutating func connectHost(_ text: String, _ node: YAMLNode, _ path: String) -> String? {
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        guard bare.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) })
                || (bare.contains(":") && bare.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." })) else {
            report(node, path, "`\(oneLine(text))` is not a host name or address (give the port as `port`)")
            return nil
        }
        return bare
    }

    /// `HOST:PORT`, `HOST`, `[V6]:PORT` or `[V6]`.
    private mutating func connectAddress(_ text: String, _ node: YAMLNode, _ path: String) -> (host: String, port: Int?)? {
        var host = Substring(text)
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                report(node, path, "`\(oneLine(text))` opens an IPv6 address with `[` and does not close it")
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    report(node, path, "`\(oneLine(text))` is not HOST:PORT")
                    return nil
                }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else {
                report(node, path, "`\(oneLine(text))` is not HOST:PORT; write an IPv6 address in brackets, [::1]:443")
                return nil
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard let hostName = connectHost(String(host), node, path), !hostName.isEmpty else { return nil }
        guard let portText else { return (hostName, nil) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            report(node, path, "`\(portText)` in `\(oneLine(text))` is not a port 1...65535")
            return nil
        }
        return (hostName, port)
    }
}
