import Foundation
import Testing
@testable import PrefetchKit

/// `ci-examples/`: each file passes the schema of its CI that check-jsonschema ships (no network),
/// follows the README's recipe (restore, run with --junit, verify, save, publish the JUnit whatever
/// the exit), uses only commands and options prefetchd has, and its prefetchd lines, run as written
/// by a shell against the demo server, pass on a cold cache and again on the warm one.
@Suite(.timeLimit(.minutes(5))) struct CIExampleTests {
    @Test func thereIsAnExampleForEachCI() throws {
        let kinds = Set(try CIExample.all().map(\.kind))
        #expect(kinds == [.githubActions, .gitlab])
    }

    @Test func everyExamplePassesTheSchemaOfItsCI() throws {
        for example in try CIExample.all() {
            let verdict = try CheckJSONSchema.check([example.path], schema: ["--builtin-schema", example.kind.schema])
            #expect(verdict.status == 0, "\(example.name) fails \(example.kind.schema): \(verdict.output)")
        }
    }

    /// The recipe's two commands, in order, on the same job file: `run` writing a report and a JUnit
    /// file, then `verify`.
    private func recipe(_ example: CIExample) throws -> (job: String, report: String, junit: String) {
        let commands = example.commands.map(example.words)
        try #require(commands.map { $0.dropFirst().first } == ["run", "verify"], "\(example.name): \(example.commands)")
        let run = commands[0]
        let junit = try #require(run.firstIndex(of: "--junit").map { run[$0 + 1] }, "\(example.name): run without --junit")
        let report = try #require(run.firstIndex(of: "--report").map { run[$0 + 1] }, "\(example.name): run without --report")
        #expect(run[2] == commands[1][2], "\(example.name): run and verify name different job files")
        #expect(FileManager.default.fileExists(atPath: CheckJSONSchema.repository.appendingPathComponent(run[2]).path),
                "\(example.name): no job file \(run[2])")
        return (run[2], report, junit)
    }

    @Test func theGitHubWorkflowsRestoreRunVerifySaveAndPublish() throws {
        for example in try CIExample.all() where example.kind == .githubActions {
            try checkGitHubWorkflow(example)
        }
    }

    private func checkGitHubWorkflow(_ example: CIExample) throws {
        let (job, _, junit) = try recipe(example)
        let steps = try #require(example.jobs.first?["steps"]?.items)
        func index(_ what: String, _ matches: (YAMLNode) -> Bool) throws -> Int {
            let found = steps.firstIndex(where: matches)
            return try #require(found, "\(example.name): no step that \(what)")
        }
        let restore = try index("restores the cache") { $0["uses"]?.text?.hasPrefix("actions/cache/restore@") == true }
        let run = try index("runs the job") { $0["run"]?.text?.hasPrefix("prefetchd run ") == true }
        let verify = try index("verifies") { $0["run"]?.text?.hasPrefix("prefetchd verify ") == true }
        let save = try index("saves the cache") { $0["uses"]?.text?.hasPrefix("actions/cache/save@") == true }
        let publish = try index("publishes the JUnit file") { $0["with"]?["report_paths"] != nil }
        #expect(restore < run && run < verify && verify < save && verify < publish)

        // The cache: keyed on the job file's hash, the folder the job's cache is in, saved under the
        // key restore computed, and only after a pass (no `if: always()`).
        let cacheFolder = try #require(example.variables["PREFETCHD_CACHE_DIR"])
        let restoreWith = try #require(steps[restore]["with"])
        #expect(restoreWith["key"]?.text?.contains("hashFiles('\(job)'") == true, "\(restoreWith.textPairs)")
        #expect(restoreWith["path"]?.text == "${{ env.PREFETCHD_CACHE_DIR }}" && !cacheFolder.isEmpty)
        #expect(steps[save]["with"]?["path"]?.text == restoreWith["path"]?.text)
        #expect(steps[save]["with"]?["key"]?.text == "${{ steps.\(steps[restore]["id"]?.text ?? "?").outputs.cache-primary-key }}")
        #expect(steps[save]["if"]?.text?.contains("always()") != true)
        // The JUnit file the run writes is published whatever the exit.
        #expect(steps[publish]["with"]?["report_paths"]?.text == junit)
        let condition = steps[publish]["if"]?.text ?? ""
        #expect(condition.contains("always()") || condition.contains("!cancelled()"), "\(condition)")
    }

    @Test func theGitLabJobsCacheRunVerifyAndKeepTheJUnit() throws {
        for example in try CIExample.all() where example.kind == .gitlab {
            try checkGitLabJob(example)
        }
    }

    private func checkGitLabJob(_ example: CIExample) throws {
        let (job, _, junit) = try recipe(example)
        let definition = try #require(example.jobs.first)
        #expect(definition["script"]?.items.compactMap(\.text) == example.commands)
        let cache = try #require(definition["cache"])
        #expect(cache["key"]?["files"]?.items.compactMap(\.text).contains(job) == true)
        let cacheFolder = try #require(example.variables["PREFETCHD_CACHE_DIR"])
        #expect(cache["paths"]?.items.compactMap(\.text).map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } == [cacheFolder])
        #expect(cache["when"]?.text == "on_success")
        let artifacts = try #require(definition["artifacts"])
        #expect(artifacts["when"]?.text == "always")
        #expect(artifacts["reports"]?["junit"]?.text == junit)
    }

    /// Each command exists, and each option it is given is one its `--help` lists, with a value when
    /// it takes one.
    @Test func everyCommandAndOptionTheyUseExists() throws {
        for example in try CIExample.all() {
            try #require(!example.commands.isEmpty, "\(example.name) runs no prefetchd command")
            for line in example.commands {
                let words = example.words(line)
                let help = try Binary.run([words[1], "--help"])
                try #require(help.status == 0, "\(example.name): `prefetchd \(words[1])` is no command: \(help.stderr)")
                let options = Self.options(inHelp: help.stdout)
                var rest = words.dropFirst(2)[...]
                while let word = rest.popFirst() {
                    guard word.hasPrefix("--") else { continue }
                    let name = String(word.split(separator: "=", maxSplits: 1)[0])
                    guard let takesValue = options[name] else {
                        Issue.record("\(example.name): `prefetchd \(words[1])` has no option \(name): \(line)")
                        continue
                    }
                    if takesValue && !word.contains("=") {
                        #expect(rest.popFirst().map { !$0.hasPrefix("--") } == true, "\(example.name): \(name) without its value: \(line)")
                    }
                }
            }
        }
    }

    /// The options of a command's `--help`, each with whether it takes a value.
    static func options(inHelp help: String) -> [String: Bool] {
        var options: [String: Bool] = [:]
        // `  -c, --name VALUE  text`, `      --name VALUE  text` or `      --name  text`: the columns are
        // two spaces apart or more.
        for line in help.split(separator: "\n") {
            let spelling = line.drop { $0 == " " }
            guard line.count - spelling.count <= 6, spelling.hasPrefix("-") else { continue }
            let long = spelling.hasPrefix("--") ? spelling : spelling.dropFirst(4)
            let name = long.prefix { $0 != " " }
            let after = long.dropFirst(name.count)
            options[String(name)] = after.hasPrefix(" ") && !after.dropFirst().hasPrefix(" ")
        }
        return options
    }

    /// The prefetchd lines, run by `/bin/sh` as written, with the example's variables, in a folder
    /// holding the repository's `jobs/` with the demo server on a free port: both pass, the JUnit file
    /// is valid and the report says what was fetched; a second pipeline on the cache the first left
    /// (what the CI's cache restores) fetches nothing and passes too.
    @Test(arguments: [CIExample.Kind.githubActions, .gitlab]) func theirCommandsPassOnAColdCacheAndOnTheWarmOne(kind: CIExample.Kind) throws {
        for example in try CIExample.all() where example.kind == kind {
            try runTwice(example)
        }
    }

    private func runTwice(_ example: CIExample) throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.copyItem(at: CheckJSONSchema.repository.appendingPathComponent("jobs"), to: folder.file("jobs"))
        let (server, port) = try FixtureServer.start(CheckJSONSchema.repository.appendingPathComponent("scripts/demo-server.py"), arguments: ["0"])
        defer { FixtureServer.stop(server) }
        // The demo job's URL file names the demo server's port as written (8089).
        let urls = folder.file("jobs/urls/catalog.txt")
        let listed = try String(contentsOf: urls, encoding: .utf8)
        try #require(listed.contains("127.0.0.1:8089/"))
        try folder.write("jobs/urls/catalog.txt", listed.replacingOccurrences(of: "127.0.0.1:8089/", with: "127.0.0.1:\(port)/"))
        let environment = ProcessInfo.processInfo.environment.merging(example.variables) { $1 }.merging([
            "CATALOG_BASE_URL": "http://127.0.0.1:\(port)",
            "PATH": Binary.folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
        ]) { $1 }
        let (_, reportFile, junit) = try recipe(example)

        for round in ["cold", "warm"] {
            for line in example.commands {
                let shell = Process()
                shell.executableURL = URL(fileURLWithPath: "/bin/sh")
                shell.arguments = ["-ec", line]
                shell.currentDirectoryURL = folder.url
                shell.environment = environment
                let outcome = try Binary.outcome(of: shell)
                #expect(outcome.status == 0, "\(example.name), \(round) cache: `\(line)` exited \(outcome.status): \(outcome.stdout)\(outcome.stderr)")
            }
            try JUnitSchema.expectValid(folder.file(junit).path)
            let report = try readReport(folder.file(reportFile).path)
            #expect(report.formatVersion == PrefetchVersion.machineFormat)
            #expect(report.totals.unique > 300 && report.totals.failed == 0 && report.totals.ledgered == 0, "\(report.totals)")
            if round == "cold" {
                #expect(report.totals.fetched == report.totals.unique, "\(report.totals)")
            } else {
                #expect(report.totals.fetched == 0 && report.totals.cached == report.totals.unique, "\(report.totals)")
            }
        }
        // In the cache folder the example names.
        let cacheFolder = try #require(example.variables["PREFETCHD_CACHE_DIR"])
        #expect(FileManager.default.fileExists(atPath: folder.file(cacheFolder + "/index.sqlite").path))
    }
}
