extension JobDecoder {
    static let rateLimitKeys = ["requests_per_second", "burst", "bytes_per_second"]
    static let hostKeys = ["rate_limit"]

    /// A set's (or the defaults') `rate_limit`: a limit, or `none` (`.some(nil)`), which switches off
    /// one the set would inherit from `defaults`; nil when it is wrong (reported).
    mutating func setRateLimit(_ node: YAMLNode, _ path: String) -> RateLimit?? {
        if case .scalar = node.content {
            guard node.kindName != "null" else {
                report(node, path, "expected a mapping or `none`, found null")
                return nil
            }
            // Expanded first, as any value: `rate_limit: ${LIMIT:-none}`.
            guard let text = string(node, path) else { return nil }
            if text == "none" { return .some(nil) }
            report(node, path, "expected a mapping or `none`, found `\(oneLine(text))`")
            return nil
        }
        return rateLimit(node, path).map { .some($0) }
    }

    /// `rate_limit: {requests_per_second, burst, bytes_per_second}`: at least one of the two rates;
    /// `burst` only beside `requests_per_second`.
    mutating func rateLimit(_ node: YAMLNode, _ path: String) -> RateLimit? {
        guard let fields = mapping(node, path, allowed: Self.rateLimitKeys) else { return nil }
        guard fields["requests_per_second"] != nil || fields["bytes_per_second"] != nil else {
            report(node, path, "needs `requests_per_second`, `bytes_per_second` or both")
            return nil
        }
        var limit = RateLimit()
        var complete = true
        if let pair = fields["requests_per_second"] {
            limit.requestsPerSecond = rate(pair.value, Self.join(path, "requests_per_second"))
            complete = complete && limit.requestsPerSecond != nil
        }
        if let pair = fields["burst"] {
            if fields["requests_per_second"] == nil {
                report(pair.key, Self.join(path, "burst"), "a burst of requests needs `requests_per_second`")
                complete = false
            } else if let burst = int(pair.value, Self.join(path, "burst"), in: 1...100_000) {
                limit.burst = burst
            } else {
                complete = false
            }
        }
        if let pair = fields["bytes_per_second"] {
            limit.bytesPerSecond = size(pair.value, Self.join(path, "bytes_per_second"), allowZero: false)
            complete = complete && limit.bytesPerSecond != nil
        }
        return complete ? limit : nil
    }

    /// A number of requests a second: above zero, at most 100,000, fractions allowed (`0.5` is one
    /// every two seconds).
    private mutating func rate(_ node: YAMLNode, _ path: String) -> Double? {
        guard let (text, value) = number(node, path, allowingExponent: false) else { return nil }
        guard value > 0, value <= 100_000 else {
            report(node, path, "\(text) is out of range; use a number above 0 and at most 100000")
            return nil
        }
        return value
    }

    /// `hosts:` — a mapping from host pattern (`img.example.com`, `*.example.com` or `*`) to that host's
    /// settings, today its `rate_limit`.
    mutating func hostSettings(_ node: YAMLNode) -> [HostSettings] {
        guard case .mapping(let pairs) = node.content else {
            report(node, "hosts", "expected a mapping of host patterns, found \(node.kindName)")
            return []
        }
        let patterns = pairs.compactMap { pair -> String? in
            guard case .scalar(let name, _) = pair.key.content else { return nil }
            return name
        }
        guard let fields = mapping(node, "hosts", allowed: patterns) else { return [] }
        var hosts: [HostSettings] = []
        // The pattern first written for each host, as the rules spell it (case and a final dot aside).
        var named: [String: String] = [:]
        for pattern in patterns {
            guard let pair = fields[pattern] else { continue }
            let path = Self.join("hosts", pattern)
            let body = pattern.hasPrefix("*.") ? pattern.dropFirst(2) : Substring(pattern)
            guard pattern == "*" || (!body.isEmpty && body.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) })) else {
                // A host's limit holds on every port of it: a pattern names no port.
                let hint = pattern.contains(":") ? " (without a port: a host's limit holds on every port)" : ""
                report(pair.key, path, "`\(pattern)` is not a host pattern like `cdn.example.com`, `*.example.com` or `*`\(hint)")
                continue
            }
            let spelling = HostRateRules.spelling(pattern)
            if let earlier = named[spelling] {
                report(pair.key, path, "`\(pattern)` names the same hosts as `\(earlier)`; give each host once")
                continue
            }
            named[spelling] = pattern
            guard let settings = mapping(pair.value, path, allowed: Self.hostKeys) else { continue }
            guard let limitPair = settings["rate_limit"] else {
                report(pair.value, path, "needs `rate_limit`")
                continue
            }
            if let limit = rateLimit(limitPair.value, Self.join(path, "rate_limit")) {
                hosts.append(HostSettings(pattern: pattern.lowercased(), rateLimit: limit))
            }
        }
        return hosts
    }
}
