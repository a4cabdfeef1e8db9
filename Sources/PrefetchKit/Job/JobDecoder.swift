/// Turns a YAML tree into job values, collecting a diagnostic for every problem instead of
/// stopping at the first. Each reader returns nil after reporting.
struct JobDecoder {
    /// The job file as its diagnostics name it.
    let file: String
    let expansion: EnvironmentExpansion
    /// The job file's folder ("" for the working directory), which relative paths of its keys start from.
    var folder = ""
    private(set) var diagnostics: [JobDiagnostic] = []

    init(file: String, environment: [String: String]) {
        self.file = file
        self.expansion = EnvironmentExpansion(environment: environment)
    }

    mutating func report(_ node: YAMLNode, _ path: String, _ message: String) {
        report(at: node.mark, path, message)
    }

    mutating func report(at mark: YAMLMark, _ path: String, _ message: String) {
        diagnostics.append(
            JobDiagnostic(file: file, line: mark.line, column: mark.column, keyPath: path, message: message))
    }

    mutating func append(_ diagnostic: JobDiagnostic) {
        diagnostics.append(diagnostic)
    }

    /// The key path of `key` below `parent`.
    static func join(_ parent: String, _ key: String) -> String {
        parent.isEmpty ? key : "\(parent).\(key)"
    }

    /// The pairs of a mapping by key, after reporting wrong keys: not scalars, repeated, or not in `allowed`.
    mutating func mapping(_ node: YAMLNode, _ path: String, allowed: [String]) -> [String: YAMLPair]? {
        guard case .mapping(let pairs) = node.content else {
            report(node, path, "expected a mapping, found \(node.kindName)")
            return nil
        }
        var fields: [String: YAMLPair] = [:]
        for pair in pairs {
            guard case .scalar(let key, _) = pair.key.content else {
                report(pair.key, path, "a mapping key must be a scalar, found \(pair.key.kindName)")
                continue
            }
            let keyPath = Self.join(path, key)
            if let first = fields[key] {
                report(pair.key, keyPath, "duplicate key `\(key)`; first given at line \(first.key.mark.line)")
            } else if !allowed.contains(key) {
                report(pair.key, keyPath, "unknown key `\(key)`; \(Self.suggestion(for: key, among: allowed))")
            } else {
                fields[key] = pair
            }
        }
        return fields
    }

    /// "did you mean `x`?" when a close allowed key exists, otherwise the full list.
    static func suggestion(for key: String, among allowed: [String]) -> String {
        if let best = EditDistance.closest(to: key, among: allowed) {
            return "did you mean `\(best)`?"
        }
        return "allowed keys are " + allowed.map { "`\($0)`" }.joined(separator: ", ")
    }

    /// A scalar's text after `${VAR}` expansion; null and collections are reported.
    mutating func string(_ node: YAMLNode, _ path: String) -> String? {
        guard case .scalar(let text, _) = node.content, node.kindName != "null" else {
            report(node, path, "expected a scalar value, found \(node.kindName)")
            return nil
        }
        do throws(ValueProblem) {
            return try expansion.expand(text)
        } catch {
            report(node, path, error.message)
            return nil
        }
    }

    mutating func nonEmptyString(_ node: YAMLNode, _ path: String) -> String? {
        guard let text = string(node, path) else { return nil }
        guard !text.isEmpty else {
            report(node, path, "must not be empty")
            return nil
        }
        return text
    }

    mutating func bool(_ node: YAMLNode, _ path: String) -> Bool? {
        guard let text = string(node, path) else { return nil }
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default:
            report(node, path, "`\(text)` is not a boolean; use true or false")
            return nil
        }
    }

    mutating func int(_ node: YAMLNode, _ path: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = string(node, path) else { return nil }
        let bound = range.upperBound == .max ? "at least \(range.lowerBound)" : "\(range.lowerBound)...\(range.upperBound)"
        guard let value = Int(text) else {
            // Digits too many for a 64-bit number are a number out of range, not something else.
            let digits = text.first.map { "+-".contains($0) } == true ? text.dropFirst() : text[...]
            let isWhole = !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
            report(node, path, isWhole ? "\(text) is out of range; use \(bound)" : "`\(text)` is not a whole number")
            return nil
        }
        guard range.contains(value) else {
            report(node, path, "\(value) is out of range; use \(bound)")
            return nil
        }
        return value
    }

    /// A finite decimal number, with its text as written; without `allowingExponent`, plain digits
    /// and a point only (no `1e3`, no hex).
    mutating func number(_ node: YAMLNode, _ path: String, allowingExponent: Bool = true) -> (text: String, value: Double)? {
        guard let text = string(node, path) else { return nil }
        guard let value = Double(text), value.isFinite else {
            report(node, path, "`\(text)` is not a number")
            return nil
        }
        guard allowingExponent || !text.contains(where: { $0.isLetter }) else {
            report(node, path, "write `\(text)` in plain digits, with a point if need be (no exponent)")
            return nil
        }
        return (text, value)
    }

    mutating func duration(_ node: YAMLNode, _ path: String, allowZero: Bool) -> Duration? {
        measure(node, path, allowZero: allowZero, zero: .zero, JobValues.duration)
    }

    mutating func size(_ node: YAMLNode, _ path: String, allowZero: Bool) -> Int64? {
        measure(node, path, allowZero: allowZero, zero: 0, JobValues.size)
    }

    /// A duration or size: parsed, and above `zero` unless zero is allowed.
    private mutating func measure<Value: Comparable>(
        _ node: YAMLNode, _ path: String, allowZero: Bool, zero: Value,
        _ parse: (String) throws(ValueProblem) -> Value
    ) -> Value? {
        guard let text = string(node, path) else { return nil }
        do throws(ValueProblem) {
            let value = try parse(text)
            guard allowZero || value > zero else {
                report(node, path, "must be above zero")
                return nil
            }
            return value
        } catch {
            report(node, path, error.message)
            return nil
        }
    }

    /// One of an enum's job-file spellings.
    mutating func choice<Value: RawRepresentable & CaseIterable>(
        _ node: YAMLNode, _ path: String, as type: Value.Type
    ) -> Value? where Value.RawValue == String {
        guard let text = string(node, path) else { return nil }
        guard let value = Value(rawValue: text) else {
            let allowed = Value.allCases.map(\.rawValue).joined(separator: ", ")
            report(node, path, "unknown value `\(text)`; use one of \(allowed)")
            return nil
        }
        return value
    }

    /// A list's items with their key paths.
    mutating func list(_ node: YAMLNode, _ path: String) -> [(node: YAMLNode, path: String)]? {
        guard case .sequence(let items) = node.content else {
            report(node, path, "expected a list, found \(node.kindName)")
            return nil
        }
        return items.enumerated().map { ($0.element, "\(path)[\($0.offset)]") }
    }

    /// A list of non-empty strings; nil if the list or any item is wrong.
    mutating func stringList(_ node: YAMLNode, _ path: String) -> [String]? {
        guard let items = list(node, path) else { return nil }
        let values = items.map { nonEmptyString($0.node, $0.path) }
        return values.contains(where: { $0 == nil }) ? nil : values.compactMap { $0 }
    }
}
