import Foundation

extension JobDecoder {
    static let topKeys = ["version", "name", "cache", "defaults", "network", "hosts", "sets"]
    static let cacheKeys = ["path", "layout", "max_size", "max_age", "expire_by", "trim_to", "durable"]
    static let networkKeys = ["allow_private", "allow_hosts", "deny_hosts"]
    static let supportedVersion = 1

    /// Reads a whole job; nil when anything was reported.
    mutating func job(_ root: YAMLNode, path: String, stem: String, folder: String, workingDirectory: String) -> Job? {
        self.folder = folder
        guard let fields = mapping(root, "", allowed: Self.topKeys) else { return nil }
        version(fields["version"], root: root)
        let name = fields["name"].flatMap { nonEmptyString($0.value, "name") } ?? stem
        let cache = cacheSettings(fields["cache"]?.value, workingDirectory: workingDirectory)
        let network = fields["network"].map { networkSettings($0.value) } ?? NetworkSettings()
        let hosts = fields["hosts"].map { hostSettings($0.value) } ?? []
        var defaults = JobOptions()
        var defaultPerHost: YAMLNode?
        if let node = fields["defaults"]?.value, let optionFields = mapping(node, "defaults", allowed: Self.optionKeys) {
            defaultPerHost = applyOptions(optionFields, "defaults", to: &defaults)
            checkPerHost(&defaults, written: defaultPerHost, fields: optionFields, path: "defaults")
        }
        var sets: [JobSet] = []
        if let node = fields["sets"]?.value {
            sets = self.sets(node, defaults: defaults, defaultPerHost: defaultPerHost, folder: folder)
        } else {
            report(root, "sets", "missing; a job needs at least one set")
        }
        guard diagnostics.isEmpty else { return nil }
        return Job(name: name, path: path, cache: cache, network: network, sets: sets, defaults: defaults, hosts: hosts)
    }

    private mutating func version(_ pair: YAMLPair?, root: YAMLNode) {
        guard let pair else {
            report(root, "version", "missing; this prefetchd reads `version: \(Self.supportedVersion)`")
            return
        }
        guard let text = string(pair.value, "version") else { return }
        guard Int(text) == Self.supportedVersion else {
            report(pair.value, "version", "unsupported version `\(text)`; this prefetchd reads version \(Self.supportedVersion)")
            return
        }
    }

    private mutating func cacheSettings(_ node: YAMLNode?, workingDirectory: String) -> CacheSettings {
        // Without `cache.path`: `$PREFETCHD_CACHE_DIR`, as for the commands that take no job file.
        let fallback = CacheSettings.defaultPath(environment: expansion.environment)
        var settings = CacheSettings(path: Self.absolute(fallback, in: workingDirectory))
        guard let node, let fields = mapping(node, "cache", allowed: Self.cacheKeys) else { return settings }
        func value<Value>(_ key: String, _ read: (inout JobDecoder, YAMLNode, String) -> Value?) -> Value? {
            fields[key].flatMap { read(&self, $0.value, "cache.\(key)") }
        }
        if let path = value("path", { $0.nonEmptyString($1, $2) }) {
            settings.path = Self.absolute(path, in: workingDirectory)
        }
        settings.layout = value("layout", { $0.choice($1, $2, as: CacheLayout.self) }) ?? settings.layout
        settings.maxSize = value("max_size", { $0.size($1, $2, allowZero: true) }) ?? settings.maxSize
        settings.maxAge = value("max_age", { $0.duration($1, $2, allowZero: true) }) ?? settings.maxAge
        settings.expireBy = value("expire_by", { $0.choice($1, $2, as: ExpiryClock.self) }) ?? settings.expireBy
        settings.trimTo = value("trim_to", { $0.fraction($1, $2) }) ?? settings.trimTo
        settings.durable = value("durable", { $0.bool($1, $2) }) ?? settings.durable
        return settings
    }

    /// A number in (0, 1].
    private mutating func fraction(_ node: YAMLNode, _ path: String) -> Double? {
        guard let (text, value) = number(node, path) else { return nil }
        guard value > 0, value <= 1 else {
            report(node, path, "\(text) is outside (0, 1]; give the fraction of max_size to trim down to")
            return nil
        }
        return value
    }

    private mutating func networkSettings(_ node: YAMLNode) -> NetworkSettings {
        var settings = NetworkSettings()
        guard let fields = mapping(node, "network", allowed: Self.networkKeys) else { return settings }
        if let pair = fields["allow_private"], let allow = bool(pair.value, "network.allow_private") {
            settings.allowPrivate = allow
        }
        if let pair = fields["allow_hosts"], let hosts = hostPatterns(pair.value, "network.allow_hosts") {
            settings.allowHosts = hosts
        }
        if let pair = fields["deny_hosts"], let hosts = hostPatterns(pair.value, "network.deny_hosts") {
            settings.denyHosts = hosts
        }
        return settings
    }

    /// Host names, optionally starting with `*.`; no scheme, port, path or spaces.
    private mutating func hostPatterns(_ node: YAMLNode, _ path: String) -> [String]? {
        guard let items = list(node, path) else { return nil }
        var hosts: [String] = []
        for item in items {
            guard let host = nonEmptyString(item.node, item.path) else { continue }
            let body = host.hasPrefix("*.") ? host.dropFirst(2) : Substring(host)
            guard !body.isEmpty, body.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
                report(item.node, item.path, "`\(host)` is not a host pattern like `cdn.example.com` or `*.example.com`")
                continue
            }
            hosts.append(host)
        }
        return hosts.count == items.count ? hosts : nil
    }

    /// `path` against `workingDirectory` when relative, without `.` and `..` parts, as `--cache` is read.
    static func absolute(_ path: String, in workingDirectory: String) -> String {
        URL(fileURLWithPath: path.hasPrefix("/") ? path : "\(workingDirectory)/\(path)").standardizedFileURL.path
    }
}
