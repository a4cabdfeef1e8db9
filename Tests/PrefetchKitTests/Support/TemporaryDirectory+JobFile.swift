import Foundation
import Testing
@testable import PrefetchKit

/// Job files loaded from a temporary folder, as `prefetchd` loads them from the folder it runs in.
extension TemporaryDirectory {
    /// Loads `text` as `job.yaml` in this folder.
    func load(_ text: String, environment: [String: String] = [:]) throws -> Job {
        let file = try write("job.yaml", text).path
        return try JobFile.load(path: file, environment: environment, workingDirectory: path)
    }

    /// Loads `text` expecting failure; returns the diagnostics.
    func diagnostics(_ text: String, environment: [String: String] = [:], limits: YAMLLimits = .standard) throws -> [JobDiagnostic] {
        let file = try write("job.yaml", text).path
        do {
            let job = try JobFile.load(path: file, environment: environment, workingDirectory: path, limits: limits)
            Issue.record("expected a job file error, loaded \(job.name)")
            return []
        } catch {
            return error.diagnostics
        }
    }
}
