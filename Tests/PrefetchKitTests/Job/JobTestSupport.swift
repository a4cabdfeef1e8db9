import Foundation
import Testing
@testable import PrefetchKit

/// A fresh temporary folder for one test, removed when the test drops it.
final class JobTestFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("job-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` to `name` inside the folder and returns the full path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = "\(path)/\(name)"
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Loads `text` as `job.yaml` in this folder.
    func load(_ text: String, environment: [String: String] = [:]) throws -> Job {
        let file = try write("job.yaml", text)
        return try JobFile.load(path: file, environment: environment, workingDirectory: path)
    }

    /// Loads `text` expecting failure; returns the diagnostics.
    func diagnostics(_ text: String, environment: [String: String] = [:], limits: YAMLLimits = .standard) throws -> [JobDiagnostic] {
        let file = try write("job.yaml", text)
        do {
            let job = try JobFile.load(path: file, environment: environment, workingDirectory: path, limits: limits)
            Issue.record("expected a job file error, loaded \(job.name)")
            return []
        } catch {
            return error.diagnostics
        }
    }
}

/// The one diagnostic at `keyPath`, checked for place and message text.
func expectDiagnostic(
    _ diagnostics: [JobDiagnostic], line: Int, column: Int, keyPath: String, contains text: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let matching = diagnostics.filter { $0.keyPath == keyPath }
    guard let diagnostic = matching.first else {
        Issue.record("no diagnostic at \(keyPath) in:\n\(diagnostics.map(\.description).joined(separator: "\n"))", sourceLocation: sourceLocation)
        return
    }
    #expect(matching.count == 1, "several diagnostics at \(keyPath)", sourceLocation: sourceLocation)
    #expect(diagnostic.line == line && diagnostic.column == column, "\(diagnostic)", sourceLocation: sourceLocation)
    #expect(diagnostic.message.contains(text), "\(diagnostic)", sourceLocation: sourceLocation)
    let path = keyPath.isEmpty ? "" : "\(keyPath): "
    #expect(diagnostic.description == "\(diagnostic.file):\(line):\(column): \(path)\(diagnostic.message)", sourceLocation: sourceLocation)
    #expect(diagnostic.file.hasSuffix(".yaml") || diagnostic.file.hasSuffix(".txt"), sourceLocation: sourceLocation)
}
