import Foundation
import Testing
@testable import PrefetchKit

/// The transform step in a run: variants stored as entries of their own beside their original, made
/// for cached originals without a fetch, remade on a 200 revalidation and not on a 304, and a failed
/// variant failing its URL with nothing stored.
@Suite(.timeLimit(.minutes(3)))
struct RunVariantsTests {
    static let thumb = VariantSpec(name: "thumb", box: .longestSide(64), format: .jpeg, quality: 80)
    static let card = VariantSpec(name: "card", box: .cover(width: 32, height: 32), format: .png)
    static let variants = "variants: [{name: thumb, max_pixel_size: 64, format: jpeg, quality: 80}, {name: card, width: 32, height: 32, fit: cover, format: png}]"

    @Test func aStoredImageGetsEachVariantAsAnEntryLinkedToIt() throws {
        let harness = try RunHarness()
        let path = "/corpus/libjpeg-turbo-testimages/testorig.jpg"
        let job = try harness.job(sets: [harness.set("photos", [path], [Self.variants])])

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 1, unique: 1, fetched: 1, bytes: 5770))
        let key = harness.url(path)
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        let original = try #require(try cache.lookup(key: key))
        #expect(original.variantOf == nil && original.width == 227)
        let variants = try cache.index.variants(ofOriginalAt: original.relativePath)
        #expect(variants.map(\.variant) == ["card", "thumb"])
        for (entry, spec, size) in [(variants[1], Self.thumb, (64, 42)), (variants[0], Self.card, (32, 32))] {
            #expect(entry.key == spec.key(forOriginal: key))
            #expect(entry.relativePath == cache.variantLocation(spec, originalKey: key, format: .jpeg).relativePath)
            #expect(entry.variantOf == original.relativePath && entry.url == key && entry.setName == "photos")
            #expect(entry.format == spec.format.output(for: .jpeg) && entry.width == size.0 && entry.height == size.1, "\(entry)")
            let data = try Data(contentsOf: URL(fileURLWithPath: entry.path))
            #expect(Int64(data.count) == entry.size)
            #expect(entry.checksum == (try ContentHasher.checksum(ofFileAt: entry.path)))
            let decoded = try #require(try ImageValidator(level: .decode).validate(data: [UInt8](data)))
            #expect(decoded.width == size.0 && decoded.height == size.1 && decoded.format == entry.format)
        }
        #expect(try cache.variant(named: "thumb", ofOriginalAt: original.relativePath)?.relativePath == variants[1].relativePath)
    }

    @Test func aRunThatAddsAVariantMakesItFromTheCachedOriginalWithoutFetching() throws {
        let harness = try RunHarness()
        let plain = try harness.job("plain", sets: [harness.set("images", ["/count/added"])])
        let withVariant = try harness.job("with", sets: [harness.set("images", ["/count/added"], ["variants: [{name: small, max_pixel_size: 8}]"])])
        try harness.run([plain])
        #expect(try harness.server.hits("added") == 1)

        let result = try harness.run([withVariant])

        #expect(result.report.totals == .expected(requested: 1, unique: 1, cached: 1))
        #expect(try harness.server.hits("added") == 1)
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        let original = try #require(try cache.lookup(key: harness.url("/count/added")))
        let variant = try #require(try cache.variant(named: "small", ofOriginalAt: original.relativePath))
        // A 1x1 original is not enlarged; `format: same` keeps PNG.
        #expect(variant.width == 1 && variant.height == 1 && variant.format == .png)
    }

    @Test func aLaterSetOfTheSameURLGetsItsOwnVariantsFromOneFetch() throws {
        let harness = try RunHarness()
        // The URL in a high-priority set without variants and in a set that asks for one: fetched once,
        // by the first, and the second's variant made from what it stored.
        let job = try harness.job(sets: [harness.set("plain", ["/count/shared"], ["priority: high"]),
                                         harness.set("thumbs", ["/count/shared"], ["variants: [{name: small, max_pixel_size: 8}]"])])

        let result = try harness.run([job])

        #expect(result.report.totals == .expected(requested: 2, unique: 1, fetched: 1, bytes: Int(result.report.totals.bytes)))
        #expect(try harness.server.hits("shared") == 1)
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        let original = try #require(try cache.lookup(key: harness.url("/count/shared")))
        let variant = try #require(try cache.variant(named: "small", ofOriginalAt: original.relativePath))
        #expect(variant.setName == "thumbs" && variant.variantOf == original.relativePath)
        #expect(try Binary.run(["verify", job]).status == 0)
    }

    @Test func aVariantIsRemadeOnA200RevalidationAndNotOnA304() throws {
        let harness = try RunHarness()
        let name = "variant-\(UUID().uuidString)"
        _ = try harness.server.get("/set-width/\(name)/40")
        let job = try harness.job(defaults: ["refresh": "always"], sets: [harness.set("images", ["/image/\(name)"], ["variants: [{name: small, max_pixel_size: 64}]"])])
        let key = harness.url("/image/\(name)")
        func variant() throws -> CacheEntry {
            let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
            let original = try #require(try cache.lookup(key: key))
            return try #require(try cache.variant(named: "small", ofOriginalAt: original.relativePath))
        }
        try harness.run([job])
        let first = try variant()
        #expect(first.width == 40)

        // A 304: the original is confirmed, the variant left as it was.
        let confirmed = try harness.run([job])
        #expect(confirmed.report.totals == .expected(requested: 1, unique: 1, revalidated: 1))
        #expect(try variant() == first)

        // A 200 with another body: the variant is made again from it.
        _ = try harness.server.get("/set-width/\(name)/50")
        let changed = try harness.run([job])
        #expect(changed.report.totals.fetched == 1)
        let remade = try variant()
        #expect(remade.width == 50 && remade.checksum != first.checksum)
    }

    /// A new body in another format makes `format: same` variants of another extension: those made
    /// from the old body go, so a variant's name finds one file, the new one.
    @Test func aBodyInAnotherFormatLeavesNoVariantOfTheOldOne() throws {
        let harness = try RunHarness()
        let name = "turning-\(UUID().uuidString)"
        let job = try harness.job(defaults: ["refresh": "always"], sets: [harness.set("images", ["/turning/\(name)"], ["variants: [{name: t, max_pixel_size: 16}]"])])
        let key = harness.url("/turning/\(name)")
        try harness.run([job])
        _ = try harness.server.get("/set-width/\(name)/40")

        let changed = try harness.run([job])

        #expect(changed.report.totals.fetched == 1, "\(changed.report.totals)")
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        let original = try #require(try cache.lookup(key: key))
        #expect(original.format == .png)
        let variants = try cache.index.variants(ofOriginalAt: original.relativePath)
        #expect(variants.map(\.format) == [.png] && variants.allSatisfy { $0.relativePath.hasSuffix(".png") }, "\(variants.map(\.relativePath))")
        let path = try Binary.run(["path", key, "--job", job, "--variant", "t"])
        #expect(path.stdout == (variants.first?.path ?? "-") + "\n", "\(path.stdout)")
        #expect(try Binary.run(["fsck", "--cache", harness.cachePath]).status == 0)
    }

    /// Without a kept original, a job's fetch remakes its own variants and leaves another job's, which
    /// no original is left to make again.
    @Test func aBodyWhoseOriginalIsNotKeptLeavesAnotherJobsVariants() throws {
        let harness = try RunHarness()
        let path = "/corpus/libjpeg-turbo-testimages/testorig.jpg"
        let cards = try harness.job("cards", sets: [harness.set("cards", [path], ["keep_original: false", "variants: [{name: card, max_pixel_size: 24}]"])])
        let thumbs = try harness.job("thumbs", sets: [harness.set("thumbs", [path], ["keep_original: false", "variants: [{name: t, max_pixel_size: 16}]"])])
        try harness.run([cards])
        try harness.run([thumbs])
        try harness.run([thumbs])

        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        #expect(try cache.index.allEntries().compactMap(\.variant).sorted() == ["card", "t"])
    }

    /// An original the origin now says not to store goes with the variants made from it.
    @Test func anOriginalRemovedForNoStoreTakesItsVariantsWithIt() throws {
        let harness = try RunHarness()
        let path = "/fresh/nostore-\(UUID().uuidString)/cache-control-on-304/no-store"
        let job = try harness.job(defaults: ["refresh": "http"], sets: [harness.set("images", [path], ["variants: [{name: t, max_pixel_size: 16}]"])])
        try harness.run([job])
        #expect(try DiskCache.open(at: harness.cachePath, layout: .native).index.entryCount() == 2)

        let confirmed = try harness.run([job])

        #expect(confirmed.report.totals.revalidated == 1, "\(confirmed.report.totals)")
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        #expect(try cache.index.entryCount() == 0)
        let files = try FileManager.default.subpathsOfDirectory(atPath: harness.cachePath)
            .filter { DiskCache.isNativeName(($0 as NSString).lastPathComponent, prefix: String($0.prefix(2))) }
        #expect(files.isEmpty, "\(files)")
    }

    /// `format: same` keeps a JPEG a JPEG under `validate: none` too, where no check named the format:
    /// when the body is fetched, and when a later run makes a variant from the cached original.
    @Test func aSameFormatVariantOfAnUncheckedJPEGIsAJPEG() throws {
        let harness = try RunHarness()
        let path = "/corpus/libjpeg-turbo-testimages/testorig.jpg"
        func job(_ variants: String) throws -> String {
            try harness.job(sets: [harness.set("raw", [path], ["validate: none", "variants: [\(variants)]"])])
        }
        try harness.run([try job("{name: t, max_pixel_size: 16}")])
        try harness.run([try job("{name: t, max_pixel_size: 16}, {name: u, max_pixel_size: 24}")])

        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        let original = try #require(try cache.lookup(key: harness.url(path)))
        #expect(original.format == nil)
        let variants = try cache.index.variants(ofOriginalAt: original.relativePath)
        #expect(variants.map(\.variant) == ["t", "u"])
        #expect(variants.allSatisfy { $0.format == .jpeg && $0.relativePath.hasSuffix(".jpg") }, "\(variants.map(\.relativePath))")
    }

    @Test func aVariantThatCannotBeMadeFailsItsURLAndStoresNothing() throws {
        let harness = try RunHarness()
        // Not checked as an image, so the body reaches the transform step, which cannot read it.
        let job = try harness.job(sets: [harness.set("pages", ["/html-as-jpeg"], ["validate: none", "variants: [{name: small, max_pixel_size: 8}]"])])

        let result = try harness.run([job])

        #expect(result.report.failures.map(\.reason) == ["transform_failed"])
        #expect(result.report.failures.first?.message.contains("`small`") == true)
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        #expect(try cache.index.entryCount() == 0)
    }

    @Test func keepOriginalFalseStoresOnlyTheVariants() throws {
        let harness = try RunHarness()
        let path = "/corpus/libjpeg-turbo-testimages/testorig.jpg"
        let job = try harness.job(sets: [harness.set("thumbs", [path], ["keep_original: false", "variants: [{name: t, max_pixel_size: 16}]"])])

        let result = try harness.run([job])

        #expect(result.report.totals.fetched == 1 && result.report.failures.isEmpty)
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        #expect(try cache.lookup(key: harness.url(path)) == nil)
        let entries = try cache.index.allEntries()
        #expect(entries.map(\.variant) == ["t"] && entries.first?.width == 16 && entries.first?.format == .jpeg)
        // and `path` finds no original for the URL (not the variant in its place), but finds the variant
        let original = try Binary.run(["path", harness.url(path), "--job", job])
        #expect(original.status == 1 && original.stdout.isEmpty, "\(original.stdout)")
        let variant = try Binary.run(["path", harness.url(path), "--job", job, "--variant", "t"])
        #expect(variant.status == 0 && variant.stdout == (entries.first?.path ?? "-") + "\n", "\(variant.stdout)\(variant.stderr)")
    }
}
