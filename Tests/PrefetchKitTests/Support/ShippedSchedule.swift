import Foundation

/// The scheduler files the repository ships in `cron/`, and the one substitution the tests run them
/// under: `/usr/local/bin/prefetchd` becomes the built binary, and every other absolute path under
/// `/var/` or `/etc/` the same path below a temporary root.
struct ShippedSchedule {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("cron")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// Where `/var/...` and `/etc/...` lie.
    let root: String

    func path(_ shipped: String) -> String { root + shipped }

    func substituted(_ text: String) -> String {
        let binary = text.replacingOccurrences(of: "/usr/local/bin/prefetchd", with: Binary.url.path)
        return binary.replacingOccurrences(of: #"(?<![\w/.-])/(var|etc)/"#, with: root + "/$1/", options: .regularExpression)
    }

    /// Runs `/usr/bin/env -i VARIABLES... arguments...`: the child sees `variables` and nothing else.
    static func runIsolated(_ arguments: [String], variables: [(String, String)]) throws -> Binary.Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["-i"] + variables.map { "\($0.0)=\($0.1)" } + arguments
        return try Binary.outcome(of: process)
    }
}

/// A crontab's variable lines and commands, in file order.
struct Crontab {
    var variables: [(String, String)] = []
    var commands: [String] = []
    /// The install steps its comments give (`#   install ...`).
    var installSteps: [String] = []

    init(_ text: String) {
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("#   install ") {
                installSteps.append(String(line.dropFirst(4).split(separator: "#")[0]).trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("#") || line.isEmpty {
                continue
            } else if let equals = line.firstIndex(of: "="), !line[..<equals].contains(" ") {
                variables.append((String(line[..<equals]), String(line[line.index(after: equals)...])))
            } else {
                // Five time fields, then the command to the end of the line.
                let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
                commands.append(String(fields[5]))
            }
        }
    }
}

/// A unit file's `Key=value` lines.
struct SystemdUnit {
    let lines: [(key: String, value: String)]

    init(_ text: String) {
        lines = text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    func values(_ key: String) -> [String] { lines.filter { $0.key == key }.map(\.value) }

    /// The `Environment=` assignments.
    var environment: [(String, String)] {
        values("Environment").map { assignment in
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }

    /// `ExecStart=` then `ExecStartPost=`, as systemd runs them: `%i` the instance, `${NAME}` an
    /// `Environment=` value, then split into words (the units use no quotes).
    func commands(instance: String) -> [[String]] {
        (values("ExecStart") + values("ExecStartPost")).map { line in
            var expanded = line.replacingOccurrences(of: "%i", with: instance)
            for (name, value) in environment { expanded = expanded.replacingOccurrences(of: "${\(name)}", with: value) }
            return expanded.split(separator: " ").map(String.init)
        }
    }
}
