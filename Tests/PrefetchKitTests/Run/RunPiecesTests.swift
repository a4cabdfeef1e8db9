import Foundation
import Testing
@testable import PrefetchKit

@Suite struct ShardTests {
    @Test(arguments: ["1/1", "2/4", "4/4"])
    func parsesValidShards(text: String) throws {
        let shard = try #require(Shard(text))
        #expect("\(shard.index)/\(shard.count)" == text)
    }

    @Test(arguments: ["0/4", "5/4", "1/0", "a/b", "1/", "/2", "1/2/3", "-1/2", ""])
    func rejectsInvalidShards(text: String) {
        #expect(Shard(text) == nil)
    }

    @Test func everyKeyFallsInExactlyOneShard() throws {
        let shards = try (1...3).map { try #require(Shard("\($0)/3")) }
        var perShard = [0, 0, 0]
        for n in 0..<3000 {
            let key = "https://cdn.example.com/t/\(n).jpg"
            let owners = shards.indices.filter { shards[$0].contains(key: key) }
            #expect(owners.count == 1)
            perShard[owners[0]] += 1
        }
        // A fair hash puts roughly a third in each; a broken one puts everything in one.
        #expect(perShard.allSatisfy { $0 > 800 && $0 < 1200 }, "\(perShard)")
    }

    /// The hash fixed for good: these keys' FNV-1a values and shards were worked out apart from this
    /// code (from the FNV-1a definition, 64-bit offset basis and prime). A change of hash would move
    /// the keys of every fleet already split by it; this test fails first.
    @Test(arguments: [
        ("https://cdn.example.com/a.jpg", UInt64(0xb3ff_64cd_5c52_843b), 1, 4),
        ("https://cdn.example.com/b.png", UInt64(0xb19a_18d9_ad92_2926), 2, 7),
        ("https://img.example.org/p/1234.webp?w=640", UInt64(0x0c28_205a_e8f7_7a9c), 2, 5),
        ("https://cdn.example.com/t/0.jpg", UInt64(0x1a9d_1cac_3ca8_8c2f), 1, 8),
        ("https://cdn.example.com/t/1.jpg", UInt64(0x04ff_37ca_01fb_94e0), 1, 1),
        ("https://cdn.example.com/t/%C3%A9t%C3%A9.jpg", UInt64(0x3131_81c9_ec94_8e83), 3, 4),
    ])
    func keysStayInTheirShards(key: String, hash: UInt64, ofThree: Int, ofEight: Int) throws {
        #expect(Shard.hash(key) == hash)
        for (count, expected) in [(3, ofThree), (8, ofEight)] {
            let owners = (1...count).filter { Shard(index: $0, count: count)!.contains(key: key) }
            #expect(owners == [expected], "\(key) of \(count)")
        }
    }
}

@Suite struct ShardEnvironmentTests {
    @Test func theIndexCountsFromZero() throws {
        let shard = try ShardEnvironment.resolve(option: nil, environment: ["JOB_COMPLETION_INDEX": "0", "PREFETCHD_SHARDS": "3"])
        #expect(shard == Shard("1/3"))
        let last = try ShardEnvironment.resolve(option: nil, environment: ["JOB_COMPLETION_INDEX": "7", "PREFETCHD_SHARDS": "8"])
        #expect(last == Shard("8/8"))
    }

    @Test func neitherGivenIsTheWholeJob() throws {
        #expect(try ShardEnvironment.resolve(option: nil, environment: ["HOME": "/root"]) == nil)
    }

    @Test func anOptionThatAgreesIsTaken() throws {
        let environment = ["JOB_COMPLETION_INDEX": "1", "PREFETCHD_SHARDS": "4"]
        #expect(try ShardEnvironment.resolve(option: "2/4", environment: environment) == Shard("2/4"))
        #expect(try ShardEnvironment.resolve(option: "3/5", environment: [:]) == Shard("3/5"))
    }

