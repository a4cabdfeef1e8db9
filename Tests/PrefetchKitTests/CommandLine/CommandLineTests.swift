import Foundation
import Testing

/// The executable's command line: every command parses, help answers, mistakes exit 2.
@Suite struct CommandLineTests {
    static let commands = ["run", "clean", "stats", "check", "verify", "path", "fsck"]

    @Test func toolHelpListsEveryCommand() throws {
        let outcome = try Binary.run(["--help"])
        #expect(outcome.status == 0)
        for command in Self.commands {
            #expect(outcome.stdout.contains("\n  \(command) "), "help lacks \(command)")
        }
        #expect(outcome.stdout.contains("Exit status"))
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
        #expect(outcome.stderr == "prefetchd: unknown command 'rn'; did you mean 'run'?\n")
    }

    @Test func unknownOptionSuggestsTheNearestOne() throws {
        let outcome = try Binary.run(["run", "x.yaml", "--concurency", "3"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("unknown option '--concurency'; did you mean '--concurrency'?"))
    }

    @Test func optionWithoutItsValueIsAnError() throws {
        let outcome = try Binary.run(["stats", "--format"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("--format needs a value (FORMAT)"))
    }

    @Test func valueOutsideTheChoicesIsAnError() throws {
        let outcome = try Binary.run(["stats", "--format=xml"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("--format must be one of text, json, prometheus, html, not 'xml'"))
    }

    @Test func noArgumentsPrintsUsageAndExits2() throws {
        let outcome = try Binary.run([])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("Usage: prefetchd COMMAND"))
    }
}
