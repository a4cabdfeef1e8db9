import Foundation
import Testing

/// `systemd-analyze verify` and `systemd-analyze security --offline=yes` on the units in `cron/`.
/// The tool comes from Debian's `systemd` package (scripts/test installs it); without it these fail.
@Suite(.timeLimit(.minutes(3))) struct SystemdAnalyzeTests {
    private static let tool = "/usr/bin/systemd-analyze"
    private static let units = [("prefetchd-clean.service", "prefetchd-clean.timer"), ("prefetchd-run@.service", "prefetchd-run@.timer")]

    /// Verified as installed: the files as shipped in `<root>/etc/systemd/system`, the built binary as
    /// `<root>/usr/local/bin/prefetchd`, and the system's own units (the targets they name) beside them.
    @Test(arguments: units) func theUnitsVerifyWithoutAWord(service: String, timer: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tool), "\(Self.tool) is missing: apt-get install systemd")
        try TemporaryDirectory.withPath { root in
            let files = FileManager.default
            try Self.makeSystemRoot(root)
            try files.createDirectory(atPath: root + "/usr/local/bin", withIntermediateDirectories: true)
            try files.copyItem(atPath: Binary.url.path, toPath: root + "/usr/local/bin/prefetchd")
            for name in [service, timer] {
                try files.copyItem(atPath: ShippedSchedule.folder.appendingPathComponent(name).path, toPath: root + "/etc/systemd/system/" + name)
            }
            try expectVerified([service, timer], root: root)
        }
    }

    /// The units as `scripts/install --destdir ROOT /opt/prefetchd` installs them, linked into
    /// `/etc/systemd/system` as its help says for a prefix systemd does not read: they name the
    /// installed binary, which verify finds there.
    @Test(arguments: units) func theInstalledUnitsVerifyAgainstTheInstalledBinary(service: String, timer: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tool), "\(Self.tool) is missing: apt-get install systemd")
        try TemporaryDirectory.withPath { root in
            try Self.makeSystemRoot(root)
            let installed = try InstallScript.install(prefix: "/opt/prefetchd", destdir: root)
            #expect(installed.status == 0, "\(installed.stderr)")
            for name in [service, timer] {
                // Relative, so that it points inside the root.
                try FileManager.default.createSymbolicLink(atPath: root + "/etc/systemd/system/" + name,
                                                           withDestinationPath: "../../../opt/prefetchd/lib/systemd/system/" + name)
            }
            try expectVerified([service, timer], root: root)
        }
    }

    /// `root/etc/systemd/system`, and the system's own units (the targets the units name) in `root/usr/lib/systemd/system`.
    private static func makeSystemRoot(_ root: String) throws {
        let files = FileManager.default
        try files.createDirectory(atPath: root + "/etc/systemd/system", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "/usr/lib/systemd", withIntermediateDirectories: true)
        try files.copyItem(atPath: "/usr/lib/systemd/system", toPath: root + "/usr/lib/systemd/system")
    }

    private func expectVerified(_ units: [String], root: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let named = units.map { $0.replacingOccurrences(of: "@.", with: "@catalog.") }
        let outcome = try analyze(["verify", "--root=" + root] + named)
        #expect(outcome.status == 0 && outcome.stdout.isEmpty && outcome.stderr.isEmpty, "\(outcome.stdout)\(outcome.stderr)",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: units.map(\.0)) func theServicesAreExposedAtMost3(service: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tool), "\(Self.tool) is missing: apt-get install systemd")
        let outcome = try analyze(["security", "--offline=yes", ShippedSchedule.folder.appendingPathComponent(service).path])
        let overall = try #require(outcome.stdout.split(separator: "\n").first { $0.contains("Overall exposure level for ") },
                                   "\(outcome.stdout)\(outcome.stderr)")
        let level = try #require(overall.split(separator: ": ").last?.split(separator: " ").first.flatMap { Double($0) }, "\(overall)")
        #expect(level <= 3.0, "\(overall)")
    }

    private func analyze(_ arguments: [String]) throws -> Binary.Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.tool)
        process.arguments = arguments
        return try Binary.outcome(of: process)
    }
}
