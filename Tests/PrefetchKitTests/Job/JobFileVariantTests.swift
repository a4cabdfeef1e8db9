import Foundation
import Testing
@testable import PrefetchKit

/// `variants:` and `keep_original:`: values, inheritance from `defaults`, the stable variant key, and
/// every refused combination with its position.
@Suite struct JobFileVariantTests {
    @Test func variantsAreReadAndInheritedFromDefaults() throws {
        let folder = try TemporaryDirectory()
        let job = try folder.load("""
            version: 1
            defaults:
              variants:
                - {name: thumb, max_pixel_size: 256, format: jpeg, quality: 70}
                - {name: screen, width: 1080, height: 720, fit: cover}
            sets:
              - name: inherits
                urls: ["https://x.example/1.png"]
              - name: own
                urls: ["https://x.example/2.png"]
                variants: [{name: wide, width: 640, format: webp}]
                keep_original: false
              - name: none
                urls: ["https://x.example/3.png"]
                variants: []
            """)
        let inherited = job.sets[0].options
        #expect(inherited.variants == [
            VariantSpec(name: "thumb", box: .longestSide(256), format: .jpeg, quality: 70),
            VariantSpec(name: "screen", box: .cover(width: 1080, height: 720), format: .same, quality: 80),
        ])
        #expect(inherited.keepOriginal)
        #expect(job.sets[1].options.variants == [VariantSpec(name: "wide", box: .inside(width: 640, height: nil), format: .webp)])
        #expect(!job.sets[1].options.keepOriginal)
        #expect(job.sets[2].options.variants.isEmpty)
        #expect(JobOptions().variants.isEmpty && JobOptions().keepOriginal)
    }

    @Test func theVariantKeyIsStableAndChangesWithEveryParameter() {
        let thumb = VariantSpec(name: "thumb", box: .longestSide(256), format: .jpeg, quality: 80)
        #expect(thumb.key(forOriginal: "https://x.example/a.png") == "https://x.example/a.png#variant=thumb;max=256;format=jpeg;quality=80")
        let cover = VariantSpec(name: "card", box: .cover(width: 300, height: 200))
        #expect(cover.key(forOriginal: "k") == "k#variant=card;width=300;height=200;fit=cover;format=same;quality=80")
        let inside = VariantSpec(name: "tall", box: .inside(width: nil, height: 500), format: .png)
        #expect(inside.key(forOriginal: "k") == "k#variant=tall;height=500;fit=inside;format=png;quality=80")
        var other = thumb
        other.quality = 81
        #expect(other.key(forOriginal: "k") != thumb.key(forOriginal: "k"))
        other = thumb
        other.box = .longestSide(257)
        #expect(other.key(forOriginal: "k") != thumb.key(forOriginal: "k"))
        #expect(VariantSpec.Format.same.output(for: .gif) == .png && VariantSpec.Format.same.output(for: .webp) == .webp)
    }

    @Test func contradictoryAndUnknownVariantKeysArePlaced() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults:
              variants:
                - {name: a, max_pixel_size: 256, width: 100}
                - {name: b, width: 100, fit: cover}
                - {name: c, max_pixel_size: 0}
                - {name: d, max_pixel_size: 10, format: png, quality: 50}
                - {name: e, max_pixel_size: 10, colour: red}
                - {name: a, max_pixel_size: 20}
                - {max_pixel_size: 20}
                - {name: "a b", max_pixel_size: 20}
                - {name: f}
                - {name: g, max_pixel_size: 10, format: gif}
                - {name: h, max_pixel_size: 10, quality: 101}
                - {name: i, height: 10, fit: fill}
            sets:
              - name: s
                urls: ["https://x.example/1.png"]
              - name: t
                urls: ["https://x.example/2.png"]
                keep_original: false
                variants: []
            """)
        expectDiagnostic(diagnostics, line: 4, column: 38, keyPath: "defaults.variants[0].width", contains: "contradicts `max_pixel_size`")
        expectDiagnostic(diagnostics, line: 5, column: 34, keyPath: "defaults.variants[1].fit", contains: "`fit: cover` needs both `width` and `height`")
        expectDiagnostic(diagnostics, line: 6, column: 33, keyPath: "defaults.variants[2].max_pixel_size", contains: "out of range")
        expectDiagnostic(diagnostics, line: 7, column: 50, keyPath: "defaults.variants[3].quality", contains: "PNG is lossless")
        expectDiagnostic(diagnostics, line: 8, column: 37, keyPath: "defaults.variants[4].colour", contains: "unknown key `colour`")
        expectDiagnostic(diagnostics, line: 9, column: 14, keyPath: "defaults.variants[5].name", contains: "duplicate variant name `a`; first used at line 4")
        expectDiagnostic(diagnostics, line: 10, column: 7, keyPath: "defaults.variants[6]", contains: "missing `name`")
        expectDiagnostic(diagnostics, line: 11, column: 14, keyPath: "defaults.variants[7].name", contains: "is not a variant name")
        expectDiagnostic(diagnostics, line: 12, column: 7, keyPath: "defaults.variants[8]", contains: "needs `max_pixel_size` or `width`/`height`")
        expectDiagnostic(diagnostics, line: 13, column: 45, keyPath: "defaults.variants[9].format", contains: "unknown value `gif`")
        expectDiagnostic(diagnostics, line: 14, column: 46, keyPath: "defaults.variants[10].quality", contains: "out of range")
        expectDiagnostic(diagnostics, line: 15, column: 34, keyPath: "defaults.variants[11].fit", contains: "unknown value `fill`")
        expectDiagnostic(diagnostics, line: 21, column: 20, keyPath: "sets[1].keep_original", contains: "needs at least one variant")
        #expect(diagnostics.count == 13, "\(diagnostics)")
    }

    @Test func keepOriginalFalseNeedsAVariantFromTheSetOrItsDefaults() throws {
        let folder = try TemporaryDirectory()
        let diagnostics = try folder.diagnostics("""
            version: 1
            defaults: {keep_original: false}
            sets:
              - name: bare
                urls: ["https://x.example/1.png"]
            """)
        expectDiagnostic(diagnostics, line: 4, column: 5, keyPath: "sets[0]", contains: "`keep_original: false` needs at least one variant")
        #expect(diagnostics.count == 1)
        let job = try folder.load("""
            version: 1
            defaults: {keep_original: false}
            sets:
              - name: thumbs
                urls: ["https://x.example/1.png"]
                variants: [{name: t, max_pixel_size: 64}]
            """)
        #expect(!job.sets[0].options.keepOriginal && job.sets[0].options.variants.count == 1)
    }
}