    @Test(arguments: [
        ("2/3", ["JOB_COMPLETION_INDEX": "2", "PREFETCHD_SHARDS": "3"], ShardChoiceError.disagree(option: Shard("2/3")!, environment: Shard("3/3")!)),
        ("0/3", [:], .badOption("0/3")),
        (nil, ["JOB_COMPLETION_INDEX": "1"], .missingVariable(set: "JOB_COMPLETION_INDEX", setValue: "1", missing: "PREFETCHD_SHARDS")),
        (nil, ["PREFETCHD_SHARDS": "3"], .missingVariable(set: "PREFETCHD_SHARDS", setValue: "3", missing: "JOB_COMPLETION_INDEX")),
        (nil, ["JOB_COMPLETION_INDEX": "one", "PREFETCHD_SHARDS": "3"], .badIndex("one")),
        (nil, ["JOB_COMPLETION_INDEX": "-1", "PREFETCHD_SHARDS": "3"], .badIndex("-1")),
        (nil, ["JOB_COMPLETION_INDEX": "0", "PREFETCHD_SHARDS": "x"], .badCount("x")),
        (nil, ["JOB_COMPLETION_INDEX": "0", "PREFETCHD_SHARDS": "0"], .badCount("0")),
        (nil, ["JOB_COMPLETION_INDEX": "3", "PREFETCHD_SHARDS": "3"], .indexTooLarge(index: 3, count: 3)),
    ] as [(String?, [String: String], ShardChoiceError)])
    func refusesWhatCannotBeObeyed(option: String?, environment: [String: String], expected: ShardChoiceError) {
        #expect(throws: expected) { try ShardEnvironment.resolve(option: option, environment: environment) }
        #expect(!expected.description.contains("\n"))
    }

    /// A count past the largest whole number is said to be one, not taken for K > N.
    @Test func aShardCountTooLargeToReadSaysSo() {
        let error = ShardChoiceError.badOption("1/99999999999999999999")
        #expect(throws: error) { try ShardEnvironment.resolve(option: "1/99999999999999999999", environment: [:]) }
        #expect(error.description == "--shard must be K/N, whole numbers with 1 <= K <= N <= 9223372036854775807, like 2/4, "
                + "not `1/99999999999999999999`")
    }
}

@Suite struct RunReportTests {
    @Test func reportHasTheFieldsOfTheContract() throws {
        var totals = RunTotals()
        totals.requested = 5
        totals.unique = 4
        totals.fetched = 2
        totals.failed = 1
        totals.bytes = 1234
        let failure = RunFailure(url: "http://h/x.jpg", set: "hero", reason: "http_404", httpStatus: 404,
                                 attempts: 1, message: "HTTP 404")
        let report = RunReport(job: "catalog", started: Date(timeIntervalSince1970: 1_800_000_000),
                               durationSeconds: 1.5, totals: totals, failures: [failure], outcome: "completed")
        let object = try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
        #expect(object["format_version"] as? Int == PrefetchVersion.machineFormat)
        #expect(object["job"] as? String == "catalog")
        #expect(object["started"] as? String == "2027-01-15T08:00:00.000Z")
        #expect(object["duration_s"] as? Double == 1.5)
        let totalsObject = try #require(object["totals"] as? [String: Any])
        for key in ["requested", "unique", "fetched", "cached", "revalidated", "failed", "skipped", "bytes"] {
            #expect(totalsObject[key] != nil, "totals lacks \(key)")
        }
        #expect(totalsObject["bytes"] as? Int == 1234)
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.first?["http_status"] as? Int == 404)
        #expect(failures.first?["reason"] as? String == "http_404")
    }
}

