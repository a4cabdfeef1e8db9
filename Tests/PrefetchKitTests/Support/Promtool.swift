import Foundation
import Testing

/// `promtool check metrics` (Debian's prometheus package, which scripts/test installs) over an
/// exposition text. Without promtool the check fails.
enum Promtool {
    static let promtool = ["/usr/bin/promtool", "/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Records an issue, with promtool's words, unless it finds nothing to say about `exposition`.
    static func expectClean(_ exposition: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let tool = try #require(promtool, "promtool is not installed (Debian package prometheus; scripts/test installs it)",
                                sourceLocation: sourceLocation)
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("prefetchd-metrics-\(UUID().uuidString).prom")
        try Data(exposition.utf8).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" check metrics < \"$1\"", tool, input.path]
        let outcome = try Binary.outcome(of: process)
        #expect(outcome.status == 0 && outcome.stdout.isEmpty && outcome.stderr.isEmpty,
                "promtool check metrics: \(outcome.stdout)\(outcome.stderr)", sourceLocation: sourceLocation)
    }
}
