import Foundation
import Testing
@testable import PrefetchKit

/// Which path a run's JPEG variants take: the bytes a run stores are the fast path's (made from the
/// pixels of the decode check, or of a cached original's file), told apart from libvips' by content.
@Suite(.timeLimit(.minutes(3)))
struct RunVariantPathTests {
    static let thumb = VariantSpec(name: "thumb", box: .longestSide(64), format: .jpeg, quality: 80)
    static let variants = "variants: [{name: thumb, max_pixel_size: 64, format: jpeg, quality: 80}]"
    static let path = "/corpus/libjpeg-turbo-testimages/testorig.jpg"
    static let original = CorpusEntry.root + "/libjpeg-turbo-testimages/testorig.jpg"

    @Test func aFetchedJPEGsVariantIsMadeFromTheCheckDecode() throws {
        let harness = try RunHarness()
        try harness.run([try harness.job(sets: [harness.set("photos", [Self.path], [Self.variants])])])
        try expectFastPathBytes(harness)
    }

    @Test func aCachedJPEGGainingAVariantTakesTheFastPathToo() throws {
        let harness = try RunHarness()
        try harness.run([try harness.job("plain", sets: [harness.set("photos", [Self.path])])])
        let result = try harness.run([try harness.job("with", sets: [harness.set("photos", [Self.path], [Self.variants])])])
        #expect(result.report.totals == .expected(requested: 1, unique: 1, cached: 1))
        try expectFastPathBytes(harness)
    }

    private func expectFastPathBytes(_ harness: RunHarness, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let cache = try DiskCache.open(at: harness.cachePath, layout: .native)
        let original = try #require(try cache.lookup(key: harness.url(Self.path)), sourceLocation: sourceLocation)
        let stored = try #require(try cache.variant(named: "thumb", ofOriginalAt: original.relativePath), sourceLocation: sourceLocation)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: stored.path))
        let fast = try VariantMaker.make(Self.thumb, fromFileAt: Self.original, format: .jpeg)
        let vips = try VariantMaker.libvips(Self.thumb, fromFileAt: Self.original, format: .jpeg)
        #expect(fast.maker == .libjpegTurbo && vips.maker == .libvips, sourceLocation: sourceLocation)
        #expect(fast.data != vips.data, "the two paths' bytes differ, so the check below can tell them apart", sourceLocation: sourceLocation)
        #expect(bytes == fast.data, "the stored variant is the fast path's", sourceLocation: sourceLocation)
        #expect(stored.width == 64 && stored.height == 42, sourceLocation: sourceLocation)
    }
}
