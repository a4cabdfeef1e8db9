import Foundation
import Testing
@testable import PrefetchKit

/// Variants of AVIF originals: libvips reads AVIF through libheif, which opens no image sequence, so
/// an animated AVIF's variant is made of its first frame decoded by libavif; stills go on through
/// libvips' own loader.
@Suite struct AVIFVariantTests {
    /// Every AVIF of the vendored corpora that the decode check passes.
    static let sources: [CorpusEntry] = CorpusEntry.all.filter { entry in
        entry.file.hasSuffix(".avif") && (try? ImageValidator(level: .decode).validate(fileAt: entry.path)) != nil
    }

    @Test func theSourcesHoldStillsAndSequences() throws {
        let frames = try Self.sources.map { try #require(try ImageValidator(level: .decode).validate(fileAt: $0.path)).frames }
        #expect(frames.contains(1), "a still")
        #expect(frames.filter { $0 > 1 }.count >= 4, "sequences: \(frames)")
    }

    @Test(arguments: sources)
    func everyCheckedAVIFYieldsItsVariant(_ entry: CorpusEntry) throws {
        #expect(try expectHalfSizeVariant(of: entry, format: .avif).maker == .libvips)
    }

    /// The first frame's colour at the centre, as Pillow 13 (with its own libavif 1.x) decodes frame 0
    /// of these solid-colour sequences: black, and for the 12-bit one, pink.
    @Test(arguments: [("colors-animated-8bpc.avif", [0, 0, 0]), ("colors-animated-12bpc-keyframes-0-2-3.avif", [255, 120, 255])])
    func anAnimatedAVIFsVariantIsItsFirstFrame(_ file: String, _ colour: [Int]) throws {
        let folder = try TemporaryDirectory()
        let path = CorpusEntry.root + "/gif-webp-avif/libavif/" + file
        let made = try VariantMaker.make(VariantSpec(name: "thumb", box: .longestSide(32), format: .png), fromFileAt: path, format: .avif)
        let png = try folder.write("thumb.png", made.data).path
        let pixel = try ImageMagick.run(ImageMagick.convert, [png, "-crop", "1x1+16+16", "-depth", "8", "-alpha", "off", "txt:-"])
        try #require(pixel.status == 0, "\(pixel.stderr)")
        // "0,0: (255,120,255)  #FF78FF  srgb(255,120,255)"
        let values = try #require(pixel.stdout.split(separator: "\n").last.flatMap { line in
            line.firstRange(of: "(").map { line[$0.upperBound...].prefix { $0 != ")" } }
        }).split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { Int($0.rounded()) }
        #expect(values.count == 3, "\(pixel.stdout)")
        for (value, expected) in zip(values, colour) {
            #expect(abs(value - expected) <= 3, "\(file): \(values) against \(colour)")
        }
    }
}
