import Foundation

/// Runs Tests/Fixtures/misbehaving_server.py on 127.0.0.1 with a port of the system's choosing, until
/// `stop()` or deinit. Every test that starts one stops it. With `tls`, it speaks HTTPS with that
/// certificate and key.
final class FixtureServer {
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    let port: Int
    let scheme: String
    private let process: Process

    init(tls: (certificate: String, key: String)? = nil) throws {
        let arguments = tls.map { ["--tls", $0.certificate, $0.key] } ?? []
        (process, port) = try Self.start("misbehaving_server.py", arguments: arguments)
        scheme = tls == nil ? "http" : "https"
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:<port><path>` (`https` with TLS).
    func url(_ path: String) -> String {
        "\(scheme)://127.0.0.1:\(port)\(path)"
    }

    func stop() {
        Self.stop(process)
    }

    /// Starts `python3 Tests/Fixtures/<script> <arguments>` and reads the port it prints first.
    static func start(_ script: String, arguments: [String]) throws -> (Process, Int) {
        let path = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // PrefetchKitTests
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("Fixtures/\(script)")
        return try start(path, arguments: arguments)
    }

    /// Starts `python3 <path> <arguments>` (a server script that prints its port as its first line, as
    /// scripts/demo-server.py does too) and reads that port.
    static func start(_ path: URL, arguments: [String]) throws -> (Process, Int) {
        let script = path.lastPathComponent
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", path.path] + arguments
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
            stop(process)
            throw StartError(description: "\(script) printed no port")
        }
        return (process, port)
    }

    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
