import Foundation

extension JobDecoder {
    /// Keys allowed in `defaults:` and, as overrides, in every set.
    static let optionKeys = [
        "concurrency", "per_host", "order", "timeout", "retries", "retry_failed", "refresh", "headers",
        "credentials", "cookies", "insecure_tls", "validate", "formats", "max_bytes", "max_pixels", "max_frames",
        "max_frame_pixels", "cache_key", "redact_params", "stall", "proxy", "no_proxy", "ca_file", "ca_path", "connect_to", "rate_limit",
        "resume_max_age", "variants", "keep_original",
    ]

    /// Applies the option keys present in `fields` over `options`; returns the `per_host` value node
    /// when one was written here, so its bound can be checked against the effective concurrency.
    mutating func applyOptions(_ fields: [String: YAMLPair], _ path: String, to options: inout JobOptions) -> YAMLNode? {
        for key in Self.optionKeys {
            guard let node = fields[key]?.value else { continue }
            let keyPath = Self.join(path, key)
            switch key {
            case "concurrency": set(&options.concurrency, int(node, keyPath, in: 1...1024))
            case "per_host": set(&options.perHost, int(node, keyPath, in: 1...1024))
            case "order": set(&options.order, choice(node, keyPath, as: QueueOrder.self))
            case "timeout": set(&options.timeout, duration(node, keyPath, allowZero: false))
            case "retries": set(&options.retries, int(node, keyPath, in: 0...100))
            case "retry_failed": set(&options.retryFailed, bool(node, keyPath))
            case "refresh": set(&options.refresh, choice(node, keyPath, as: RefreshPolicy.self))
            case "headers": mergeHeaders(node, keyPath, into: &options.headers)
            case "credentials": set(&options.credentials, credentials(node, keyPath))
            case "cookies": set(&options.cookies, bool(node, keyPath))
            case "insecure_tls": set(&options.insecureTLS, bool(node, keyPath))
            case "validate": set(&options.validate, choice(node, keyPath, as: ValidationLevel.self))
            case "formats": set(&options.formats, formats(node, keyPath))
            case "max_bytes": set(&options.maxBytes, size(node, keyPath, allowZero: false))
            case "max_pixels": set(&options.maxPixels, int(node, keyPath, in: 1...Int.max))
            case "max_frames": set(&options.maxFrames, int(node, keyPath, in: 1...Int.max))
            case "max_frame_pixels": set(&options.maxFramePixels, int(node, keyPath, in: 1...Int.max))
            case "redact_params": set(&options.redactParams, stringList(node, keyPath)?.map { $0.lowercased() })
            case "stall": set(&options.stall, stall(node, keyPath, over: options.stall))
            case "proxy": if let proxy = proxy(node, keyPath) { options.proxy = proxy }
            case "no_proxy": set(&options.noProxy, noProxy(node, keyPath))
            case "ca_file": set(&options.caFile, certificatePath(node, keyPath, folder: false))
            case "ca_path": set(&options.caPath, certificatePath(node, keyPath, folder: true))
            case "connect_to": set(&options.connectTo, connectTo(node, keyPath))
            case "rate_limit": if let limit = setRateLimit(node, keyPath) { options.rateLimit = limit }
            case "resume_max_age": set(&options.resumeMaxAge, duration(node, keyPath, allowZero: true))
            case "variants": set(&options.variants, variants(node, keyPath))
            case "keep_original": set(&options.keepOriginal, bool(node, keyPath))
            default: set(&options.cacheKey, cacheKeyRule(node, keyPath))
            }
        }
        return fields["per_host"]?.value
    }

    private func set<Value>(_ target: inout Value, _ value: Value?) {
        if let value { target = value }
    }

    private func set<Value>(_ target: inout Value?, _ value: Value?) {
        if let value { target = value }
    }

    /// Headers that describe the request body's framing: on a GET without a body they would make a
    /// server wait for bytes that never come.
    static let framingHeaders: Set<String> = ["content-length", "transfer-encoding"]

