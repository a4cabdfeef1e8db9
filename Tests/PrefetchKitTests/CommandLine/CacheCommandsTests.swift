import Foundation
import Testing
@testable import PrefetchKit

/// `path`, `fsck` and `verify` end to end, on a cache filled through the real store path.
@Suite(.timeLimit(.minutes(3))) struct CacheCommandsTests {
    static let base = "http://127.0.0.1:9/img"

    /// A cache holding a.png and b.jpg, and a job asking for a.png, b.jpg and c.png.
    func fixture() throws -> (folder: TemporaryDirectory, cache: DiskCache, job: URL) {
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        try cache.store(data: Data(ImageFixtures.png(width: 4, height: 3)), as: NewEntry(url: "\(Self.base)/a.png", key: "\(Self.base)/a.png"))
        try cache.store(data: Data(ImageFixtures.baselineJPEG), as: NewEntry(url: "\(Self.base)/b.jpg", key: "\(Self.base)/b.jpg"))
        try cache.flush()
        let job = try folder.write("job.yaml", """
            version: 1
            cache: { path: cache, max_age: 7d }
            defaults: { refresh: stale }
            sets:
              - { name: s, urls: ["\(Self.base)/a.png", "\(Self.base)/b.jpg", "\(Self.base)/c.png"] }
            """)
        return (folder, cache, job)
    }

    @Test func pathWithVariantPrintsTheVariantsFileAndVerifyNamesAMissingOne() throws {
        let (folder, cache, _) = try fixture()
        let key = "\(Self.base)/a.png"
        let spec = VariantSpec(name: "thumb", box: .longestSide(2), format: .jpeg)
        let original = try #require(try cache.lookup(key: key))
        let made = try VariantMaker.make(spec, fromFileAt: original.path, format: .png)
        let stored = try cache.storeVariant(made, at: cache.variantLocation(spec, originalKey: key, format: .png), url: key,
                                            setName: "s", variant: "thumb", originalPath: original.relativePath)
        try cache.flush()

        let hit = try Binary.run(["path", key, "--variant", "thumb", "--cache", "cache"], in: folder.url)
        #expect(hit.status == 0 && hit.stdout == stored.path + "\n", "\(hit.stderr)")
        #expect(stored.path.hasSuffix(".jpg") && stored.path != original.path)
        let miss = try Binary.run(["path", key, "--variant", "card", "--cache", "cache"], in: folder.url)
        #expect(miss.status == 1 && miss.stdout.isEmpty && miss.stderr.contains("no variant `card`"))

        let job = try folder.write("variants.yaml", """
            version: 1
            cache: { path: cache }
            sets:
              - { name: s, urls: ["\(key)"], variants: [{name: thumb, max_pixel_size: 2, format: jpeg}, {name: card, max_pixel_size: 1}] }
            """)
        let verify = try Binary.run(["verify", job.path], in: folder.url)
        #expect(verify.status == 1)
        #expect(verify.stdout == "missing \(key) variant card\n", "\(verify.stdout)")

        // And its totals count keys: one with its thumb (fresh), one without it, one not cached at all
        // (missing, whatever lines they take), which add up to the keys checked
        let thumbs = try folder.write("thumbs.yaml", """
            version: 1
            cache: { path: cache }
            sets:
              - { name: s, urls: ["\(key)", "\(Self.base)/b.jpg", "\(Self.base)/c.png"], variants: [{name: thumb, max_pixel_size: 2, format: jpeg}] }
            """)
        let counted = try Binary.run(["verify", thumbs.path], in: folder.url)
        #expect(counted.stdout.split(separator: "\n").count == 3, "\(counted.stdout)")
        #expect(counted.stderr.contains("3 URLs, 3 unique keys: 1 cached and fresh, 2 missing, 0 stale"), "\(counted.stderr)")
    }

    @Test func pathPrintsTheCachedFileAndExits1WhenNotCached() throws {
        let (folder, cache, _) = try fixture()
        let hit = try Binary.run(["path", "\(Self.base)/a.png", "--cache", "cache"], in: folder.url)
        #expect(hit.status == 0)
        #expect(hit.stdout == folder.file("cache").path + "/" + cache.relativePath(forKey: "\(Self.base)/a.png") + "\n")

        let miss = try Binary.run(["path", "\(Self.base)/c.png", "--cache", "cache"], in: folder.url)
        #expect(miss.status == 1)
        #expect(miss.stdout.isEmpty)
        #expect(miss.stderr.contains("not cached"))
    }

    /// A report, a JUnit file or a stats file named where the cache keeps its own files would replace the
    /// index or a cached body: refused in one line before anything is done, the cache as it was. Another
    /// name at the top of the cache folder is the user's to use.
    @Test func anOutputFileWhereTheCacheKeepsItsOwnIsRefused() throws {
        let (folder, _, job) = try fixture()
        let cached = try Binary.run(["path", "\(Self.base)/a.png", "--cache", "cache"], in: folder.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let index = folder.file("cache/index.sqlite").path
        let before = try Data(contentsOf: URL(fileURLWithPath: index))
        try FileManager.default.createSymbolicLink(atPath: folder.file("link").path, withDestinationPath: folder.file("cache").path)
        let attempts: [([String], String)] = [
            (["run", job.path, "--report", "cache/index.sqlite"], "run: --report cache/index.sqlite is where the cache"),
            (["run", job.path, "--junit", cached], "run: --junit \(cached) is where the cache"),
            (["run", job.path, "--cache", "link", "--report", "cache/tmp/run.json"], "keeps its own files; write it elsewhere"),
            (["stats", "--cache", "cache", "-o", "cache/index.sqlite"], "stats: --output cache/index.sqlite is where the cache"),
            (["stats", "--cache", "link", "--output", "cache/ab/stats.txt"], "keeps its own files"),
            (["stats", "--cache", "cache", "-o", "cache/CACHEDIR.TAG"], "keeps its own files"),
        ]
        for (arguments, says) in attempts {
            let outcome = try Binary.run(arguments, in: folder.url)
            let lines = outcome.unstampedStderr.split(separator: "\n")
            #expect(outcome.status == 2 && lines.count == 1 && lines[0].contains(says), "\(arguments): \(outcome.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: index)) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: cached)) == Data(ImageFixtures.png(width: 4, height: 3)))
        #expect(!FileManager.default.fileExists(atPath: folder.file("cache/tmp/run.json").path))
        #expect(try Binary.run(["stats", "--cache", "cache"], in: folder.url).status == 0)
        // while a file of another name at the top of the cache folder is written
        let beside = try Binary.run(["stats", "--cache", "cache", "-o", "cache/stats.txt"], in: folder.url)
        #expect(beside.status == 0 && FileManager.default.fileExists(atPath: folder.file("cache/stats.txt").path), "\(beside.stderr)")
    }

    @Test func pathWithoutACacheCreatesNothing() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Binary.run(["path", "\(Self.base)/a.png", "--cache", "nowhere"], in: folder.url)
        #expect(outcome.status == 3)  // as every command says of a folder without a cache (docs/MESSAGES.md)
        #expect(!FileManager.default.fileExists(atPath: folder.file("nowhere").path))
    }

    @Test func pathCountsAsAUse() throws {
        let (folder, cache, _) = try fixture()
        let key = "\(Self.base)/a.png"
        let before = try #require(try lastUse(cache, key: key))
        Thread.sleep(forTimeInterval: 0.05)
        #expect(try Binary.run(["path", key, "--cache", "cache"], in: folder.url).status == 0)
        let reopened = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        #expect(try #require(try lastUse(reopened, key: key)) > before)
    }

    @Test func verifyListsTheMissingURLAndExits1() throws {
        let (folder, _, _) = try fixture()
        let outcome = try Binary.run(["verify", "job.yaml"], in: folder.url)
        #expect(outcome.status == 1)
        #expect(outcome.stdout == "missing \(Self.base)/c.png\n")
        #expect(outcome.stderr.contains("3 URLs, 3 unique keys: 2 cached and fresh, 1 missing, 0 stale"))
    }

    @Test func verifyCallsAnEntryOlderThanMaxAgeStale() throws {
        let (folder, _, jobURL) = try fixture()
        let job = try JobFile.load(path: jobURL.path, environment: [:], workingDirectory: folder.path)
        let eightDaysOn = Date().addingTimeInterval(8 * 86_400)
        let result = try #require(try Verifier.verify(job, now: eightDaysOn) { _ in })
        #expect(result.findings.map(\.kind) == [.stale, .stale, .missing])
        #expect(try Verifier.verify(job) { _ in }?.findings.map(\.kind) == [.missing])
    }

    @Test func verifyTrustsOldEntriesWhereRunDoes() throws {
        // Given the same cache, and a job whose sets never refresh (the default)
        let (folder, _, _) = try fixture()
        let never = try folder.write("never.yaml", """
            version: 1
            cache: { path: cache, max_age: 7d }
            sets:
              - { name: s, urls: ["\(Self.base)/a.png", "\(Self.base)/b.jpg", "\(Self.base)/c.png"] }
            """)
        let job = try JobFile.load(path: never.path, environment: [:], workingDirectory: folder.path)
        // When verify looks eight days on, past max_age
        let result = try #require(try Verifier.verify(job, now: Date().addingTimeInterval(8 * 86_400)) { _ in })
        // Then the old entries count as cached, as a run counts them (it would not fetch them again)
        #expect(result.findings.map(\.kind) == [.missing])
        #expect(result.fresh == 2)
    }

    @Test func fsckIsCleanThenFindsAndRepairsADamagedFile() throws {
        let (folder, cache, _) = try fixture()
        #expect(try Binary.run(["fsck", "--cache", "cache"], in: folder.url).status == 0)

        // Given a stored JPEG cut short behind the cache's back
        let damaged = try #require(try cache.lookup(key: "\(Self.base)/b.jpg")).path
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged))
        try handle.truncate(atOffset: 200)
        try handle.close()

        // When fsck looks, it reports it; with --repair it removes it
        let found = try Binary.run(["fsck", "--cache", "cache"], in: folder.url)
        #expect(found.status == 1)
        #expect(found.stdout.contains(cache.relativePath(forKey: "\(Self.base)/b.jpg")))
        let repaired = try Binary.run(["fsck", "--cache", "cache", "--repair"], in: folder.url)
        #expect(repaired.status == 1)
        #expect(repaired.stderr.contains("repaired"))

        // Then the cache is clean and the damaged file is gone
        #expect(try Binary.run(["fsck", "--cache", "cache"], in: folder.url).status == 0)
        #expect(!FileManager.default.fileExists(atPath: damaged))
    }

    /// A body over the default limits was stored by a job that raised them: fsck does not decode it
    /// past the budgets that guard it, nor take it for a bad file, and holds it to its checksum.
    @Test func fsckKeepsAnImageOverTheDefaultLimitsAndChecksItsBytes() throws {
        let (folder, cache, _) = try fixture()
        let key = "\(Self.base)/huge.png"
        let huge = try cache.store(data: Data(ImageFixtures.png(width: 10_000, height: 10_000, pixels: false)),
                                   as: NewEntry(url: key, key: key, format: .png, width: 10_000, height: 10_000))
        try cache.flush()

        let repair = try Binary.run(["fsck", "--cache", "cache", "--repair"], in: folder.url)
        #expect(repair.status == 0 && repair.stdout.isEmpty, "\(repair.stdout)")
        #expect(FileManager.default.fileExists(atPath: huge.path))

        var bytes = try Data(contentsOf: URL(fileURLWithPath: huge.path))
        bytes[bytes.count - 20] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: huge.path))
        let changed = try Binary.run(["fsck", "--cache", "cache"], in: folder.url)
        #expect(changed.status == 1 && changed.stdout.contains("content does not match the indexed checksum"), "\(changed.stdout)")
    }

    @Test func fsckGoesOnPastWhatItCannotReadOrRemove() throws {
        let (folder, cache, _) = try fixture()
        // Given an entry whose file is a folder, a JPEG cut short, and a stale temp "file" that is a
        // folder (which --repair cannot unlink)
        let folderEntry = cache.root + "/" + cache.relativePath(forKey: "\(Self.base)/a.png")
        #expect(unlink(folderEntry) == 0 && mkdir(folderEntry, 0o755) == 0)
        let damaged = try #require(try cache.lookup(key: "\(Self.base)/b.jpg")).path
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: damaged))
        try handle.truncate(atOffset: 200)
        try handle.close()
        let stuck = cache.tempFolder + "/1-1-stuck.part"
        #expect(mkdir(stuck, 0o755) == 0)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-86_400)], ofItemAtPath: stuck)

        // When fsck looks, it reports every one of them, the folder for what it is
        let found = try Binary.run(["fsck", "--cache", "cache"], in: folder.url)
        #expect(found.status == 1, "\(found.stderr)")
        #expect(found.stdout.contains("cannot be read as the entry's file: a folder, not a file"), "\(found.stdout)")
        #expect(found.stdout.contains(cache.relativePath(forKey: "\(Self.base)/b.jpg")), "\(found.stdout)")
        #expect(found.stdout.contains("tmp/1-1-stuck.part"), "\(found.stdout)")

        // and --repair fixes what it can before it says what it could not
        let repaired = try Binary.run(["fsck", "--cache", "cache", "--repair"], in: folder.url)
        #expect(repaired.status == 3 && repaired.stderr.contains("stuck.part"), "\(repaired.stderr)")
        #expect(!FileManager.default.fileExists(atPath: damaged))
        #expect(try cache.index.entryCount() == 0)
        let after = try Binary.run(["fsck", "--cache", "cache"], in: folder.url)
        #expect(after.stdout.split(separator: "\n").count == 1 && after.stdout.contains("stuck.part"), "\(after.stdout)")
    }

    @Test func fsckKeepsWhatAValidateNoneSetStoredOnPurpose() throws {
        // Given a run that stored an HTML page and a broken PNG through a `validate: none` set, and a
        // PNG through a validating one
        let harness = try RunHarness()
        let job = try harness.job(sets: [
            harness.set("anything", ["/html-as-jpeg", "/broken-png"], ["validate: none"]),
            harness.set("images", ["/ok/kept"], ["validate: decode"]),
        ])
        #expect(try Binary.run(["run", job, "--progress", "never"]).status == 0)
        let page = harness.finalPath(forKey: harness.url("/html-as-jpeg"))
        let broken = harness.finalPath(forKey: harness.url("/broken-png"))
        #expect(FileManager.default.fileExists(atPath: page))

        // When fsck repairs the cache, it finds nothing wrong and removes nothing
        let outcome = try Binary.run(["fsck", "--cache", harness.cachePath, "--repair"])
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        #expect(FileManager.default.fileExists(atPath: page))
        #expect(FileManager.default.fileExists(atPath: broken))

        // Then the same page, changed behind the cache's back (same length), is still found by its checksum
        let original = try Data(contentsOf: URL(fileURLWithPath: page))
        try Data(original.reversed()).write(to: URL(fileURLWithPath: page))
        let changed = try Binary.run(["fsck", "--cache", harness.cachePath])
        #expect(changed.status == 1)
        #expect(changed.stdout.contains("content does not match the indexed checksum"), "\(changed.stdout)")
    }

    @Test func cleanDryRunSaysAnOrphanWouldBeIndexedAndCleanIndexesIt() throws {
        // Given a stored file whose row is gone, in a folder the first clean's orphan sweep visits
        // (it starts at folder 00 and takes a seventh of them)
        let folder = try TemporaryDirectory()
        let cache = try DiskCache.open(at: folder.file("cache").path, layout: .native)
        let key = try #require((0..<1000).map { "\(Self.base)/o\($0).png" }.first {
            Int(cache.relativePath(forKey: $0).prefix(2), radix: 16)! < 16
        })
        let entry = try cache.store(data: Data(ImageFixtures.png(width: 4, height: 3)), as: NewEntry(url: key, key: key))
        try cache.index.deleteEntry(relativePath: entry.relativePath)
        try cache.flush()

        // Then the dry run says it would index the orphan, and the clean does, keeping the file
        let dry = try Binary.run(["clean", "--cache", "cache", "--dry-run"], in: folder.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would index orphan \(entry.relativePath)"), "\(dry.stdout)")
        #expect(!dry.stdout.contains("would remove orphan"))
        let real = try Binary.run(["clean", "--cache", "cache"], in: folder.url)
        #expect(real.status == 0, "\(real.stderr)")
        #expect(real.stderr.contains("  orphans indexed       1 "), "\(real.stderr)")
        #expect(FileManager.default.fileExists(atPath: entry.path))
    }

    @Test func aCachePathThatIsAFileIsRefusedByNameByEveryCommand() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write("afile", "x").path
        for command in ["stats", "clean", "fsck", "path"] {
            let arguments = [command] + (command == "path" ? ["\(Self.base)/a.png"] : []) + ["--cache", "afile"]
            let outcome = try Binary.run(arguments, in: folder.url)
            #expect(outcome.status == 3, "\(command): \(outcome.stderr)")
            #expect(outcome.unstampedStderr.hasPrefix("prefetchd \(command): is a file, not a cache folder: \(file)\n"),
                    "\(command): \(outcome.stderr)")
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
    }

    @Test func fsckWithoutACacheIsAnEnvironmentError() throws {
        let folder = try TemporaryDirectory()
        let outcome = try Binary.run(["fsck", "--cache", "nowhere"], in: folder.url)
        #expect(outcome.status == 3)
        #expect(outcome.stderr.contains("prefetchd fsck: no cache at \(folder.path)/nowhere"))
    }
}
