import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd export --layout sdwebimage` on a cache a real run filled from the local server: every
/// name checked against an MD5 that Python's hashlib computes, not prefetchd's code.
@Suite(.timeLimit(.minutes(3))) struct ExportTests {
    static let jpeg = "/corpus/libjpeg-turbo-testimages/testorig.jpg"
    static let png = "/corpus/pngsuite/basn2c08.png"
    /// A PNG at a URL without an extension: its file has none either.
    static let bare = "/count/export-bare"

    /// A run of a job whose `photos` set drops `sig` from its keys and makes a `thumb` variant, and whose
    /// `icons` set stores a URL with no extension.
    struct Fixture {
        let harness: RunHarness
        let job: String

        init() throws {
            harness = try RunHarness()
            job = try harness.job(sets: [
                harness.set("photos", [ExportTests.jpeg + "?sig=a1b2", ExportTests.png + "?w=32&sig=zz"],
                            ["cache_key: { drop_params: [sig] }", "variants: [{name: thumb, max_pixel_size: 64}]"]),
                harness.set("icons", [ExportTests.bare]),
            ])
            let result = try harness.run([job])
            try #require(result.report.failures.isEmpty, "\(result.report.failures)")
        }

        var jpegKey: String { harness.url(ExportTests.jpeg) }
        var pngKey: String { harness.url(ExportTests.png + "?w=32") }
        var bareKey: String { harness.url(ExportTests.bare) }

        func export(_ arguments: [String]) throws -> Binary.Outcome {
            try Binary.run(["export"] + arguments, in: harness.folder.url)
        }
    }

    /// The lowercase hex MD5 of each key's UTF-8 bytes, from Python's hashlib.
    static func md5(_ keys: [String]) throws -> [String: String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import hashlib, sys\nfor k in sys.argv[1:]: print(hashlib.md5(k.encode()).hexdigest())"] + keys
        let outcome = try Binary.outcome(of: process)
        try #require(outcome.status == 0, "\(outcome.stderr)")
        let digests = outcome.stdout.split(separator: "\n").map(String.init)
        try #require(digests.count == keys.count)
        return Dictionary(uniqueKeysWithValues: zip(keys, digests))
    }

    static func files(in folder: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder))
    }

    static func manifest(in folder: String) throws -> [String: Any] {
        let data = try #require(FileManager.default.contents(atPath: folder + "/manifest.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func entries(in folder: String) throws -> [String: [String: Any]] {
        let entries = try #require(try manifest(in: folder)["entries"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: entries.map { ($0["key"] as? String ?? "", $0) })
    }

    @Test func aJobsExportHoldsItsImagesUnderSDWebImagesNamesAndAManifest() throws {
        let fixture = try Fixture()
        let outcome = try fixture.export(["app-images", "--layout", "sdwebimage", "job.yaml"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)

        let digests = try Self.md5([fixture.jpegKey, fixture.pngKey, fixture.bareKey])
        // The extension of the URL's path, never of its query; none for a path without one.
        let expected = [fixture.jpegKey: digests[fixture.jpegKey]! + ".jpg", fixture.pngKey: digests[fixture.pngKey]! + ".png",
                        fixture.bareKey: digests[fixture.bareKey]!]
        let folder = fixture.harness.folder.path + "/app-images"
        #expect(try Self.files(in: folder) == Set(expected.values).union(["manifest.json"]))
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/corpus")
        #expect(FileManager.default.contents(atPath: folder + "/" + expected[fixture.jpegKey]!)
                    == FileManager.default.contents(atPath: corpus.path + "/libjpeg-turbo-testimages/testorig.jpg"))
        #expect(FileManager.default.contents(atPath: folder + "/" + expected[fixture.bareKey]!) == fixture.harness.png)

        let manifest = try Self.manifest(in: folder)
        #expect(manifest["layout"] as? String == "sdwebimage")
        #expect(manifest["variant"] is NSNull)
        let entries = try Self.entries(in: folder)
        #expect(Set(entries.keys) == Set(expected.keys))
        let sizes = [fixture.jpegKey: (227, 149), fixture.pngKey: (32, 32), fixture.bareKey: (1, 1)]
        for (key, entry) in entries {
            #expect(entry["file"] as? String == expected[key])
            #expect(entry["width"] as? Int == sizes[key]?.0 && entry["height"] as? Int == sizes[key]?.1, "\(key): \(entry)")
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + expected[key]!)
            #expect((entry["bytes"] as? Int).map(Int64.init) == (attributes[.size] as? NSNumber)?.int64Value)
        }
        // Same file system: hard links to the cache's files, not copies.
        #expect(outcome.stderr.contains("3 linked and 0 copied"), "\(outcome.stderr)")
        let linked = try FileManager.default.attributesOfItem(atPath: folder + "/" + expected[fixture.jpegKey]!)
        #expect((linked[.referenceCount] as? NSNumber)?.intValue == 2)
        #expect(try Self.files(in: fixture.harness.folder.path).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test func aVariantIsExportedUnderItsOriginalsKey() throws {
        let fixture = try Fixture()
        let outcome = try fixture.export(["thumbs", "--layout", "sdwebimage", "job.yaml", "--variant", "thumb"])
        // The icons set makes no thumb: its URL is missing one.
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stdout == "missing \(fixture.bareKey) variant thumb\n")

        let digests = try Self.md5([fixture.jpegKey, fixture.pngKey])
        let folder = fixture.harness.folder.path + "/thumbs"
        let jpegName = digests[fixture.jpegKey]! + ".jpg"
        #expect(try Self.files(in: folder) == [jpegName, digests[fixture.pngKey]! + ".png", "manifest.json"])
        let cache = try DiskCache.open(at: fixture.harness.cachePath, layout: .native)
        let thumb = try #require(try cache.variant(named: "thumb", ofOriginalAt: cache.relativePath(forKey: fixture.jpegKey)))
        #expect(FileManager.default.contents(atPath: folder + "/" + jpegName) == FileManager.default.contents(atPath: thumb.path))
        #expect(try Self.manifest(in: folder)["variant"] as? String == "thumb")
        let entry = try #require(try Self.entries(in: folder)[fixture.jpegKey])
        #expect(entry["width"] as? Int == 64 && entry["height"] as? Int == 42, "\(entry)")
    }

    @Test func aJobFileExportsOnlyItsKeysAndListsThoseNotCached() throws {
        let fixture = try Fixture()
        let subset = try fixture.harness.job("subset", sets: [
            fixture.harness.set("photos", [Self.png + "?w=32&sig=other", "/count/never-fetched.png"], ["cache_key: { drop_params: [sig] }"]),
        ])
        let outcome = try fixture.export(["subset-images", "--layout", "sdwebimage", subset])
        #expect(outcome.status == 1)
        #expect(outcome.stdout == "missing \(fixture.harness.url("/count/never-fetched.png"))\n")
        let folder = fixture.harness.folder.path + "/subset-images"
        #expect(try Self.files(in: folder) == [try Self.md5([fixture.pngKey])[fixture.pngKey]! + ".png", "manifest.json"])
    }

    /// A body cut short (kept as a partial download for the next run to resume) is not exported.
    /// An entry whose file went missing is not cached for the export, and its row is left for the
    /// cache's own tools: an export reads the cache and writes nothing to it.
    @Test func anEntryWithoutItsFileIsMissingAndItsRowStays() throws {
        let fixture = try Fixture()
        let cache = try DiskCache.open(at: fixture.harness.cachePath, layout: .native)
        let gone = try #require(try cache.index.entry(relativePath: cache.relativePath(forKey: fixture.pngKey)))
        try FileManager.default.removeItem(atPath: gone.path)
        let outcome = try fixture.export(["out", "--layout", "sdwebimage", "job.yaml"])
        #expect(outcome.status == 1)
        #expect(outcome.stdout == "missing \(fixture.harness.url(Self.png + "?w=32&sig=***"))\n")  // sig redacted, as every output shows it
        #expect(try Self.files(in: fixture.harness.folder.path + "/out").count == 3)
        #expect(try cache.index.entry(relativePath: gone.relativePath) != nil)
    }

    @Test func aWholeCacheExportTakesEveryOriginalAndNoVariantOrPartial() throws {
        let fixture = try Fixture()
        let cut = try fixture.harness.job("cut", sets: [fixture.harness.set("big", ["/resumable/export-cut/512/90/range"])])
        let partial = try fixture.harness.run([cut])
        #expect(partial.report.failures.map(\.reason) == ["truncated_body"])
        #expect(try DiskCache.open(at: fixture.harness.cachePath, layout: .native).index.partials().count == 1)

        let outcome = try fixture.export(["all", "--layout", "sdwebimage", "--cache", "cache"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let keys = [fixture.jpegKey, fixture.pngKey, fixture.bareKey]
        #expect(Set(try Self.entries(in: fixture.harness.folder.path + "/all").keys) == Set(keys))
        #expect(try Self.files(in: fixture.harness.folder.path + "/all").count == 4)
    }

    /// On another file system (the tmpfs of /dev/shm) the files are copied, not linked.
    @Test func toAnotherFileSystemTheFilesAreCopied() throws {
        let fixture = try Fixture()
        let folder = "/dev/shm/prefetchd-export-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outcome = try fixture.export([folder, "--layout", "sdwebimage", "job.yaml"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("0 linked and 3 copied"), "\(outcome.stderr)")
        let name = try Self.md5([fixture.jpegKey])[fixture.jpegKey]! + ".jpg"
        let cache = try DiskCache.open(at: fixture.harness.cachePath, layout: .native)
        let entry = try #require(try cache.lookup(key: fixture.jpegKey))
        #expect(FileManager.default.contents(atPath: folder + "/" + name) == FileManager.default.contents(atPath: entry.path))
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + name)
        #expect((attributes[.referenceCount] as? NSNumber)?.intValue == 1)
        #expect(try Self.files(in: "/dev/shm").filter { $0.hasPrefix("prefetchd-export-test-") && $0.contains(".tmp-") }.isEmpty)
    }

    @Test func aDryRunListsTheFilesAndWritesNothing() throws {
        let fixture = try Fixture()
        let outcome = try fixture.export(["planned", "--layout", "sdwebimage", "job.yaml", "--dry-run"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let digests = try Self.md5([fixture.jpegKey, fixture.pngKey, fixture.bareKey])
        let lines = Set(outcome.stdout.split(separator: "\n").map(String.init))
        #expect(lines == ["\(digests[fixture.jpegKey]!).jpg \(fixture.jpegKey)", "\(digests[fixture.pngKey]!).png \(fixture.pngKey)",
                          "\(digests[fixture.bareKey]!) \(fixture.bareKey)"])
        #expect(!FileManager.default.fileExists(atPath: fixture.harness.folder.path + "/planned"))
    }

    @Test func aPreviousExportIsReplacedWholeAndAForeignFolderRefused() throws {
        let fixture = try Fixture()
        #expect(try fixture.export(["out", "--layout", "sdwebimage", "job.yaml"]).status == 0)
        let folder = fixture.harness.folder.path + "/out"
        #expect(try Self.files(in: folder).count == 4)

        // A previous export is replaced: the variant's export holds two images, not the three before.
        let again = try fixture.export(["out", "--layout", "sdwebimage", "--cache", "cache", "--variant", "thumb"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.files(in: folder).count == 3)
        #expect(try Self.manifest(in: folder)["variant"] as? String == "thumb")

        // A variant no entry has (a misspelt name) is said, exit 1, not an empty export that looks done
        let misspelt = try fixture.export(["typo", "--layout", "sdwebimage", "--cache", "cache", "--variant", "thumbs"])
        #expect(misspelt.status == 1 && misspelt.stderr.contains("has a variant `thumbs`"), "\(misspelt.stderr)")

        // A file the export did not write makes it a folder that is not an export's: refused, untouched.
        try fixture.harness.folder.write("out/notes.txt", "mine")
        let refused = try fixture.export(["out", "--layout", "sdwebimage", "job.yaml"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("holds notes.txt, which no export wrote"), "\(refused.stderr)")
        #expect(try Self.files(in: folder).count == 4)
        #expect(try Self.manifest(in: folder)["variant"] as? String == "thumb")

        try fixture.harness.folder.write("other/keep.txt", "mine")
        let foreign = try fixture.export(["other", "--layout", "sdwebimage", "job.yaml"])
        #expect(foreign.status == 2)
        #expect(try Self.files(in: fixture.harness.folder.path + "/other") == ["keep.txt"])
        #expect(try Self.files(in: fixture.harness.folder.path).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test func aMissingLayoutOrCacheIsToldInOneLine() throws {
        let folder = try TemporaryDirectory()
        let noLayout = try Binary.run(["export", "out", "--cache", "cache"], in: folder.url)
        #expect(noLayout.status == 2)
        #expect(noLayout.stderr.contains("give --layout sdwebimage"))
        let wrongLayout = try Binary.run(["export", "out", "--layout", "native", "--cache", "cache"], in: folder.url)
        #expect(wrongLayout.status == 2)
        let noCache = try Binary.run(["export", "out", "--layout", "sdwebimage", "--cache", "cache"], in: folder.url)
        #expect(noCache.status == 3)
        #expect(noCache.stderr.contains("no cache at \(folder.path)/cache"), "\(noCache.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/out"))
    }

    /// A stop signal part way leaves no half-written staging folder beside the destination.
    @Test func aStoppedExportLeavesNothingBehind() throws {
        // Given a cache of 30,000 entries (stored by cache-filler)
        let folder = try TemporaryDirectory()
        let filler = Process()
        filler.executableURL = try Binary.executable("cache-filler")
        filler.arguments = [folder.path + "/cache", "30000"]
        let filled = try Binary.outcome(of: filler)
        try #require(filled.status == 0, "cache-filler: \(filled.stderr)")

        // When its export gets SIGTERM while files are being linked into the staging folder
        let export = Process()
        export.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        export.arguments = ["--default-signal=TERM", Binary.url.path, "export", folder.path + "/out", "--layout", "sdwebimage",
                            "--cache", folder.path + "/cache"]
        export.standardOutput = FileHandle.nullDevice
        export.standardError = FileHandle.nullDevice
        try export.run()
        let deadline = Date().addingTimeInterval(30)
        var staged = 0
        while staged < 1000 && export.isRunning && Date() < deadline {
            let staging = try Self.files(in: folder.path).first { $0.hasPrefix("out.tmp-") }
            staged = staging.map { (try? Self.files(in: folder.path + "/" + $0).count) ?? 0 } ?? 0
            usleep(2_000)
        }
        kill(export.processIdentifier, SIGTERM)
        export.waitUntilExit()

        // Then it exits 143, and neither the destination nor its staging folder is there
        #expect(staged >= 1000, "the export ended before it was stopped")
        #expect(export.terminationStatus == 143)
        #expect(try Self.files(in: folder.path).sorted() == ["cache"])
    }

    /// An export never goes where a cache keeps its own files (an empty fan-out folder would otherwise
    /// be renamed onto, and the cache's next stores land in the export).
    @Test func anExportIntoACachesOwnFolderIsRefused() throws {
        let fixture = try Fixture()
        let cache = fixture.harness.cachePath
        let empty = try #require(CacheFileNaming.nativeFolders.first { (try? Self.files(in: cache + "/" + $0).isEmpty) ?? false })
        for destination in [cache + "/" + empty, cache + "/tmp/export"] {
            let outcome = try fixture.export([destination, "--layout", "sdwebimage", "job.yaml"])
            #expect(outcome.status == 2, "\(outcome.stderr)")
            #expect(outcome.stderr.contains("DST \(destination) is where the cache \(cache) keeps its own files"), "\(outcome.stderr)")
        }
        #expect(try Self.files(in: cache + "/" + empty).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cache + "/tmp/export"))
    }

    @Test func aDestinationThatIsALinkIsRefusedByWhatItIs() throws {
        let fixture = try Fixture()
        let folder = fixture.harness.folder.path
        #expect(try fixture.export([folder + "/real", "--layout", "sdwebimage", "job.yaml"]).status == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/real")
        let outcome = try fixture.export([folder + "/link", "--layout", "sdwebimage", "job.yaml"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("\(folder)/link is a symbolic link to \(folder)/real; give the folder itself"), "\(outcome.stderr)")
    }
}
