import Foundation
import Testing
@testable import PrefetchKit

/// `scripts/install PREFIX` into a temporary prefix: the binary runs from there, the units and the
/// crontab name it there and nowhere else, the docs are beside it; `DESTDIR` stages without changing
/// the paths the files name. (SystemdAnalyzeTests verifies the installed units with systemd.)
@Suite(.timeLimit(.minutes(3))) struct InstallScriptTests {
    static let shipped = ["prefetchd-clean.service", "prefetchd-clean.timer", "prefetchd-run@.service", "prefetchd-run@.timer"]

    @Test func theInstalledBinaryRunsAndTheUnitsNameIt() throws {
        let folder = try TemporaryDirectory()
        let prefix = folder.path + "/prefix"
        let outcome = try InstallScript.install(prefix: prefix)
        #expect(outcome.status == 0, "\(outcome.stderr)")

        let installed = Process()
        installed.executableURL = URL(fileURLWithPath: prefix + "/bin/prefetchd")
        installed.arguments = ["--version"]
        let printed = try Binary.outcome(of: installed)
        // Its first line names prefetchd's version; the lines after it, the libraries it runs on.
        #expect(printed.status == 0 && printed.stdout.hasPrefix("prefetchd \(PrefetchVersion.string)\n"), "\(printed.stdout)\(printed.stderr)")

        for name in Self.shipped {
            let text = try String(contentsOfFile: prefix + "/lib/systemd/system/" + name, encoding: .utf8)
            #expect(!text.contains("/usr/local/bin/prefetchd"), "\(name) still names /usr/local/bin/prefetchd")
            let commands = text.split(separator: "\n").filter { $0.hasPrefix("ExecStart") }
            #expect(name.hasSuffix(".timer") || !commands.isEmpty)
            for command in commands {
                #expect(command.split(separator: "=", maxSplits: 1).last?.hasPrefix(prefix + "/bin/prefetchd ") == true, "\(name): \(command)")
            }
        }
        let crontab = try String(contentsOfFile: prefix + "/share/prefetchd/prefetchd.crontab", encoding: .utf8)
        let jobs = crontab.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(jobs.count == 2)
        for line in jobs {
            #expect(line.split(separator: " ").dropFirst(5).first == Substring(prefix + "/bin/prefetchd"), "\(line)")
        }
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/prefetchd/prefetchd.logrotate"))
        for doc in ["README.md", "docs/ARCHITECTURE.md", "docs/job.schema.json", "jobs/catalog.yaml"] {
            #expect(FileManager.default.contents(atPath: prefix + "/share/doc/prefetchd/" + doc)
                        == FileManager.default.contents(atPath: InstallScript.repository.path + "/" + doc), "\(doc)")
        }
        let manPage = InstallScript.repository.path + "/docs/prefetchd.1"
        #expect(FileManager.default.fileExists(atPath: prefix + "/share/man/man1/prefetchd.1") == FileManager.default.fileExists(atPath: manPage))
    }

    @Test func destdirStagesTheFilesButTheyNameThePrefix() throws {
        let folder = try TemporaryDirectory()
        let outcome = try InstallScript.run(["--binary", Binary.url.path, "/opt/prefetchd"], environment: ["DESTDIR": folder.path + "/stage"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let staged = folder.path + "/stage/opt/prefetchd"
        #expect(FileManager.default.isExecutableFile(atPath: staged + "/bin/prefetchd"))
        let service = try String(contentsOfFile: staged + "/lib/systemd/system/prefetchd-clean.service", encoding: .utf8)
        #expect(service.contains("ExecStart=/opt/prefetchd/bin/prefetchd clean"))
        #expect(!service.contains(folder.path))
    }

    /// Relative --binary and --destdir are the caller's paths, and the installed example job checks
    /// where it was put (its URL list beside it).
    @Test func relativePathsAreTheCallersAndTheExampleJobIsWhole() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: Binary.url.path, toPath: folder.path + "/prefetchd")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [InstallScript.repository.appendingPathComponent("scripts/install").path,
                             "--binary", "./prefetchd", "--destdir", "stage", "/opt/prefetchd"]
        process.currentDirectoryURL = folder.url
        let outcome = try Binary.outcome(of: process)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        // (its closing line names the version, on one line)
        #expect(outcome.stderr.split(separator: "\n").last == "install: prefetchd \(PrefetchVersion.string) in \(folder.path)/stage/opt/prefetchd",
                "\(outcome.stderr)")
        let docs = folder.path + "/stage/opt/prefetchd/share/doc/prefetchd"
        #expect(FileManager.default.isExecutableFile(atPath: folder.path + "/stage/opt/prefetchd/bin/prefetchd"))
        #expect(!FileManager.default.fileExists(atPath: InstallScript.repository.path + "/stage"))

        let check = try Binary.run(["check", "catalog.yaml"], in: URL(fileURLWithPath: docs + "/jobs"))
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(FileManager.default.fileExists(atPath: docs + "/jobs/samples/pngtest.png"))
    }

    @Test func helpAndMistakes() throws {
        let help = try InstallScript.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("Usage: scripts/install [--binary FILE] [--destdir DIR] PREFIX"))
        let relative = try InstallScript.run(["--binary", Binary.url.path, "relative/prefix"])
        #expect(relative.status == 2 && relative.stderr.contains("absolute path"))
        let unknown = try InstallScript.run(["--prefix", "/opt"])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown option --prefix"))
    }
}
