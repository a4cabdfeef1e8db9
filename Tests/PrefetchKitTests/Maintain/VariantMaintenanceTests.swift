import Foundation
import Testing
@testable import PrefetchKit

/// Variants beside the run: `clean` and `remove` take them with their original, `verify` misses them,
/// `path` finds them, `stats` counts them apart.
@Suite(.timeLimit(.minutes(3)))
struct VariantMaintenanceTests {
    static let day: TimeInterval = 86_400
    static let thumb = VariantSpec(name: "thumb", box: .longestSide(8), format: .png)

    /// Stores `count` originals (1x1 PNGs of distinct bytes) and a variant of each; returns their keys.
    private func cacheWithVariants(_ cache: DiskCache, count: Int) throws -> [String] {
        let png = try Data(contentsOf: URL(fileURLWithPath: CorpusEntry.root + "/pngsuite/basn2c08.png"))
        var keys: [String] = []
        for number in 0..<count {
            let key = "https://x.example/\(number).png"
            try cache.store(data: png, as: NewEntry(url: key, key: key, setName: "main", format: .png, width: 32, height: 32))
            let made = try VariantMaker.make(Self.thumb, from: png, format: .png)
            let location = cache.variantLocation(Self.thumb, originalKey: key, format: .png)
            try cache.storeVariant(made, at: location, url: key, setName: "main", variant: "thumb",
                                   originalPath: cache.relativePath(forKey: key))
            keys.append(key)
        }
        try cache.flush()
        return keys
    }

    @Test func cleanRemovesAVariantWithItsOriginalAndKeepsTheOthers() throws {
        try TemporaryDirectory.withPath { folder in
            // Given two originals with a variant each, the first original long unused, its variant used now
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try cacheWithVariants(cache, count: 2)
            let now = Date()
            try setClocks(cache, key: keys[0], fetched: now.addingTimeInterval(-10 * Self.day),
                          modified: now.addingTimeInterval(-10 * Self.day), accessed: now.addingTimeInterval(-10 * Self.day))
            let variants = try keys.map { key in
                try #require(try cache.variant(named: "thumb", ofOriginalAt: cache.relativePath(forKey: key)))
            }

            // When a clean expires what was not used for a week
            let report = try CacheCleaner(cache, policy: testPolicy(maxAge: 7 * Self.day)).run(now: now)

            // Then the old original went, and its variant with it, though the variant itself was recent
            #expect(try cache.lookup(key: keys[0]) == nil)
            #expect(!FileManager.default.fileExists(atPath: variants[0].path))
            #expect(try cache.index.variants(ofOriginalAt: cache.relativePath(forKey: keys[0])).isEmpty)
            #expect(report.expired.entries == 2)
            // And the other original keeps its variant
            #expect(try cache.lookup(key: keys[1]) != nil)
            #expect(FileManager.default.fileExists(atPath: variants[1].path))
            #expect(try cache.index.entryCount() == 2)
        }
    }

