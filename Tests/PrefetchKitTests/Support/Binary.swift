import Foundation
import Testing

/// Finds and runs the package's built executables (`prefetchd`, `cache-filler`, `store-torture`),
/// which `swift build --build-tests` puts next to the test bundle, in the build folder.
struct Binary {
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The build folder: where the running test bundle is.
    static let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// The built `prefetchd`.
    static var url: URL { folder.appendingPathComponent("prefetchd") }

    /// The built executable `name`; the test fails here, saying so, when it was not built.
    static func executable(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try #require(FileManager.default.isExecutableFile(atPath: url.path),
                     "\(name) is not built in \(folder.path); run swift build --build-tests", sourceLocation: sourceLocation)
        return url
    }

    /// The names of the shared libraries the built `prefetchd` loads at start, as ldd lists them.
    static func librariesLoadedAtStart() throws -> [String] {
        let loaded = try DockerfileTests.tool("/usr/bin/ldd", [url.path])
        try #require(loaded.status == 0, "\(loaded.stderr)")
        return loaded.stdout.split(separator: "\n").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
    }

    /// Runs `prefetchd arguments...` in `directory` with `environment` added to this process's own;
    /// with `openFiles`, under that open-file limit (soft and hard, set by the shell's `ulimit -n`);
    /// with `fileSizeLimit`, unable to write past that many bytes of any file (`ulimit -f`, in the
    /// shell's 512-byte blocks), and with SIGXFSZ at its default action (killing the process), as from
    /// a login shell; the test runner's own children would inherit it ignored.
    static func run(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:], openFiles: Int? = nil,
        fileSizeLimit: Int? = nil
    ) throws -> Outcome {
        let process = Process()
        let limits = [openFiles.map { "ulimit -n \($0)" }, fileSizeLimit.map { "ulimit -f \($0 / 512)" }].compactMap { $0 }
        if !limits.isEmpty {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            let launcher = fileSizeLimit == nil ? "" : "env --default-signal=XFSZ "
            process.arguments = ["-c", limits.joined(separator: " && ") + " && exec \(launcher)\"$0\" \"$@\"", url.path] + arguments
        } else {
            process.executableURL = url
            process.arguments = arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try outcome(of: process)
    }

    /// Runs the installed tool `arguments[0]` (found on PATH) with the rest, `environment` added to this
    /// process's own.
    static func tool(_ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try outcome(of: process)
    }

    /// Starts `process` with its output and error read to the end, and waits for it.
    static func outcome(of process: Process) throws -> Outcome {
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

extension Binary.Outcome {
    /// The time that starts each text log line when standard error is not a terminal:
    /// `2026-12-01T15:40:00.123Z `.
    static func stamp() -> Regex<Substring> {
        #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z /#
    }

    /// Standard error with that time taken off the start of each line: what a person at a terminal reads.
    var unstampedStderr: String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.replacing(Self.stamp(), with: "", maxReplacements: 1) }
            .joined(separator: "\n")
    }

    /// Each line of standard error as a JSON object; the test fails at a line that is not one.
    func jsonLogLines(sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        try stderr.split(separator: "\n").map { line in
            try #require(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                         "not a JSON object: \(line)", sourceLocation: sourceLocation)
        }
    }
}
