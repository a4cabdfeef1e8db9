import Foundation
import Testing
@testable import PrefetchKit

/// One file of `ci-examples/`: its YAML tree (libyaml, as job files are read), the variables it
/// sets for its commands, and the `prefetchd ...` lines of its scripts (GitHub's `run:` steps,
/// GitLab's `before_script`, `script` and `after_script`) in file order.
struct CIExample: CustomTestStringConvertible {
    enum Kind: String, Sendable {
        case githubActions = "github-actions"
        case gitlab

        /// The schema check-jsonschema ships for it.
        var schema: String {
            switch self {
            case .githubActions: "vendor.github-workflows"
            case .gitlab: "vendor.gitlab-ci"
            }
        }
    }

    static let folder = CheckJSONSchema.repository.appendingPathComponent("ci-examples")

    /// `ci-examples/<kind>/NAME.yml`, as a message names it.
    let name: String
    let path: String
    let kind: Kind
    let root: YAMLNode
    /// Top-level and job-level `env:` (GitHub) or `variables:` (GitLab).
    let variables: [String: String]
    /// Every script line that starts with `prefetchd `, as written.
    let commands: [String]

    var testDescription: String { name }

    /// Every YAML file below `ci-examples/`, by the folder that says which CI it is for; a file in
    /// another folder is reported, so a new example is never left unchecked.
    static func all(sourceLocation: SourceLocation = #_sourceLocation) throws -> [CIExample] {
        var examples: [CIExample] = []
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard ["yml", "yaml"].contains(url.pathExtension) else { continue }
            let relative = "ci-examples/" + url.path.dropFirst(folder.path.count + 1)
            guard let kind = Kind(rawValue: url.deletingLastPathComponent().lastPathComponent) else {
                Issue.record("\(relative) is in no folder of a known CI (\(["github-actions", "gitlab"]))", sourceLocation: sourceLocation)
                continue
            }
            examples.append(try CIExample(name: relative, path: url.path, kind: kind))
        }
        return examples.sorted { $0.name < $1.name }
    }

    init(name: String, path: String, kind: Kind) throws {
        self.name = name
        self.path = path
        self.kind = kind
        let bytes = Array(try String(contentsOfFile: path, encoding: .utf8).utf8)
        root = try #require(try YAMLReader(bytes: bytes).readDocument(), "\(name) is empty")
        let key = kind == .githubActions ? "env" : "variables"
        var variables = root[key]?.textPairs ?? [:]
        for job in Self.jobs(of: root, kind: kind) { variables.merge(job[key]?.textPairs ?? [:]) { $1 } }
        self.variables = variables
        let scripts: [String] = Self.jobs(of: root, kind: kind).flatMap { job -> [String] in
            switch kind {
            case .githubActions: job["steps"]?.items.compactMap { $0["run"]?.text } ?? []
            case .gitlab: ["before_script", "script", "after_script"].flatMap { job[$0]?.items.compactMap(\.text) ?? [] }
            }
        }
        commands = scripts.flatMap { $0.split(separator: "\n") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("prefetchd ") }
    }

    /// GitHub: the mappings under `jobs:`; GitLab: the top-level mappings with a `script:`.
    var jobs: [YAMLNode] { Self.jobs(of: root, kind: kind) }

    private static func jobs(of root: YAMLNode, kind: Kind) -> [YAMLNode] {
        switch kind {
        case .githubActions: root["jobs"]?.pairs.map(\.value) ?? []
        case .gitlab: root.pairs.map(\.value).filter { $0["script"] != nil }
        }
    }

    /// A command line split into words as a POSIX shell would, `$NAME` and `${NAME}` taken from the
    /// example's variables (the lines use no other expansion).
    func words(_ line: String) -> [String] {
        var words: [String] = []
        var word: String?
        var quote: Character?
        var characters = Array(line)[...]
        while let character = characters.popFirst() {
            if character == "'" && quote != "\"" || character == "\"" && quote != "'" {
                quote = quote == nil ? character : nil
                word = word ?? ""
            } else if character == "$" && quote != "'" {
                var name = ""
                let braced = characters.first == "{"
                if braced { characters.removeFirst() }
                while let next = characters.first, next == "_" || next.isLetter || next.isNumber {
                    name.append(characters.removeFirst())
                }
                if braced, characters.first == "}" { characters.removeFirst() }
                word = (word ?? "") + (variables[name] ?? "")
            } else if character == " " && quote == nil {
                if let done = word { words.append(done) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let done = word { words.append(done) }
        return words
    }
}

extension YAMLNode {
    /// The value of `key` in a mapping.
    subscript(key: String) -> YAMLNode? {
        pairs.first { $0.key == key }?.value
    }

    /// A mapping's pairs by their scalar keys.
    var pairs: [(key: String, value: YAMLNode)] {
        guard case .mapping(let pairs) = content else { return [] }
        return pairs.compactMap { pair in pair.key.text.map { ($0, pair.value) } }
    }

    var text: String? {
        guard case .scalar(let text, _) = content else { return nil }
        return text
    }

    var items: [YAMLNode] {
        guard case .sequence(let items) = content else { return [] }
        return items
    }

    /// A mapping of scalars as a dictionary.
    var textPairs: [String: String] {
        Dictionary(pairs.compactMap { pair in pair.value.text.map { (pair.key, $0) } }) { $1 }
    }
}
