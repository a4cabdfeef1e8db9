import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd merge`, through the real binary, on caches made by real runs against the fixture
/// server (or through the real store path), with real SQLite and real files.
@Suite(.timeLimit(.minutes(5)))
struct MergeTests {
    /// Runs `job` in-process into the cache at `cache`, as shard `shard` when given.
    private func run(_ harness: RunHarness, _ job: String, into cache: String, shard: String? = nil) throws -> JobRunner.Result {
        try harness.run([job]) { options in
            options.cacheOverride = cache
            options.settings.shard = shard.flatMap(Shard.init)
        }
    }

    @Test func threeShardCachesMergeIntoOneThatVerifiesAndHardLinksTheirFiles() throws {
        // Given a job of 30 URLs (ten of them under refresh: http) run as three shards into three caches
        let harness = try RunHarness()
        let plain = (0..<20).map { "/ok/merge-\($0)" }
        let fresh = (0..<10).map { "/fresh/merge-\($0)/cache-control/max-age%3D3600" }
        let job = try harness.job(sets: [harness.set("plain", plain), harness.set("fresh", fresh, ["refresh: http"])])
        let shards = (1...3).map { harness.folder.path + "/shard\($0)" }
        for (number, cache) in shards.enumerated() {
            let run = try Binary.run(["run", job, "--cache", cache, "--shard", "\(number + 1)/3", "--progress", "never"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        let before = try shards.map(folderState)
        let merged = harness.folder.path + "/merged"

        // When they are merged into a cache that does not exist yet
        let merge = try Binary.run(["merge"] + shards + ["--into", merged])

        // Then it exits 0 and says what it did in its last line
        #expect(merge.status == 0, "\(merge.stderr)")
        let summary = try #require(merge.unstampedStderr.split(separator: "\n").last)
        #expect(summary.contains("3 caches into \(merged): 30 added, 0 replaced, 0 skipped"), "\(summary)")
        #expect(summary.contains("30 linked, 0 copied"), "\(summary)")
        // and the merged cache holds the 30 keys, each file a hard link of its shard's
        let (keys, rows) = try cacheKeys(merged)
        #expect(rows == 30 && keys == Set((plain + fresh).map(harness.url)))
        let cache = try DiskCache.open(at: merged, layout: .native)
        for entry in try cache.index.allEntries() {
            var mergedInfo = stat(), sourceInfo = stat()
            #expect(stat(entry.path, &mergedInfo) == 0)
            let source = try #require(shards.first { FileManager.default.fileExists(atPath: $0 + "/" + entry.relativePath) })
            #expect(stat(source + "/" + entry.relativePath, &sourceInfo) == 0)
            #expect(mergedInfo.st_ino == sourceInfo.st_ino && mergedInfo.st_nlink == 2)
            // and what refresh: http recorded came with each of its entries
            if entry.url?.contains("/fresh/") == true {
                guard case .recorded(let until?) = try cache.index.freshness(relativePath: entry.relativePath, modifiedAt: entry.modifiedAt) else {
                    Issue.record("no freshness for \(entry.relativePath)")
                    continue
                }
                #expect(until > Date().addingTimeInterval(3_000))
            }
        }
        // and verify of the whole job on it passes, fsck finds nothing, the run history holds the three runs
        #expect(try Binary.run(["verify", job, "--cache", merged]).status == 0)
        let fsck = try Binary.run(["fsck", "--cache", merged])
        #expect(fsck.status == 0, "\(fsck.stdout)\(fsck.stderr)")
        #expect(Set(try cache.index.recentRuns(limit: 10).compactMap { $0.shard?.label }) == ["1/3", "2/3", "3/3"])
        // and the sources are exactly as they were
        let after = try shards.map(folderState)
        for (was, now) in zip(before, after) where was != now {
            Issue.record("changed: \(Set(was.keys).symmetricDifference(now.keys)) \(was.filter { now[$0.key] != $0.value }.keys)")
        }
    }

    /// `/image/NAME` fetched one pixel wide into `older`, then five wide into `newer`.
    func fetchedTwice(_ name: String) throws -> (harness: RunHarness, older: String, newer: String) {
        let harness = try RunHarness()
        let job = try harness.job(defaults: ["validate": "none"], sets: [harness.set("s", ["/image/\(name)"])])
        let older = harness.folder.path + "/older", newer = harness.folder.path + "/newer"
        _ = try run(harness, job, into: older)
        _ = try harness.server.get("/set-width/\(name)/5")
        _ = try run(harness, job, into: newer)
        return (harness, older, newer)
    }

    @Test func theNewerFetchWinsAKeyBothHold() throws {
        // Given a key fetched into one cache one pixel wide, then into another after it became five wide
        let (harness, older, newer) = try fetchedTwice("changing")
        let newBody = try Data(contentsOf: URL(fileURLWithPath: try #require(try DiskCache.open(at: newer, layout: .native).path(forKey: harness.url("/image/changing")))))

        // When they are merged older first, and, into another cache, newer first
        let upward = harness.folder.path + "/upward", downward = harness.folder.path + "/downward"
        let first = try Binary.run(["merge", older, newer, "--into", upward])
        let second = try Binary.run(["merge", newer, older, "--into", downward])

        // Then both hold the newer body: the first replaced the older one, the second skipped it
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        #expect(first.stderr.contains("1 added, 1 replaced, 0 skipped"), "\(first.stderr)")
        #expect(second.stderr.contains("1 added, 0 replaced, 1 skipped"), "\(second.stderr)")
        for merged in [upward, downward] {
            let path = try #require(try DiskCache.open(at: merged, layout: .native).path(forKey: harness.url("/image/changing")))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == newBody, "\(merged)")
        }
    }

    /// A newer body changed behind its cache's back (same size) never takes the place of a sound one.
    @Test func aNewerBodyThatFailsItsChecksumDoesNotReplaceTheDestinations() throws {
        // Given a key fetched into one cache, then into another after it changed, whose file then rotted
        let (harness, older, newer) = try fetchedTwice("rotting")
        let key = harness.url("/image/rotting")
        let sound = try Data(contentsOf: URL(fileURLWithPath: try #require(try DiskCache.open(at: older, layout: .native).path(forKey: key))))
        let rotted = try #require(try DiskCache.open(at: newer, layout: .native).path(forKey: key))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: rotted))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: rotted))

        // When the newer cache is merged into the older, after a dry run of it
        let dry = try Binary.run(["merge", newer, "--into", older, "--dry-run"])
        let merge = try Binary.run(["merge", newer, "--into", older])

        // Then the older keeps its sound body, and the rotted one is counted as unreadable
        #expect(merge.status == 0 && merge.stderr.contains("0 added, 0 replaced, 0 skipped (held with the same or a newer fetch), 1 unreadable in their source"), "\(merge.stderr)")
        // (which the dry run said it would do)
        #expect(dry.stdout.contains("0 would be added, 0 would be replaced, 0 skipped (held with the same or a newer fetch), 1 unreadable in their source"),
                "\(dry.stdout)")
        let kept = try #require(try DiskCache.open(at: older, layout: .native).path(forKey: key))
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == sound)
        #expect(try Binary.run(["fsck", "--cache", older]).status == 0)
    }

    @Test func variantsComeWithTheBodyTheyWereMadeFrom() throws {
        // Given a cache with an original one pixel wide and its variant, and one with it five wide and its own
        let harness = try RunHarness()
        let key = harness.url("/image/varied")
        let job = try harness.job(sets: [harness.set("s", ["/image/varied"], ["variants: [{name: small, max_pixel_size: 8}]"])])
        let narrow = harness.folder.path + "/narrow", wide = harness.folder.path + "/wide"
        _ = try run(harness, job, into: narrow)
        _ = try harness.server.get("/set-width/varied/5")
        _ = try run(harness, job, into: wide)

        // When the narrow cache is merged into a new one, and then into a copy of the wide one
        let fresh = harness.folder.path + "/fresh", held = harness.folder.path + "/held"
        let first = try Binary.run(["merge", narrow, "--into", fresh])
        #expect(try Binary.run(["merge", wide, "--into", held]).status == 0)
        let second = try Binary.run(["merge", narrow, "--into", held])

        // Then the new one holds the original and its variant, linked to it, as `path --variant` finds it
        #expect(first.status == 0 && first.stderr.contains("2 added"), "\(first.stderr)")
        let cache = try DiskCache.open(at: fresh, layout: .native)
        let original = try #require(try cache.lookup(key: key))
        #expect(try cache.variant(named: "small", ofOriginalAt: original.relativePath) != nil)
        let path = try Binary.run(["path", key, "--variant", "small", "--cache", fresh])
        #expect(path.status == 0 && path.stdout.hasPrefix(fresh + "/"), "\(path.stdout)\(path.stderr)")
        // and the wide cache keeps its own original and variant: the narrow variant is of another body
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("0 added, 0 replaced, 1 skipped") && second.stderr.contains("1 variant of another body left out"),
                "\(second.stderr)")
        let heldCache = try DiskCache.open(at: held, layout: .native)
        let wideOriginal = try #require(try heldCache.lookup(key: key))
        #expect(wideOriginal.width == 5)
        let variant = try #require(try heldCache.variant(named: "small", ofOriginalAt: wideOriginal.relativePath))
        #expect(variant.checksum == (try DiskCache.open(at: wide, layout: .native).variant(named: "small", ofOriginalAt: wideOriginal.relativePath))?.checksum)
    }

    @Test func aVariantGoesWhenALaterSourceReplacesItsOriginalWithAnotherBody() throws {
        // Given a cache with an original one pixel wide and its variant, and one fetched later with the
        // original five wide and no variant
        let harness = try RunHarness()
        let key = harness.url("/image/varied")
        let withVariant = try harness.job(sets: [harness.set("s", ["/image/varied"], ["variants: [{name: small, max_pixel_size: 8}]"])])
        let plain = try harness.job("plain", sets: [harness.set("s", ["/image/varied"])])
        let narrow = harness.folder.path + "/narrow", wide = harness.folder.path + "/wide"
        _ = try run(harness, withVariant, into: narrow)
        Thread.sleep(forTimeInterval: 1.1)
        _ = try harness.server.get("/set-width/varied/5")
        _ = try run(harness, plain, into: wide)

        // When both are merged, the narrow one first, after a dry run of the same
        let merged = harness.folder.path + "/merged"
        let dry = try Binary.run(["merge", narrow, wide, "--into", merged, "--dry-run"])
        let outcome = try Binary.run(["merge", narrow, wide, "--into", merged])

        // Then the merged cache holds the wide original and no variant made from the narrow one
        #expect(dry.status == 0 && dry.stdout.contains("2 would be added, 1 would be replaced")
                    && dry.stdout.contains("1 variant of another body left out"), "\(dry.stdout)")
        #expect(outcome.status == 0 && outcome.stderr.contains("2 added, 1 replaced") && outcome.stderr.contains("1 variant of another body left out"),
                "\(outcome.stderr)")
        let cache = try DiskCache.open(at: merged, layout: .native)
        let original = try #require(try cache.lookup(key: key))
        #expect(original.width == 5)
        #expect(try cache.variant(named: "small", ofOriginalAt: original.relativePath) == nil)
        #expect(try Binary.run(["path", key, "--variant", "small", "--cache", merged]).status == 1)
        #expect(try Binary.run(["fsck", "--cache", merged]).status == 0)
    }

    @Test func aMergeWithoutSourcesOrDestinationIsAUsageError() throws {
        try TemporaryDirectory.withPath { folder in
            try storePNGs(at: folder + "/a", count: 1)
            for arguments in [["merge", folder + "/a"], ["merge", "--into", folder + "/d"], ["merge", folder + "/a", "--into", folder + "/a"]] {
                let merge = try Binary.run(arguments)
                #expect(merge.status == 2 && merge.unstampedStderr.split(separator: "\n").count == 1, "\(arguments): \(merge.stderr)")
            }
            let missing = try Binary.run(["merge", folder + "/nothing", "--into", folder + "/d"])
            #expect(missing.status == 3 && missing.stderr.contains("no cache at \(folder)/nothing"), "\(missing.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/d"))
        }
    }

    @Test func aSourceThatIsTheDestinationThroughASymbolicLinkIsRefused() throws {
        try TemporaryDirectory.withPath { folder in
            // Given a cache and a symbolic link to it
            try storePNGs(at: folder + "/a", count: 2)
            try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/a")

            // Then merging it into itself through the link, either way round, is a usage error in one line
            for arguments in [["merge", folder + "/link", "--into", folder + "/a"], ["merge", folder + "/a", "--into", folder + "/link"]] {
                let merge = try Binary.run(arguments)
                let lines = merge.unstampedStderr.split(separator: "\n")
                #expect(merge.status == 2 && lines.count == 1 && lines[0].contains("is both a source and the destination"),
                        "\(arguments): \(merge.stderr)")
            }
        }
    }

    @Test func aMergeOfOneFailureAndOneRunCountsThemInTheSingular() throws {
        let harness = try RunHarness()
        let job = try harness.job("one", sets: [harness.set("s", ["/ok/single-1", "/missing/single-a"])])
        let source = harness.folder.path + "/source"
        _ = try run(harness, job, into: source)
        let merge = try Binary.run(["merge", source, "--into", harness.folder.path + "/merged"])
        #expect(merge.status == 0 && merge.stderr.contains("1 failure ledger row and 1 run taken"), "\(merge.stderr)")
    }

    @Test func failureLedgersAndRunHistoriesAreMergedOnceWhateverTheReruns() throws {
        // Given two caches, each with a failure of its own and a run
        let harness = try RunHarness()
        let one = try harness.job("one", sets: [harness.set("s", ["/ok/m1", "/missing/merge-a"])])
        let two = try harness.job("two", sets: [harness.set("s", ["/ok/m2", "/missing/merge-b"])])
        let first = harness.folder.path + "/first", second = harness.folder.path + "/second"
        _ = try run(harness, one, into: first)
        _ = try run(harness, two, into: second)
        let merged = harness.folder.path + "/merged"

        // When they are merged, and merged again
        let merge = try Binary.run(["merge", first, second, "--into", merged])
        let again = try Binary.run(["merge", first, second, "--into", merged])

        // Then the merged ledger holds both failures and the history both runs, once
        #expect(merge.status == 0 && again.status == 0, "\(merge.stderr)\(again.stderr)")
        #expect(merge.stderr.contains("2 failure ledger rows and 2 runs taken"), "\(merge.stderr)")
        #expect(again.stderr.contains("0 added, 0 replaced, 2 skipped") && again.stderr.contains("0 failure ledger rows and 0 runs taken"),
                "\(again.stderr)")
        let cache = try DiskCache.open(at: merged, layout: .native)
        #expect(Set(try cache.index.failures().map(\.key)) == [harness.url("/missing/merge-a"), harness.url("/missing/merge-b")])
        #expect(try cache.index.recentRuns(limit: 10).map(\.job).sorted() == ["one", "two"])
        #expect(try cache.index.entryCount() == 2)
        // and a run of either job on it fetches nothing again and skips its failure as ledgered
        let rerun = try run(harness, one, into: merged)
        #expect(rerun.report.totals == .expected(requested: 2, unique: 2, cached: 1, ledgered: 1))
    }

    @Test func cachesOfDifferentLayoutsAreRefusedInOneLine() throws {
        try TemporaryDirectory.withPath { folder in
            _ = try DiskCache.open(at: folder + "/native", layout: .native)
            _ = try DiskCache.open(at: folder + "/sdwebimage", layout: .sdwebimage)
            let merge = try Binary.run(["merge", folder + "/native", folder + "/sdwebimage", "--into", folder + "/merged"])
            #expect(merge.status == 2)
            let lines = merge.unstampedStderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("has the native layout but") && lines[0].contains("sdwebimage layout"),
                    "\(merge.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/merged"))
            // and a destination of the other layout is refused the same way
            let into = try Binary.run(["merge", folder + "/native", "--into", folder + "/sdwebimage"])
            #expect(into.status == 2 && into.stderr.contains("layouts cannot be merged"), "\(into.stderr)")
        }
    }

    @Test func aDryRunListsEveryEntryAndChangesNothing() throws {
        try TemporaryDirectory.withPath { folder in
            // Given two caches of 40 entries sharing 10 keys, the second merged already into an existing cache
            try storePNGs(at: folder + "/a", count: 40)
            try storePNGs(at: folder + "/b", count: 40, first: 30)
            #expect(try Binary.run(["merge", folder + "/b", "--into", folder + "/existing"]).status == 0)
            let before = try folderState(folder + "/existing")

            // When a dry run of both is asked into a new cache and into the existing one
            let fresh = try Binary.run(["merge", folder + "/a", folder + "/b", "--into", folder + "/new", "--dry-run"])
            let existing = try Binary.run(["merge", folder + "/a", folder + "/b", "--into", folder + "/existing", "--dry-run"])

            // Then each lists one line per entry and the totals, and nothing was made or changed
            #expect(fresh.status == 0 && existing.status == 0, "\(fresh.stderr)\(existing.stderr)")
            let freshLines = fresh.stdout.split(separator: "\n")
            #expect(freshLines.count == 81)
            // (b's ten shared keys were stored after a's: newer, they would replace them)
            #expect(freshLines.filter { $0.hasPrefix("would add ") && $0.hasSuffix("(link)") }.count == 70)
            #expect(freshLines.filter { $0.hasPrefix("would replace ") && $0.hasSuffix("(link)") }.count == 10)
            #expect(freshLines.last?.contains("70 would be added, 10 would be replaced, 0 skipped") == true, "\(fresh.stdout)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/new"))
            let existingLines = existing.stdout.split(separator: "\n")
            #expect(existingLines.filter { $0.hasPrefix("would add ") }.count == 30)
            #expect(existingLines.filter { $0.hasPrefix("would skip ") }.count == 50)
            #expect(try folderState(folder + "/existing") == before)
        }
    }

    /// A dry run counts the ledger rows and runs the merge itself would take: none already in the
    /// destination, and none twice when a source is given twice.
    @Test func aDryRunCountsTheLedgerRowsAndRunsTheMergeWouldTake() throws {
        // Given a cache a run left one entry, one ledger row and its run in
        let harness = try RunHarness()
        let job = try harness.job(sets: [harness.set("s", ["/ok/kept", "/missing/gone"])])
        #expect(try Binary.run(["run", job, "--progress", "never", "--quiet"]).status == 1)
        let source = harness.cachePath
        let merged = harness.folder.path + "/merged"
        func totalsLine(_ arguments: [String]) throws -> String {
            let outcome = try Binary.run(["merge"] + arguments)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            return String((outcome.stdout + outcome.stderr).split(separator: "\n").last { $0.contains("failure ledger") } ?? "")
        }

        // Then a dry run of it twice into a new cache says what the merge then does
        let dry = try totalsLine([source, source, "--into", merged, "--dry-run"])
        let real = try totalsLine([source, source, "--into", merged])
        #expect(dry.contains("1 failure ledger row and 1 run would be taken"), "\(dry)")
        #expect(real.contains("1 failure ledger row and 1 run taken"), "\(real)")
        // And into the cache that now holds them, none
        let again = try totalsLine([source, "--into", merged, "--dry-run"])
        #expect(again.contains("0 failure ledger rows and 0 runs would be taken"), "\(again)")
        #expect(try totalsLine([source, "--into", merged]).contains("0 failure ledger rows and 0 runs taken"))
    }

    /// A merge never makes its destination where a cache keeps its own files, a source's or another's.
    @Test func aDestinationInsideACachesOwnFolderIsRefused() throws {
        try TemporaryDirectory.withPath { folder in
            try storePNGs(at: folder + "/a", count: 3)
            try storePNGs(at: folder + "/b", count: 3)
            for destination in [folder + "/a/tmp/merged", folder + "/b/ab"] {
                let outcome = try Binary.run(["merge", folder + "/a", "--into", destination])
                #expect(outcome.status == 2, "\(outcome.stderr)")
                #expect(outcome.stderr.contains("--into \(destination) is where the cache"), "\(outcome.stderr)")
                #expect(!FileManager.default.fileExists(atPath: destination + "/CACHEDIR.TAG"))
            }
        }
    }

    @Test func copyPutsAFileOfItsOwnInPlaceOfALink() throws {
        try TemporaryDirectory.withPath { folder in
            try storePNGs(at: folder + "/source", count: 25)
            let merge = try Binary.run(["merge", folder + "/source", "--into", folder + "/merged", "--copy"])
            #expect(merge.status == 0, "\(merge.stderr)")
            #expect(merge.stderr.contains("25 added") && merge.stderr.contains("0 linked, 25 copied"), "\(merge.stderr)")
            let entries = try DiskCache.open(at: folder + "/merged", layout: .native).index.allEntries()
            #expect(entries.count == 25)
            for entry in entries {
                var copied = stat(), original = stat()
                #expect(stat(entry.path, &copied) == 0 && stat(folder + "/source/" + entry.relativePath, &original) == 0)
                #expect(copied.st_ino != original.st_ino && copied.st_nlink == 1 && original.st_nlink == 1)
                #expect(FileManager.default.contents(atPath: entry.path) == FileManager.default.contents(atPath: folder + "/source/" + entry.relativePath))
            }
            #expect(try Binary.run(["fsck", "--cache", folder + "/merged"]).status == 0)
        }
    }

    /// A use a run recorded in the source and not yet folded into its row (`IndexRecentUses`) comes
    /// with the entry, as its last use.
    @Test func theSourcesRecordedUsesComeWithTheirEntries() throws {
        try TemporaryDirectory.withPath { folder in
            let keys = try storePNGs(at: folder + "/source", count: 3)
            let later = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 86_400).rounded())
            let source = try DiskCache.open(at: folder + "/source", layout: .native)
            try source.touch(key: keys[1], at: later)
            try source.flush()
            #expect(try IndexDatabase(path: folder + "/source/index.sqlite").text("SELECT count(*) FROM recent_uses") == "1")

            let merge = try Binary.run(["merge", folder + "/source", "--into", folder + "/merged"])
            #expect(merge.status == 0, "\(merge.stderr)")
            let merged = try DiskCache.open(at: folder + "/merged", layout: .native)
            #expect(try lastUse(merged, key: keys[1]) == later)
            #expect(try #require(try lastUse(merged, key: keys[0])) < later)
        }
    }

    @Test func aMergeKilledPartWayAndRunAgainLosesNothingAndAddsNothingTwice() throws {
        try TemporaryDirectory.withPath { folder in
            // Given three caches of 2,000 entries each
            let sources = (0..<3).map { folder + "/source\($0)" }
            var keys = Set<String>()
            for (number, source) in sources.enumerated() {
                keys.formUnion(try storePNGs(at: source, count: 2_000, first: number * 2_000))
            }
            let merged = folder + "/merged"

            // When a merge of them is killed once it has committed 500 rows
            let process = Process()
            process.executableURL = Binary.url
            process.arguments = ["merge"] + sources + ["--into", merged]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning && Date() < deadline
                    && ((try? CacheIndex.openSnapshot(root: merged).entryCount()) ?? 0) < 500 {
                usleep(2_000)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "the merge ended before it was killed")
            let partial = try cacheKeys(merged).rows
            #expect(partial > 0 && partial < 6_000, "\(partial) rows when killed")

            // and it is run again
            let rerun = try Binary.run(["merge"] + sources + ["--into", merged])

            // Then the cache holds every key once, and fsck finds nothing wrong
            #expect(rerun.status == 0, "\(rerun.stderr)")
            let (held, rows) = try cacheKeys(merged)
            #expect(rows == 6_000 && held == keys)
            let fsck = try Binary.run(["fsck", "--cache", merged])
            #expect(fsck.status == 0, "\(fsck.stdout)\(fsck.stderr)")
        }
    }

    @Test func aMergeBesideARunOnTheDestinationLosesNeitherSidesEntries() throws {
        // Given a destination a run is filling with 100 slow URLs (3 s at least), and two caches of 1,500 entries each
        let harness = try RunHarness()
        let destination = harness.folder.path + "/destination"
        let paths = (0..<100).map { "/slow/60/beside-\($0)" }
        let job = try harness.job(defaults: ["concurrency": "2", "per_host": "2"], sets: [harness.set("s", paths)])
        let sources = [harness.folder.path + "/a", harness.folder.path + "/b"]
        var merged = Set<String>()
        for (number, source) in sources.enumerated() {
            merged.formUnion(try storePNGs(at: source, count: 1_500, first: number * 1_500))
        }
        _ = try DiskCache.open(at: destination, layout: .native)
        let report = harness.folder.path + "/report.json"
        let runProcess = Process()
        runProcess.executableURL = Binary.url
        runProcess.arguments = ["run", job, "--cache", destination, "--report", report, "--progress", "never"]
        runProcess.standardError = FileHandle.nullDevice
        try runProcess.run()
        defer { if runProcess.isRunning { kill(runProcess.processIdentifier, SIGKILL) } }

        // When the caches are merged into it while the run goes on
        usleep(300_000)
        let merge = try Binary.run(["merge"] + sources + ["--into", destination])
        let mergeEndedDuringRun = runProcess.isRunning
        runProcess.waitUntilExit()

        // Then both succeed, the merge inside the run, and the cache holds every key of both, once
        #expect(merge.status == 0 && runProcess.terminationStatus == 0, "\(merge.stderr)")
        #expect(mergeEndedDuringRun, "the run ended before the merge did; nothing ran beside it")
        #expect(try readReport(report).totals.fetched == 100)
        let (held, rows) = try cacheKeys(destination)
        #expect(held == merged.union(paths.map(harness.url)) && rows == 3_100)
        let fsck = try Binary.run(["fsck", "--cache", destination])
        #expect(fsck.status == 0, "\(fsck.stdout)\(fsck.stderr)")
    }
}
