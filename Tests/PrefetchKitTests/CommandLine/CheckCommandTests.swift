import Foundation
import Testing

/// `prefetchd check` end to end: summaries for good files, every problem for bad ones, exit 0 or 2.
@Suite(.timeLimit(.minutes(3))) struct CheckCommandTests {
    @Test func validFilePrintsItsSummaryAndExits0() throws {
        let folder = try TemporaryDirectory()
        try folder.write("urls.txt", "# two\nhttp://127.0.0.1:1/a.png\nhttp://127.0.0.1:1/b.png\n")
        try folder.write("good.yaml", """
            version: 1
            cache: { path: cache-here }
            sets:
              - { name: a, urls: ["http://127.0.0.1:1/x.jpg"] }
              - { name: b, url_file: urls.txt }
              - { name: c, url_pattern: "http://127.0.0.1:1/t/[001-120].jpg" }
            """)
        let outcome = try Binary.run(["check", "good.yaml"], in: folder.url)
        #expect(outcome.status == 0)
        #expect(outcome.stdout == "good.yaml: ok — 3 sets, 123 URLs, 123 unique keys, cache \(folder.path)/cache-here\n")
        #expect(!FileManager.default.fileExists(atPath: folder.file("cache-here").path), "check wrote a cache")
    }

    @Test func checkAndVerifyCountURLsAndKeysAlike() throws {
        // Given a job listing one URL in two sets, and one URL once
        let folder = try TemporaryDirectory()
        try folder.write("twice.yaml", """
            version: 1
            cache: { path: cache }
            sets:
              - { name: a, urls: ["http://127.0.0.1:1/x.jpg", "http://127.0.0.1:1/y.jpg"] }
              - { name: b, urls: ["http://127.0.0.1:1/x.jpg"] }
            """)
        // Then check and verify both say 3 URLs and 2 unique keys, in the singular for one
        let check = try Binary.run(["check", "twice.yaml"], in: folder.url)
        #expect(check.stdout == "twice.yaml: ok — 2 sets, 3 URLs, 2 unique keys, cache \(folder.path)/cache\n")
        let filler = Process()
        filler.executableURL = try Binary.executable("cache-filler")
        filler.arguments = [folder.path + "/cache", "1"]
        #expect(try Binary.outcome(of: filler).status == 0)
        let verify = try Binary.run(["verify", "twice.yaml"], in: folder.url)
        #expect(verify.status == 1)
        #expect(verify.unstampedStderr.contains("prefetchd verify: twice: 3 URLs, 2 unique keys: 0 cached and fresh, 2 missing, 0 stale\n"),
                "\(verify.stderr)")
        try folder.write("once.yaml", "version: 1\nsets:\n  - { name: a, urls: [\"http://127.0.0.1:1/x.jpg\"] }\n")
        #expect(try Binary.run(["check", "once.yaml"], in: folder.url).stdout.contains("1 set, 1 URL, 1 unique key, cache"))
    }

    @Test func everyProblemOfABadFileIsReportedInFileOrder() throws {
        let folder = try TemporaryDirectory()
        try folder.write("bad.yaml", """
            version: 1
            defaults:
              timeout: soon
              ordr: lifo
            sets:
              - name: a
                urls: "http://127.0.0.1/x.jpg"
            """)
        let outcome = try Binary.run(["check", "bad.yaml"], in: folder.url)
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
        let lines = outcome.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first?.hasPrefix("bad.yaml:3:12: defaults.timeout: ") == true)
        #expect(lines.dropFirst().first?.hasPrefix("bad.yaml:4:3: defaults.ordr: unknown key `ordr`; did you mean `order`?") == true)
        #expect(lines.last?.hasPrefix("bad.yaml:7:11: sets[0].urls: ") == true)
    }

    @Test func goodAndBadFilesTogetherExit2AndReportBoth() throws {
        let folder = try TemporaryDirectory()
        try folder.write("good.yaml", "version: 1\nsets: [{ name: a, urls: [\"https://h.example/x.png\"] }]\n")
        try folder.write("bad.yaml", "sets: [{ name: a, urls: [\"ftp://h.example/x.png\"] }]\n")
        let outcome = try Binary.run(["check", "good.yaml", "bad.yaml"], in: folder.url)
        #expect(outcome.status == 2)
        #expect(outcome.stdout.hasPrefix("good.yaml: ok — 1 set, 1 URL"))
        #expect(outcome.stderr.contains("bad.yaml:"))
        #expect(outcome.stderr.contains("version"))
        #expect(outcome.stderr.contains("ftp://"))
    }

    /// A URL file's digest column: good ones pass with comments and blank lines around them; each bad
    /// one is one line naming the URL file, its line and column.
    @Test func urlFileDigestsAreChecked() throws {
        let folder = try TemporaryDirectory()
        let sha256 = String(repeating: "0", count: 64)
        try folder.write("good.txt", "# listed\n\nhttp://127.0.0.1:1/a.png sha256:\(sha256)\nhttp://127.0.0.1:1/b.png\n")
        try folder.write("bad.txt", "http://127.0.0.1:1/a.png sha1:\(sha256)\n# fine\nhttp://127.0.0.1:1/b.png sha256:\(sha256)0\n"
                         + "http://127.0.0.1:1/c.png sha512:\(sha256)\(sha256.dropLast())x\n")
        try folder.write("good.yaml", "version: 1\nsets: [{ name: a, url_file: good.txt }]\n")
        try folder.write("bad.yaml", "version: 1\nsets: [{ name: a, url_file: bad.txt }]\n")

        let good = try Binary.run(["check", "good.yaml"], in: folder.url)
        let bad = try Binary.run(["check", "bad.yaml"], in: folder.url)

        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.hasPrefix("good.yaml: ok — 1 set, 2 URLs"))
        #expect(bad.status == 2)
        let lines = bad.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first?.hasPrefix("bad.txt:1:26: sets[0].url_file: `sha1:") == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("bad.txt:3:26: sets[0].url_file: the sha256 digest") == true)
        #expect(lines.dropFirst().first?.hasSuffix("has 65 hex digits, not 64") == true)
        #expect(lines.last?.hasPrefix("bad.txt:4:26: sets[0].url_file: the sha512 digest") == true)
        #expect(lines.last?.hasSuffix("is not a hex digit at character 135") == true)
    }

    @Test func missingJobFileArgumentIsAUsageError() throws {
        let outcome = try Binary.run(["check"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("no job file given"))
    }

    @Test func unreadableJobFileNamesTheFile() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Binary.run(["check", "nope.yaml"], in: folder.url)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.hasPrefix("nope.yaml"))
    }
}
