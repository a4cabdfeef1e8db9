import Foundation
import Testing

/// `--help` off a terminal: filled to 80 columns with a hanging indent, every option with its
/// default, and the short options it lists parse as their long ones.
@Suite(.timeLimit(.minutes(3)))
struct HelpTextTests {
    static let commands = CommandLineTests.commands

    @Test(arguments: [["--help"], ["help"]] + commands.map { [$0, "--help"] } + commands.map { [$0, "-h"] })
    func helpNeverPassesEightyColumnsOffATerminal(arguments: [String]) throws {
        let outcome = try Binary.run(arguments)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        for line in outcome.stdout.split(separator: "\n") {
            #expect(line.count <= 80, "\(arguments): \(line.count) columns: \(line)")
        }
    }

    /// Each option of the list, its spelling and the text under it up to the next option.
    static func options(of command: String) throws -> [(spelling: String, text: String)] {
        let help = try Binary.run([command, "--help"]).stdout
        let section = help.components(separatedBy: "Options (flags are off unless given):\n").last?
            .components(separatedBy: "\n\nExamples:").first ?? ""
        var options: [(String, String)] = []
        for line in section.split(separator: "\n") {
            // An option's line starts with its spelling (after 2 spaces, or 6 without a short one)
            let text = line.drop { $0 == " " }
            if line.count - text.count <= 6 && text.hasPrefix("-") {
                let spelling = text.components(separatedBy: "  ").first ?? ""
                options.append((spelling, String(line)))
            } else if !options.isEmpty {
                options[options.count - 1].1 += " " + text
            }
        }
        return options
    }

    @Test(arguments: commands)
    func everyOptionWithAValueSaysItsDefault(command: String) throws {
        let options = try Self.options(of: command)
        #expect(options.contains { $0.spelling == "-h, --help" }, "\(options)")
        for option in options {
            // `--cache DIR`: a placeholder after the names; a flag's spelling is its names only
            let takesValue = option.spelling.split(separator: " ").last.map { !$0.hasPrefix("-") } ?? false
            #expect(option.text.contains("(default: ") == takesValue, "\(command) \(option.spelling): \(option.text)")
        }
        // The same options as the man page lists for the command, which is made apart from the help text
        let man = try String(contentsOf: ReferenceFilesTests.file("docs/prefetchd.1"), encoding: .utf8)
        let section = man.components(separatedBy: ".SS \(command)\n").last?.components(separatedBy: ".SS ").first?
            .components(separatedBy: ".SH ").first ?? ""
        let listed = section.components(separatedBy: ".TP\n.B ").dropFirst().map {
            ($0.split(separator: "\n").first.map(String.init) ?? "").replacing("\\-", with: "-")
        }
        #expect(listed == options.map(\.spelling))
    }

    @Test func runTakesItsShortOptions() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.write("job.yaml", "version: 1\nsets:\n  - name: s\n    urls: [\"http://127.0.0.1:9/a.png\"]\n").path
        // -c is --concurrency, -q and -v are --quiet and --verbose, also grouped
        let concurrency = try Binary.run(["run", job, "-c", "0"])
        #expect(concurrency.status == 2)
        #expect(concurrency.stderr.contains("--concurrency must be a whole number from 1 to 1024, not `0`"), "\(concurrency.stderr)")
        #expect(try Binary.run(["run", job, "-c0"]).stderr.contains("not `0`"))
        for arguments in [["-q", "-v"], ["-qv"]] {
            let both = try Binary.run(["run", job] + arguments)
            #expect(both.status == 2 && both.stderr.contains("--quiet and --verbose cannot be used together"), "\(both.stderr)")
        }
        // -n is --dry-run (nothing fetched from the closed port, the URL listed), -C is --cache
        let dry = try Binary.run(["run", job, "-n", "-C", folder.path + "/other"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("http://127.0.0.1:9/a.png"), "\(dry.stdout)")
        // -o is --report
        let report = folder.path + "/report.json"
        let quiet = try Binary.run(["run", job, "-q", "-C", folder.path + "/cache", "-o", report])
        #expect(quiet.status == 1, "\(quiet.stderr)")
        #expect(FileManager.default.fileExists(atPath: report))
        // An unknown one is named, and -h shows the help
        let unknown = try Binary.run(["run", job, "-x"])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown option `-x`"), "\(unknown.stderr)")
        #expect(try Binary.run(["run", "-h"]).stdout.hasPrefix("Usage: prefetchd run "))
    }

    @Test func statsAndCleanTakeTheirShortOptions() throws {
        let folder = try TemporaryDirectory()
        let cache = folder.path + "/cache"
        _ = try Binary.run(["remove", "--all", "-C", cache])  // no cache yet: refused, and nothing made
        #expect(!FileManager.default.fileExists(atPath: cache))
        let filler = try Binary.executable("cache-filler")
        let process = Process()
        process.executableURL = filler
        process.arguments = [cache, "3"]
        #expect(try Binary.outcome(of: process).status == 0)
        let output = folder.path + "/stats.json"
        let stats = try Binary.run(["stats", "-C", cache, "--format", "json", "-o", output])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("\"entries\""))
        let clean = try Binary.run(["clean", "-C", cache, "-n", "--max-age", "1ms"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stderr.contains("dry run, nothing changed"), "\(clean.stderr)")
    }
}
