import Foundation
import Testing

/// Runs `check-jsonschema` (PyPI), which scripts/pytools installs, pinned, into `.build/venv` of the
/// checkout (scripts/test runs it first). Without it the check fails: a file no one validated is not
/// taken as valid. It runs with every proxy pointed at a closed port, so a schema it would have to
/// download (rather than one it ships, or the metaschema) fails the check instead of reaching out.
enum CheckJSONSchema {
    /// The checkout: the folder holding `Package.swift`.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // PrefetchKitTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let tool = repository.appendingPathComponent(".build/venv/bin/check-jsonschema")

    /// The job file schema, `docs/job.schema.json`.
    static let jobSchema = repository.appendingPathComponent("docs/job.schema.json")

    /// What one run said, by file.
    struct Verdict {
        var status: Int32
        /// Each file's schema errors as `PATH: MESSAGE`, by the file name as given.
        var errors: [String: [String]] = [:]
        /// The files that did not parse.
        var unparsed: Set<String> = []
        /// The whole output, for messages.
        var output: String

        func passed(_ file: String) -> Bool { errors[file] == nil && !unparsed.contains(file) }
    }

    /// `check-jsonschema -o json SCHEMA... FILES...`, where `schema` is `["--schemafile", PATH]`,
    /// `["--builtin-schema", NAME]` or `["--check-metaschema"]`.
    static func check(_ files: [String], schema: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Verdict {
        try #require(FileManager.default.isExecutableFile(atPath: tool.path),
                     "\(tool.path) is not installed: run scripts/pytools (scripts/test does)", sourceLocation: sourceLocation)
        let process = Process()
        process.executableURL = tool
        process.arguments = ["--output-format", "json"] + schema + files
        let closed = "http://127.0.0.1:9"
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["HTTP_PROXY": closed, "HTTPS_PROXY": closed, "http_proxy": closed, "https_proxy": closed, "NO_PROXY": "", "no_proxy": ""]
        ) { $1 }
        let outcome = try Binary.outcome(of: process)
        let output = outcome.stdout + outcome.stderr
        let parsed = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        let report = try #require(parsed, "check-jsonschema printed no JSON report: \(output)", sourceLocation: sourceLocation)
        var verdict = Verdict(status: outcome.status, output: output)
        for error in report["errors"] as? [[String: Any]] ?? [] {
            guard let file = error["filename"] as? String else { continue }
            let detail = (error["best_deep_match"] as? [String: Any])?["message"] as? String
            verdict.errors[file, default: []].append("\(error["path"] ?? ""): \(error["message"] ?? "")" + (detail.map { " (\($0))" } ?? ""))
        }
        for error in report["parse_errors"] as? [[String: Any]] ?? [] {
            if let file = error["filename"] as? String { verdict.unparsed.insert(file) }
        }
        let clean = verdict.errors.isEmpty && verdict.unparsed.isEmpty
        #expect((report["status"] as? String == "ok") == clean && (outcome.status == 0) == clean,
                "check-jsonschema's status and its report disagree: \(output)", sourceLocation: sourceLocation)
        return verdict
    }
}
