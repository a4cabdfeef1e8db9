internal import Glibc

extension JobDecoder {
    static let setKeys = ["name", "priority", "urls", "url_file", "url_pattern"] + optionKeys
    private static let sourceKeys = ["urls", "url_file", "url_pattern"]
    /// Invalid lines reported per URL file before the rest are only counted.
    static let maxURLFileDiagnostics = 20

    /// Reads `sets:`; `folder` is the job file's folder ("" for the working directory).
    mutating func sets(_ node: YAMLNode, defaults: JobOptions, defaultPerHost: YAMLNode?, folder: String) -> [JobSet] {
        guard let items = list(node, "sets") else { return [] }
        guard !items.isEmpty else {
            report(node, "sets", "needs at least one set")
            return []
        }
        var result: [JobSet] = []
        var firstNames: [String: YAMLNode] = [:]
        for item in items {
            guard let fields = mapping(item.node, item.path, allowed: Self.setKeys) else { continue }
            let name = setName(fields, item, seen: &firstNames)
            let priority = fields["priority"].flatMap { choice($0.value, "\(item.path).priority", as: Priority.self) }
            var options = defaults
            let perHostNode = applyOptions(fields, item.path, to: &options) ?? defaultPerHost
            checkPerHost(&options, written: perHostNode, fields: fields, path: item.path)
            checkKeepOriginal(options, fields: fields, written: item.node, path: item.path)
            let source = urlSource(fields, item, folder: folder, hiding: options.redactParams)
            if let name, let source {
                result.append(JobSet(name: name, priority: priority ?? .normal, options: options, urls: source))
            }
        }
        return result
    }

    private mutating func setName(
        _ fields: [String: YAMLPair], _ item: (node: YAMLNode, path: String), seen: inout [String: YAMLNode]
    ) -> String? {
        guard let node = fields["name"]?.value else {
            report(item.node, item.path, "missing `name`")
            return nil
        }
        guard let name = nonEmptyString(node, "\(item.path).name") else { return nil }
        if let first = seen[name] {
            report(node, "\(item.path).name", "duplicate set name `\(name)`; first used at line \(first.mark.line)")
            return nil
        }
        seen[name] = node
        return name
    }

    /// Without any `per_host` written, it follows a smaller concurrency down; a written one above the
    /// set's concurrency is an error, reported where the set changes either value.
    mutating func checkPerHost(_ options: inout JobOptions, written: YAMLNode?, fields: [String: YAMLPair], path: String) {
        guard let written else {
            options.perHost = min(options.perHost, options.concurrency)
            return
        }
        guard options.perHost > options.concurrency, let key = ["per_host", "concurrency"].first(where: { fields[$0] != nil }) else {
            return
        }
        let place = fields[key]?.value ?? written
        // A value of the set's own that was refused leaves the one it inherited: that is not the set's to answer for.
        let keyPath = Self.join(path, key)
        guard !diagnostics.contains(where: { $0.keyPath == keyPath }) else { return }
        report(place, keyPath, "per_host \(options.perHost) is more than concurrency \(options.concurrency)")
    }

    /// A refused URL is quoted with the values of `hiding` (the set's `redact_params`) hidden.
    private mutating func urlSource(
        _ fields: [String: YAMLPair], _ item: (node: YAMLNode, path: String), folder: String, hiding: [String]
    ) -> URLSource? {
        let given = Self.sourceKeys.compactMap { key in fields[key].map { (key: key, pair: $0) } }
        guard let source = given.first else {
            report(item.node, item.path, "no URL source; give exactly one of `urls`, `url_file` or `url_pattern`")
            return nil
        }
        guard given.count == 1 else {
            let second = given.sorted { ($0.pair.key.mark.line, $0.pair.key.mark.column) < ($1.pair.key.mark.line, $1.pair.key.mark.column) }[1]
            report(second.pair.key, "\(item.path).\(second.key)", "a set takes exactly one of `urls`, `url_file` or `url_pattern`; found \(given.map { "`\($0.key)`" }.joined(separator: " and "))")
            return nil
        }
        let path = "\(item.path).\(source.key)"
        let node = source.pair.value
        switch source.key {
        case "urls": return urlList(node, path, hiding: hiding)
        case "url_file": return urlFile(node, path, folder: folder, hiding: hiding)
        default: return urlPattern(node, path)
        }
    }

    private mutating func urlList(_ node: YAMLNode, _ path: String, hiding: [String]) -> URLSource? {
        guard let items = list(node, path) else { return nil }
        var urls: [String] = []
        for item in items {
            guard let url = nonEmptyString(item.node, item.path) else { continue }
            if let problem = URLCheck.problem(url, hiding: hiding) {
                report(item.node, item.path, problem)
            } else {
                urls.append(url)
            }
        }
        return urls.count == items.count ? URLSource(kind: .list(urls), count: urls.count, keyPath: path) : nil
    }

    private mutating func urlPattern(_ node: YAMLNode, _ path: String) -> URLSource? {
        guard let text = nonEmptyString(node, path) else { return nil }
        do throws(URLPatternError) {
            let pattern = try URLPattern(text)
            return URLSource(kind: .pattern(pattern), count: pattern.count, keyPath: path)
        } catch {
            report(node, path, "bad pattern: \(error)")
            return nil
        }
    }

    /// Opens the URL file, checks every entry and counts them, streaming; invalid lines are reported
    /// at their own place in the URL file.
    private mutating func urlFile(_ node: YAMLNode, _ path: String, folder: String, hiding: [String]) -> URLSource? {
        guard let name = nonEmptyString(node, path) else { return nil }
        let resolved = name.hasPrefix("/") || folder.isEmpty ? name : "\(folder)/\(name)"
        var info = stat()
        if stat(resolved, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            report(node, path, "URL file `\(resolved)` is not a regular file: it is read twice, checked as the job loads "
                   + "and then streamed by the run, so it cannot be a pipe, a device or a folder")
            return nil
        }
        let reader: URLFileReader
        do throws(ValueProblem) {
            reader = try URLFileReader(path: resolved)
        } catch {
            report(node, path, error.message)
            return nil
        }
        var count = 0
        var invalid = 0
        while let entry = reader.nextEntry() {
            count += 1
            var problems: [(column: Int, message: String)] = URLCheck.problem(entry.url, hiding: hiding).map { [(entry.column, $0)] } ?? []
            do throws(ValueProblem) {
                _ = try entry.expectedDigest()
            } catch {
                problems.append((entry.digest?.column ?? 0, error.message))
            }
            guard !problems.isEmpty else { continue }
            invalid += 1
            if invalid <= Self.maxURLFileDiagnostics {
                for problem in problems {
                    append(JobDiagnostic(file: resolved, line: reader.lineNumber, column: problem.column, keyPath: path,
                                         message: problem.message))
                }
            }
        }
        if invalid > Self.maxURLFileDiagnostics {
            append(JobDiagnostic(file: resolved, line: 0, column: 0, keyPath: path,
                                 message: "\(invalid - Self.maxURLFileDiagnostics) more invalid lines not shown"))
        }
        if let failure = reader.failure {
            report(node, path, failure)
            return nil
        }
        return invalid == 0 ? URLSource(kind: .file(path: resolved), count: count, keyPath: path) : nil
    }
}