    /// Header names must be tokens and values a single line, not about a body; a name replaces any
    /// written with other case in the defaults, and may not come twice in one mapping in any case.
    private mutating func mergeHeaders(_ node: YAMLNode, _ path: String, into headers: inout [String: String]) {
        guard case .mapping(let pairs) = node.content else {
            report(node, path, "expected a mapping, found \(node.kindName)")
            return
        }
        let names = pairs.compactMap { pair -> String? in
            guard case .scalar(let name, _) = pair.key.content else { return nil }
            return name
        }
        guard let fields = mapping(node, path, allowed: names) else { return }
        var spelled: [String: String] = [:]
        for name in names {
            guard let pair = fields[name], let value = string(pair.value, Self.join(path, name)) else { continue }
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.isTokenCharacter) else {
                report(pair.key, Self.join(path, name), "`\(name)` is not a valid header name")
                continue
            }
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
                report(pair.value, Self.join(path, name), "a header value must be one line")
                continue
            }
            guard !Self.framingHeaders.contains(name.lowercased()) else {
                report(pair.key, Self.join(path, name), "`\(name)` frames the message and is set by libcurl; a GET sends no body")
                continue
            }
            if let first = spelled.updateValue(name, forKey: name.lowercased()) {
                report(pair.key, Self.join(path, name), "`\(name)` is the header `\(first)` again (header names are the same in any case)")
                continue
            }
            for existing in headers.keys where existing.lowercased() == name.lowercased() {
                headers[existing] = nil
            }
            headers[name] = value
        }
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
    }

    private mutating func credentials(_ node: YAMLNode, _ path: String) -> CredentialSettings? {
        guard let fields = mapping(node, path, allowed: Self.credentialKeys) else { return nil }
        return credentials(fields, node, path)
    }

    static let credentialKeys = ["username", "password_env", "password_file"]

    /// `username` and one of `password_env` and `password_file` of a mapping already read
    /// (`credentials:`, or a `proxy:` mapping).
    mutating func credentials(_ fields: [String: YAMLPair], _ node: YAMLNode, _ path: String) -> CredentialSettings? {
        let variableNode = fields["password_env"]?.value
        let fileNode = fields["password_file"]?.value
        guard let usernameNode = fields["username"]?.value, (variableNode == nil) != (fileNode == nil) else {
            report(node, path, "needs `username` and one of `password_env` (an environment variable) and `password_file` (a file)")
            return nil
        }
        let username = nonEmptyString(usernameNode, Self.join(path, "username"))
        let secret = if let variableNode {
            passwordFromEnvironment(variableNode, Self.join(path, "password_env"))
        } else {
            fileNode.flatMap { passwordFromFile($0, Self.join(path, "password_file")) }
        }
        guard let (source, password) = secret else { return nil }
        return username.map { CredentialSettings(username: $0, passwordSource: source, password: password) }
    }

    private mutating func passwordFromEnvironment(_ node: YAMLNode, _ path: String) -> (PasswordSource, String)? {
        guard let variable = nonEmptyString(node, path) else { return nil }
        guard EnvironmentExpansion.isVariableName(variable) else {
            report(node, path, "`\(variable)` is not an environment variable name")
            return nil
        }
        guard let password = expansion.environment[variable] else {
            report(node, path, "environment variable `\(variable)` is not set")
            return nil
        }
        return (.environment(variable), password)
    }

    /// The file's content less one trailing newline (a Kubernetes Secret or a systemd credential
    /// mounted as a file), read as the job loads, as `password_env`'s variable is; relative to the job
    /// file's folder.
    private mutating func passwordFromFile(_ node: YAMLNode, _ path: String) -> (PasswordSource, String)? {
        guard let name = nonEmptyString(node, path) else { return nil }
        let resolved = name.hasPrefix("/") || folder.isEmpty ? name : "\(folder)/\(name)"
        let descriptor = open(resolved, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            report(node, path, "cannot read the password file `\(oneLine(resolved))`: \(String(cString: strerror(errno)))")
            return nil
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let data = try? handle.readToEnd() ?? Data() else {
            report(node, path, "cannot read the password file `\(oneLine(resolved))`: not a readable regular file")
            return nil
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\r\n") { text.removeLast(1) }  // "\r\n" is one Character
        else if text.hasSuffix("\n") { text.removeLast() }
        guard !text.isEmpty else {
            report(node, path, "the password file `\(oneLine(resolved))` is empty")
            return nil
        }
        return (.file(resolved), text)
    }

    private mutating func formats(_ node: YAMLNode, _ path: String) -> [ImageFormat]? {
        guard let items = list(node, path) else { return nil }
        guard !items.isEmpty else {
            report(node, path, "needs at least one format")
            return nil
        }
        var formats: [ImageFormat] = []
        var complete = true
        for item in items {
            guard let format = choice(item.node, item.path, as: ImageFormat.self) else {
                complete = false
                continue
            }
            if !formats.contains(format) { formats.append(format) }
        }
        return complete ? formats : nil
    }

    private mutating func cacheKeyRule(_ node: YAMLNode, _ path: String) -> CacheKeyRule? {
        guard let fields = mapping(node, path, allowed: ["drop_params", "strip_query"]) else { return nil }
        switch (fields["drop_params"], fields["strip_query"]) {
        case (let drop?, nil):
            return stringList(drop.value, Self.join(path, "drop_params")).map(CacheKeyRule.dropParams)
        case (nil, let strip?):
            guard let enabled = bool(strip.value, Self.join(path, "strip_query")) else { return nil }
            guard enabled else {
                report(strip.value, Self.join(path, "strip_query"), "only `strip_query: true` is meaningful; leave `cache_key` out instead")
                return nil
            }
            return .stripQuery
        case (_?, let strip?):
            report(strip.key, Self.join(path, "strip_query"), "give either `drop_params` or `strip_query`, not both")
            return nil
        case (nil, nil):
            report(node, path, "needs `drop_params: [...]` or `strip_query: true`")
            return nil
        }
    }
}
