/// Expands `${VAR}` and `${VAR:-default}` in a job file's scalar values.
///
/// As in the shell, `:-` uses the default when the variable is unset or empty. A `$` that is not
/// followed by `{` is kept as it is. A variable that is unset and has no default is an error.
struct EnvironmentExpansion: Sendable {
    var environment: [String: String]

    func expand(_ text: String) throws(ValueProblem) -> String {
        guard text.contains("${") else { return text }
        var result = ""
        var rest = Substring(text)
        while let dollar = rest.firstRange(of: "${") {
            result += rest[..<dollar.lowerBound]
            let body = rest[dollar.upperBound...]
            guard let close = body.firstIndex(of: "}") else {
                throw ValueProblem(message: "`${` without a closing `}` in `\(text)`")
            }
            result += try substitute(String(body[..<close]), in: text)
            rest = body[body.index(after: close)...]
        }
        return result + rest
    }

    private func substitute(_ reference: String, in text: String) throws(ValueProblem) -> String {
        let name: String
        let fallback: String?
        if let separator = reference.firstRange(of: ":-") {
            name = String(reference[..<separator.lowerBound])
            fallback = String(reference[separator.upperBound...])
        } else {
            name = reference
            fallback = nil
        }
        guard Self.isVariableName(name) else {
            throw ValueProblem(message: "`${\(reference)}` does not name an environment variable")
        }
        if let value = environment[name], !(value.isEmpty && fallback != nil) {
            return value
        }
        guard let fallback else {
            throw ValueProblem(message: "environment variable `\(name)` is not set and `${\(name)}` has no `:-default`")
        }
        return fallback
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }
}
