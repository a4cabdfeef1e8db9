import Foundation
import Testing

/// A tmux server of its own (a socket in the test's folder) with one detached pane of a given size,
/// running a shell command: what a person sees in a terminal that wide, read with `capture-pane`.
final class Tmux {
    let socket: String
    private(set) var width: Int

    /// Starts `command` in a `width` x `height` pane. tmux is installed by the test set-up.
    init(width: Int, height: Int, command: String, in folder: TemporaryDirectory) throws {
        socket = folder.path + "/tmux.socket"
        self.width = width
        // The server it starts stays behind, holding every descriptor it was handed, and Process waits for
        // one of its own to close before it calls the client ended: started through Python, whose
        // subprocess closes them all, it gets none.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)",
                             "tmux", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)",
                             "sh", "-c", command]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "tmux did not start")
    }

    /// Makes the pane `width` columns wide, as a person dragging the terminal's edge: what runs in it
    /// gets SIGWINCH.
    func resize(width: Int) throws {
        let outcome = try Self.tmux(["-S", socket, "resize-window", "-x", "\(width)"])
        try #require(outcome.status == 0, "resize-window: \(outcome.stderr)")
        self.width = width
    }

    /// Ends the server and what runs in its pane.
    func stop() {
        _ = try? Self.tmux(["-S", socket, "kill-server"])
    }

    /// The pane's text, its history included, wrapped lines joined back into one (`-J`), so a line
    /// that wrapped shows as longer than the pane.
    func capture() throws -> [String] {
        let outcome = try Self.tmux(["-S", socket, "capture-pane", "-p", "-J", "-S", "-"])
        try #require(outcome.status == 0, "capture-pane: \(outcome.stderr)")
        var lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
        while lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Captures every `interval` until a line says `marker` (or `timeout` passes); every capture, in order.
    func captures(until marker: String, interval: Double = 0.1, timeout: Double = 60) throws -> [[String]] {
        var all: [[String]] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let lines = try capture()
            all.append(lines)
            if lines.contains(marker) { return all }
            Thread.sleep(forTimeInterval: interval)
        }
        Issue.record("\(marker) never appeared: \(all.last ?? [])")
        return all
    }

    private static func tmux(_ arguments: [String]) throws -> Binary.Outcome {
        try Binary.tool(["tmux"] + arguments)
    }
}
