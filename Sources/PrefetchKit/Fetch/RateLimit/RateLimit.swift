/// `rate_limit:` — how fast one scope (a set, or a host) may be asked: requests per second through a
/// token bucket of `burst` requests, and body bytes per second. Either may be absent (no limit of
/// that kind); at least one is given.
package struct RateLimit: Sendable, Equatable {
    /// Attempts started per second, retries included; nil for no limit.
    package var requestsPerSecond: Double?
    /// Attempts that may start at once after a quiet spell, at least 1.
    package var burst = 1
    /// Body bytes received per second, before any content decoding; nil for no limit.
    package var bytesPerSecond: Int64?

    package init(requestsPerSecond: Double? = nil, burst: Int = 1, bytesPerSecond: Int64? = nil) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = max(1, burst)
        self.bytesPerSecond = bytesPerSecond
    }

    /// The stricter of two limits, field by field (where several job files name one host). The burst
    /// is that of the request rates given: a limit of bytes alone has no burst of its own to bring.
    func tightened(by other: RateLimit) -> RateLimit {
        let burst = switch (requestsPerSecond, other.requestsPerSecond) {
        case (_?, _?): min(burst, other.burst)
        case (nil, _?): other.burst
        default: burst
        }
        return RateLimit(requestsPerSecond: Self.smaller(requestsPerSecond, other.requestsPerSecond),
                         burst: burst, bytesPerSecond: Self.smaller(bytesPerSecond, other.bytesPerSecond))
    }

    private static func smaller<Value: Comparable>(_ a: Value?, _ b: Value?) -> Value? {
        switch (a, b) {
        case (let a?, let b?): min(a, b)
        case (let a?, nil): a
        case (nil, let b): b
        }
    }
}

/// The `hosts:` rules of a run's job files: which `rate_limit` holds the requests to a host. A pattern
/// is a host name, `*.example.com` (any name below it, not itself) or `*` (every host); the most
/// specific match wins (the name, then the longest `*.` pattern, then `*`). Where job files name the
/// same pattern differently, the strictest value of each field holds.
package struct HostRateRules: Sendable, Equatable {
    private var rules: [String: RateLimit] = [:]

    package init() {}

    package init(_ rules: [(pattern: String, limit: RateLimit)]) {
        for rule in rules { add(rule.pattern, rule.limit) }
    }

    package mutating func add(_ pattern: String, _ limit: RateLimit) {
        let key = Self.spelling(pattern)
        rules[key] = rules[key].map { $0.tightened(by: limit) } ?? limit
    }

    package mutating func merge(_ other: HostRateRules) {
        for (pattern, limit) in other.rules { add(pattern, limit) }
    }

    package var isEmpty: Bool { rules.isEmpty }

    /// The limit for requests to `host` (as `FetchRequest.hostKey` spells it), if any rule matches.
    package func limit(forHost host: String) -> RateLimit? {
        let name = Self.spelling(host)
        if let exact = rules[name] { return exact }
        var suffix = Substring(name)
        while let dot = suffix.firstIndex(of: ".") {
            suffix = suffix[suffix.index(after: dot)...]
            if let wildcard = rules["*." + suffix] { return wildcard }
        }
        return rules["*"]
    }

    static func spelling(_ host: String) -> String {
        var name = Substring(host.lowercased())
        while name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }
}
