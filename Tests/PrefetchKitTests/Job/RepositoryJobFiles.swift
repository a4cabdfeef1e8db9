import Foundation
@testable import PrefetchKit

/// Every job file of the checkout, found rather than listed, so a new one is covered: each YAML file
/// whose top level has `version` and `sets`, and each such ```yaml block of a Markdown file (written
/// out to a file of its own). Left out: hidden folders (`.build`, `.git`), `fuzz/` (its seeds and
/// crashes are broken on purpose; FuzzRegressionTests replays them) and `bench/out/` (generated).
enum RepositoryJobFiles {
    struct Found {
        /// As a message names it: the path in the checkout, with `:LINE` for a Markdown block.
        var name: String
        /// The file to check.
        var path: String
    }

    static let leftOut = ["fuzz", "bench/out"]

    /// The job files, Markdown blocks written into `folder`.
    static func find(under root: URL, blocksInto folder: TemporaryDirectory) throws -> [Found] {
        var found: [Found] = []
        let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isDirectoryKey, .isRegularFileKey], options: [.skipsHiddenFiles])
        let rootPath = root.standardizedFileURL.path + "/"
        while let url = enumerator?.nextObject() as? URL {
            let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count))
            let values = try url.resourceValues(forKeys: [.isDirectoryKey, .isRegularFileKey])
            if values.isDirectory == true {
                if leftOut.contains(relative) { enumerator?.skipDescendants() }
                continue
            }
            guard values.isRegularFile == true else { continue }
            switch url.pathExtension {
            case "yaml", "yml":
                if isJobFile(try String(contentsOf: url, encoding: .utf8)) { found.append(Found(name: relative, path: url.path)) }
            case "md":
                for block in yamlBlocks(try String(contentsOf: url, encoding: .utf8)) where isJobFile(block.text) {
                    let name = "\(relative):\(block.line)"
                    let file = try folder.write(name.replacingOccurrences(of: "/", with: "_") + ".yaml", block.text)
                    found.append(Found(name: name, path: file.path))
                }
            default:
                continue
            }
        }
        return found.sorted { $0.name < $1.name }
    }

    /// A job file by its shape: a top-level mapping with `version` and `sets`. Text libyaml cannot
    /// parse counts when two of its lines start with those keys.
    static func isJobFile(_ text: String) -> Bool {
        do {
            guard case .mapping(let pairs)? = try YAMLReader(bytes: Array(text.utf8)).readDocument()?.content else { return false }
            let keys = Set(pairs.compactMap { pair -> String? in
                guard case .scalar(let key, _) = pair.key.content else { return nil }
                return key
            })
            return keys.isSuperset(of: ["version", "sets"])
        } catch {
            let lines = text.split(separator: "\n")
            return lines.contains { $0.hasPrefix("version:") } && lines.contains { $0.hasPrefix("sets:") }
        }
    }

    /// The ```yaml (or ```yml) blocks of a Markdown text, with the line each starts on.
    static func yamlBlocks(_ markdown: String) -> [(line: Int, text: String)] {
        var blocks: [(line: Int, text: String)] = []
        var open: (line: Int, lines: [Substring])?
        for (number, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    blocks.append((block.line, block.lines.joined(separator: "\n") + "\n"))
                    open = nil
                } else {
                    block.lines.append(line)
                    open = block
                }
            } else if trimmed == "```yaml" || trimmed == "```yml" {
                open = (number + 2, [])
            }
        }
        return blocks
    }
}
