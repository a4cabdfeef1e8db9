import Foundation
import Testing
@testable import PrefetchKit

/// The executable's command line: every command parses, help answers, mistakes exit 2.
@Suite(.timeLimit(.minutes(3))) struct CommandLineTests {
    static let commands = ["run", "clean", "stats", "check", "verify", "path", "remove", "fsck", "merge", "export"]

    @Test func toolHelpListsEveryCommand() throws {
        let outcome = try Binary.run(["--help"])
        #expect(outcome.status == 0)
        for command in Self.commands {
            #expect(outcome.stdout.contains("\n  \(command) "), "help lacks \(command)")
        }
        #expect(outcome.stdout.contains("Exit status"))
    }

    /// Output that cannot be written (a full disk under `> file`) is an environment error, said on
    /// standard error; a reader that stops early (`| head`) is not.
    @Test func standardOutputThatCannotBeWrittenExits3ButAReaderThatStopsDoesNot() throws {
        let binary = try Binary.executable("prefetchd").path
        let folder = try TemporaryDirectory()
        _ = try DiskCache.open(at: folder.path, layout: .native)
        let job = try folder.write("job.yaml", """
            version: 1
            sets: [{ name: s, urls: ["http://127.0.0.1:9/a.png"] }]
            """).path
        for arguments in [["--help"], ["help", "--man"], ["stats", "--cache", "/nonexistent-cache", "--help"],
                          ["stats", "--cache", folder.path], ["stats", "--cache", folder.path, "-o", "-"],
                          ["run", job, "--cache", folder.path, "--report", "-", "--progress", "never"]] {
            let full = try Binary.tool(["sh", "-c", "exec \"$0\" \"$@\" >/dev/full", binary] + arguments)
            #expect(full.status == 3, "\(arguments): \(full.stderr)")
            #expect(full.stderr.hasSuffix(": cannot write standard output: No space left on device\n"), "\(arguments): \(full.stderr)")
            #expect(full.stderr.components(separatedBy: "cannot write").count == 2, "said once: \(arguments): \(full.stderr)")
        }
        let cut = try Binary.tool(["bash", "-c", "set -o pipefail; \"$0\" help --man | head -c 10 >/dev/null", binary])
        #expect(cut.status == 0 && cut.stderr.isEmpty, "\(cut.stderr)")
    }

    @Test func versionPrintsTheVersion() throws {
        let outcome = try Binary.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("prefetchd "))
    }

    @Test(arguments: commands)
    func commandHelpExplainsEveryOptionWithAnExample(command: String) throws {
        let outcome = try Binary.run([command, "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("Usage: prefetchd \(command)"))
        #expect(outcome.stdout.contains("Examples:\n  prefetchd \(command)"))
        #expect(outcome.stdout.contains("--help"))
    }

    @Test func runHelpNamesEveryOptionOfTheContract() throws {
        let outcome = try Binary.run(["run", "--help"])
        for option in ["--cache DIR", "--concurrency N", "--shard K/N", "--dry-run", "--report FILE.json",
                       "--junit FILE.xml", "--progress WHEN", "--quiet", "--verbose", "--log-format FORMAT"] {
            #expect(outcome.stdout.contains(option), "run --help lacks \(option)")
        }
    }

    @Test func unknownCommandSuggestsTheNearestOne() throws {
        let outcome = try Binary.run(["rn", "jobs/catalog.yaml"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr == "prefetchd: unknown command `rn`; did you mean `run`?\n")
    }

    /// Command lines with a mistake, and what the error says: an unknown option suggests the nearest
    /// one, an option without its value (or with an empty one) or with one outside its choices says so,
    /// an option or flag given twice too, and no arguments at all prints the usage.
    @Test(arguments: [
        (["run", "x.yaml", "--concurency", "3"], "unknown option `--concurency`; did you mean `--concurrency`?"),
        (["stats", "--format"], "--format needs a value (FORMAT)"),
        (["stats", "--format=xml"], "--format must be one of text, json, prometheus, html, not `xml`"),
        (["-V", "extra"], "prefetchd: -V takes no arguments"),
        (["--help", "run"], "prefetchd: --help takes no arguments; `prefetchd COMMAND --help` shows a command's help"),
        (["stats", "--cache="], "stats: --cache needs a value (DIR)"),
        (["run", "x.yaml", "--cache", ""], "run: --cache needs a value (DIR)"),
        (["fsck", "--cache", "c", "--repair", "--repair"], "fsck: --repair given twice"),
        (["run", "x.yaml", "--report", "same.json", "--junit", "./same.json"], "run: --report and --junit name the same file"),
        ([], "Usage: prefetchd COMMAND"),
    ] as [([String], String)])
    func aMistakeExits2AndSaysWhat(arguments: [String], says: String) throws {
        let outcome = try Binary.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains(says))
    }
}