@Suite struct ProgressStyleTests {
    @Test func styleFollowsTheSettingAndTheTerminal() {
        #expect(ProgressDisplay.style(for: "auto", quiet: false, isTerminal: true) == .live)
        #expect(ProgressDisplay.style(for: "auto", quiet: false, isTerminal: false) == .log(interval: 5))
        #expect(ProgressDisplay.style(for: "always", quiet: false, isTerminal: false) == .live)
        #expect(ProgressDisplay.style(for: "never", quiet: false, isTerminal: true) == .off)
        #expect(ProgressDisplay.style(for: "auto", quiet: true, isTerminal: true) == .off)
        // JSON logs get progress events, never a bar in the middle of the JSON lines
        #expect(ProgressDisplay.style(for: "always", quiet: false, json: true, isTerminal: true) == .json(interval: 5))
        #expect(ProgressDisplay.style(for: "auto", quiet: false, json: true, isTerminal: false) == .json(interval: 5))
        #expect(ProgressDisplay.style(for: "never", quiet: false, json: true, isTerminal: false) == .off)
        let event = Log.jsonLine(ProgressDisplay.Event(.init(done: 5, total: 8, failed: 1, bytes: 300), elapsed: 1.5),
                                 at: Date(timeIntervalSince1970: 1_800_000_000.25))
        let fields = try? JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any]
        #expect(fields?["event"] as? String == "progress")
        #expect(fields?["done"] as? Int == 5 && fields?["total"] as? Int == 8 && fields?["failed"] as? Int == 1)
        #expect(fields?["time"] as? String == "2027-01-15T08:00:00.250Z" && event.contains(#""elapsed_ms":1500,"#))
        #expect(event.hasSuffix("}\n"))
    }

    @Test func quietKeepsOnlyFailuresInBothFormats() {
        let failed = RunEvent(.failed, url: "http://h/a.png", set: "s", status: 404, reason: "http_404", attempt: 1)
        let fetched = RunEvent(.finished, url: "http://h/b.png", set: "s", status: 200, bytes: 10, elapsedMs: 1, attempt: 1)
        for format in [RunLog.Format.text, .json] {
            let quiet = RunLog(format: format, verbosity: .quiet)
            #expect(quiet.line(for: failed)?.contains("http_404") == true)
            #expect(quiet.line(for: fetched) == nil)
            #expect(!quiet.showsTransferEvents)
        }
        #expect(RunLog(format: .json).line(for: fetched) != nil)
        #expect(RunLog(format: .text).line(for: fetched) == nil)
        #expect(RunLog(format: .text, verbosity: .verbose).line(for: fetched)?.hasPrefix("prefetchd: fetched") == true)
    }

    @Test func outcomeSaysHowTheRunEnded() {
        #expect(RunReport.outcome(stoppedBy: nil, cutShort: false) == "completed")
        #expect(RunReport.outcome(stoppedBy: nil, cutShort: true) == "incomplete")
        #expect(RunReport.outcome(stoppedBy: SIGINT, cutShort: true) == "interrupted")
        #expect(RunReport.outcome(stoppedBy: SIGTERM, cutShort: false) == "terminated")
    }

    @Test func byteAndClockFormats() {
        #expect(ByteFormat.human(512) == "512 B")
        #expect(ByteFormat.human(1536) == "1.5 KiB")
        #expect(ByteFormat.clock(3723) == "1:02:03")
        #expect(ByteFormat.clock(65) == "1:05")
    }
}

@Suite struct RunEventTests {
    @Test func eventIsOneJSONLineWithSnakeCaseKeys() throws {
        let event = RunEvent(.finished, url: "http://h/a.png", set: "thumbs", status: 200, bytes: 99,
                             elapsedMs: 12.345, time: Date(timeIntervalSince1970: 1.5))
        let line = event.jsonLine()
        #expect(line.hasSuffix("}\n"))
        #expect(line.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "finished")
        #expect(line.contains(#""elapsed_ms":12,"#))
        #expect(object["url"] as? String == "http://h/a.png")
        #expect(object["time"] as? String == "1970-01-01T00:00:01.500Z")
        #expect(object["format_version"] as? Int == PrefetchVersion.machineFormat)
    }
}
