import Foundation

/// The repository's `scripts/install`, run with the built `prefetchd` (`--binary`), so a test installs
/// without a release build.
enum InstallScript {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Installs the built binary under `prefix`, staged under `destdir` when given.
    static func install(prefix: String, destdir: String? = nil) throws -> Binary.Outcome {
        try run(["--binary", Binary.url.path] + (destdir.map { ["--destdir", $0] } ?? []) + [prefix])
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Binary.Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [repository.appendingPathComponent("scripts/install").path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try Binary.outcome(of: process)
    }
}
