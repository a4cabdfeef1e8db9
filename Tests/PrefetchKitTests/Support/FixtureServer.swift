import Foundation

/// Runs Tests/Fixtures/misbehaving_server.py on 127.0.0.1 with a port of the system's choosing, until
/// `stop()` or deinit. Every test that starts one stops it.
final class FixtureServer {
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    let port: Int
    private let process: Process

    init() throws {
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // PrefetchKitTests
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("Fixtures/misbehaving_server.py")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        var firstLine = Data()
        while !firstLine.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            firstLine.append(chunk)
        }
        guard let text = String(data: firstLine, encoding: .utf8),
              let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            process.waitUntilExit()
            throw StartError(description: "the fixture server printed no port")
        }
        self.port = port
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String {
        "http://127.0.0.1:\(port)\(path)"
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