    /// fsck --repair takes an original's variants with it, whether its file was gone or bad.
    @Test func fsckRepairDropsTheVariantsOfAnOriginalItDrops() throws {
        try TemporaryDirectory.withPath { folder in
            // Given three originals with a variant each, the first's file gone and the second's cut short
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try cacheWithVariants(cache, count: 3)
            let originals = try keys.map { try #require(try cache.lookup(key: $0)) }
            #expect(unlink(originals[0].path) == 0)
            #expect(truncate(originals[1].path, 10) == 0)

            let repair = try Binary.run(["fsck", "--cache", folder, "--repair"])

            // Then both go with their variants, and the third keeps its own
            #expect(repair.status == 1, "\(repair.stdout)\(repair.stderr)")
            let after = try #require(try DiskCache.openExisting(at: folder, for: .read))
            #expect(try after.index.entryCount() == 2)
            #expect(try after.variant(named: "thumb", ofOriginalAt: originals[2].relativePath) != nil)
            for original in originals.prefix(2) {
                #expect(try after.variant(named: "thumb", ofOriginalAt: original.relativePath) == nil)
            }
            #expect(try Binary.run(["fsck", "--cache", folder]).status == 0)
        }
    }

    @Test func statsCountsVariantsApart() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try cacheWithVariants(cache, count: 3)
            let variantBytes = try keys.map { key in
                try #require(try cache.variant(named: "thumb", ofOriginalAt: cache.relativePath(forKey: key))).size
            }.reduce(0, +)

            let stats = try CacheStats.collect(from: cache)

            #expect(stats.entries == 6)
            #expect(stats.variants.entries == 3 && stats.variants.bytes == variantBytes)
            #expect(StatsText.render(stats).contains("variants   3 of the entries"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(StatsJSON.render(stats).utf8)) as? [String: Any])
            let counted = try #require(json["variants"] as? [String: Any])
            #expect(counted["entries"] as? Int == 3 && (counted["bytes"] as? NSNumber)?.int64Value == variantBytes)
            #expect(StatsHTML.render(stats).contains(
                "<p>3 variants (\(ByteFormat.human(variantBytes))), counted apart from 3 originals (\(ByteFormat.human(stats.bytes - variantBytes)))."))
        }
    }

    @Test func verifyMissesAVariantAndPathFindsIt() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try cacheWithVariants(cache, count: 1)
            let jobFolder = try TemporaryDirectory()
            func job(_ variants: String) throws -> Job {
                try jobFolder.load("""
                    version: 1
                    cache: {path: "\(folder)"}
                    sets:
                      - name: main
                        urls: ["\(keys[0])"]
                        variants: \(variants)
                    """)
            }
            let original = cache.relativePath(forKey: keys[0])

            // The variant the cache holds: nothing to report, and `path --variant` finds its file.
            let present = try #require(try Verifier.verify(try job("[{name: thumb, max_pixel_size: 8, format: png}]")) { _ in })
            #expect(present.findings.isEmpty && present.fresh == 1)
            let path = try #require(try cache.variantPath(named: "thumb", ofOriginalAt: original))
            #expect(path.hasSuffix(".png") && FileManager.default.fileExists(atPath: path))

            // Another quality or another name is another variant, which the cache lacks.
            let changed = try #require(try Verifier.verify(try job("[{name: thumb, max_pixel_size: 8, format: jpeg}, {name: big, max_pixel_size: 4}]")) { _ in })
            #expect(changed.findings.map(\.line) == ["missing \(keys[0]) variant thumb", "missing \(keys[0]) variant big"])
            #expect(try cache.variantPath(named: "big", ofOriginalAt: original) == nil)
        }
    }

    @Test func pathWithAJobFindsTheVariantThatJobMakesNotTheNewestOfTheName() throws {
        try TemporaryDirectory.withPath { folder in
            // Given an original with the job's `thumb` (8 px) and, made later, another job's `thumb` (4 px)
            let cache = try DiskCache.open(at: folder, layout: .native)
            let key = try cacheWithVariants(cache, count: 1)[0]
            let png = try Data(contentsOf: URL(fileURLWithPath: CorpusEntry.root + "/pngsuite/basn2c08.png"))
            let other = VariantSpec(name: "thumb", box: .longestSide(4), format: .png)
            Thread.sleep(forTimeInterval: 1.1)
            try cache.storeVariant(try VariantMaker.make(other, from: png, format: .png),
                                   at: cache.variantLocation(other, originalKey: key, format: .png), url: key, setName: "other",
                                   variant: "thumb", originalPath: cache.relativePath(forKey: key))
            try cache.flush()
            let jobs = try TemporaryDirectory()
            let job = try jobs.write("job.yaml", """
                version: 1
                cache: {path: "\(folder)"}
                sets:
                  - {name: main, urls: ["\(key)"], variants: [{name: thumb, max_pixel_size: 8, format: png}]}
                """).path

            // Then `path --job` prints the job's own, and without a job the newest of the name
            let withJob = try Binary.run(["path", key, "--job", job, "--variant", "thumb"])
            let byName = try Binary.run(["path", key, "--cache", folder, "--variant", "thumb"])
            #expect(withJob.status == 0 && byName.status == 0, "\(withJob.stderr)\(byName.stderr)")
            let expected = cache.variantLocation(Self.thumb, originalKey: key, format: .png).relativePath
            #expect(withJob.stdout == folder + "/" + expected + "\n", "\(withJob.stdout)")
            #expect(byName.stdout == folder + "/" + cache.variantLocation(other, originalKey: key, format: .png).relativePath + "\n",
                    "\(byName.stdout)")
        }
    }

    @Test func removeByJobTakesTheVariantsAndItsDryRunListsThem() throws {
        try TemporaryDirectory.withPath { folder in
            // Given two originals with a variant each, and a third URL whose set kept only its variant
            let cache = try DiskCache.open(at: folder, layout: .native)
            var keys = try cacheWithVariants(cache, count: 2)
            let png = try Data(contentsOf: URL(fileURLWithPath: CorpusEntry.root + "/pngsuite/basn2c08.png"))
            let alone = "https://x.example/alone.png"
            try cache.storeVariant(try VariantMaker.make(Self.thumb, from: png, format: .png),
                                   at: cache.variantLocation(Self.thumb, originalKey: alone, format: .png), url: alone,
                                   setName: "main", variant: "thumb", originalPath: cache.relativePath(forKey: alone))
            try cache.flush()
            keys.append(alone)
            let jobs = try TemporaryDirectory()
            let job = try jobs.write("job.yaml", """
                version: 1
                cache: {path: "\(folder)"}
                sets:
                  - {name: main, urls: ["\(keys[0])", "\(keys[1])"], variants: [{name: thumb, max_pixel_size: 8, format: png}]}
                  - {name: alone, keep_original: false, urls: ["\(alone)"], variants: [{name: thumb, max_pixel_size: 8, format: png}]}
                """).path

            // When the job's URLs are removed, after a dry run
            let dry = try Binary.run(["remove", "--job", job, "--dry-run"])
            let real = try Binary.run(["remove", "--job", job])

            // Then the dry run lists the five entries the remove takes, variants and the lone one included
            #expect(dry.status == 0 && dry.stdout.split(separator: "\n").filter { $0.hasPrefix("would remove ") }.count == 5, "\(dry.stdout)")
            #expect(dry.stdout.contains("would remove 5 entries"), "\(dry.stdout)")
            #expect(real.status == 0 && real.stdout.hasPrefix("remove: removed 5 entries"), "\(real.stdout)\(real.stderr)")
            #expect(try DiskCache.open(at: folder, layout: .native).index.entryCount() == 0)
        }
    }

    @Test func verifyHoldsEachSetOfAURLToItsOwnVariants() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try cacheWithVariants(cache, count: 1)
            let jobFolder = try TemporaryDirectory()
            // The same URL in a set without variants, listed first, and in one that asks for a variant
            // the cache lacks: that set's variant is reported, not hidden by the first set's verdict.
            let job = try jobFolder.load("""
                version: 1
                cache: {path: "\(folder)"}
                sets:
                  - {name: plain, priority: high, urls: ["\(keys[0])"]}
                  - {name: thumbs, urls: ["\(keys[0])"], variants: [{name: big, max_pixel_size: 4}]}
                  - {name: more, urls: ["\(keys[0])"], variants: [{name: big, max_pixel_size: 4}]}
                """)
            let result = try #require(try Verifier.verify(job) { _ in })
            #expect(result.findings.map(\.line) == ["missing \(keys[0]) variant big"])
            #expect(result.urls == 3 && result.checked == 2 && result.fresh == 1)
        }
    }
}
