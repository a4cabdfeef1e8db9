import Foundation
import Testing
@testable import PrefetchKit

/// Every valid PNG, JPEG and WebP of the vendored corpora made into each kind of variant: the right
/// size, a clean decode, and pixels close to ImageMagick's own `-thumbnail` of the same file.
@Suite struct VariantCorpusTests {
    /// The corpus files a variant is made from: valid, and of a format variants keep or make.
    static let sources: [CorpusEntry] = CorpusEntry.all.filter { entry in
        entry.expected == "valid" && ImageCorpusTests.exceptions[entry.description] == nil
            && ["png", "jpg", "jpeg", "webp"].contains(URL(fileURLWithPath: entry.file).pathExtension.lowercased())
    }

    /// The least PSNR on luma, in dB, against ImageMagick's thumbnail.
    static let leastPSNR = 35.0

    /// Files whose variant is farther from ImageMagick's than `leastPSNR`, each with the least it
    /// must still reach and why; every one of them must still have the right size and decode cleanly.
    static let looser: [String: (least: Double, why: String)] = [
        "gif-webp-avif/libwebp-test-data/alpha_color_cache.webp":
            (29, "mostly translucent: libvips reduces premultiplied colour, ImageMagick 6 weights by alpha, and white shows the difference"),
        "gif-webp-avif/image-webp/random_lossless.webp": (32, "uniform noise, 64x63 to 32x32: every pixel is an edge, and the two filters' phases differ by the odd row"),
        "gif-webp-avif/libwebp-test-data/small_31x13.webp": (32, "31x13 to 15x6: an odd reduction of a small image, where the filters' phases differ"),
        "pngsuite/s07i3p02.png": (33, "7x7 to 3x3"),
        "pngsuite/s07n3p02.png": (33, "7x7 to 3x3"),
    ]

    /// PNG files with an EXIF orientation (an eXIf chunk), which libvips applies and ImageMagick 6 does
    /// not read: its reference is turned by hand.
    static let pngTurns = ["image-png-bugfixes/bugfixes/F-exif-chunk-early.png": ["-rotate", "90"]]

    @Test func theCorpusHasEveryKindOfSource() {
        let names = Self.sources.map(\.file)
        #expect(Self.sources.count >= 150, "\(Self.sources.count) sources")
        for kind in ["basn0g16.png", "basn3p08.png", "basn6a16.png", "basn4a08.png", "testorig.jpg"] {
            #expect(names.contains { $0.hasSuffix(kind) }, "\(kind) is among the sources")
        }
        #expect(names.contains { $0.hasSuffix(".webp") })
    }

    @Test(arguments: sources)
    func everySourceYieldsEachVariant(_ entry: CorpusEntry) throws {
        let folder = try TemporaryDirectory()
        let info = try #require(try ImageValidator(level: .decode).validate(fileAt: entry.path), "\(entry)")
        guard [.png, .jpeg, .webp].contains(info.format) else { return }

        // ImageMagick's -thumbnail with the filter the variants use: its default for palette, grey
        // and alpha images is Mitchell, which differs from Lanczos3 by more than the bound on the
        // synthetic patterns of PngSuite. Orientation applied, as the variants do.
        let reference = [entry.path + "[0]", "-auto-orient"] + (Self.pngTurns[entry.description] ?? []) + ["-filter", "Lanczos"]
        let least = Self.looser[entry.description]?.least ?? Self.leastPSNR
        let turned = Self.pngTurns[entry.description] != nil
        let (width, height) = turned ? (info.height, info.width) : (info.width, info.height)
        let longest = max(width, height)

        // Given `max_pixel_size` half the longest side: the longest side is that, the aspect kept
        // within a pixel.
        let side = max(1, longest / 2)
        let inside = try VariantMaker.make(VariantSpec(name: "inside", box: .longestSide(side), format: .png), fromFileAt: entry.path, format: info.format)
        let scale = Double(side) / Double(longest)
        #expect(max(inside.width, inside.height) == side, "\(entry): \(width)x\(height) -> \(inside.width)x\(inside.height)")
        #expect(abs(Double(inside.width) - Double(width) * scale) <= 1 && abs(Double(inside.height) - Double(height) * scale) <= 1,
                "\(entry): \(width)x\(height) -> \(inside.width)x\(inside.height)")
        try expectCleanDecode(inside, entry)
        let made = try folder.write("inside.png", inside.data).path
        let referencePath = folder.file("reference.png").path
        try ImageMagick.convert(reference + ["-thumbnail", "\(side)x\(side)>", referencePath])
        let psnr = try ImageMagick.lumaPSNR(made, referencePath, in: folder.url)
        #expect(psnr >= least, "\(entry): luma PSNR \(psnr) dB against convert -thumbnail")

        // Given a `cover` box narrower than the image both ways: exactly the box, the centre kept.
        let box = (width: max(1, width * 2 / 3), height: max(1, height / 2))
        let cover = try VariantMaker.make(VariantSpec(name: "cover", box: .cover(width: box.width, height: box.height), format: .png),
                                          fromFileAt: entry.path, format: info.format)
        #expect(cover.width == box.width && cover.height == box.height, "\(entry): \(width)x\(height) -> \(cover.width)x\(cover.height), box \(box)")
        try expectCleanDecode(cover, entry)

        // A box larger than the image: not enlarged.
        let larger = try VariantMaker.make(VariantSpec(name: "larger", box: .longestSide(longest + 10), format: .png), fromFileAt: entry.path, format: info.format)
        #expect(larger.width == width && larger.height == height, "\(entry): \(width)x\(height) -> \(larger.width)x\(larger.height)")

        // And as JPEG at quality 80, whatever the original's format.
        let lossy = try VariantMaker.make(VariantSpec(name: "jpeg", box: .longestSide(side), format: .jpeg, quality: 80), fromFileAt: entry.path, format: info.format)
        #expect(lossy.format == .jpeg && lossy.width == inside.width && lossy.height == inside.height, "\(entry)")
        try expectCleanDecode(lossy, entry)
    }

    /// Each of the eight EXIF orientations of one JPEG comes out upright: as ImageMagick's
    /// `-auto-orient` turns it, and not as the pixels lie in the file; as a PNG variant (libvips) and
    /// as a JPEG one (the fast path, `TurboVariant`, which turns the small result itself).
    @Test(arguments: 1...8, [VariantSpec.Format.png, .jpeg])
    func exifOrientedJPEGsComeOutUpright(_ orientation: Int, _ format: VariantSpec.Format) throws {
        let folder = try TemporaryDirectory()
        let original = CorpusEntry.root + "/libjpeg-turbo-testimages/testorig.jpg"
        let rotated = folder.file("oriented.jpg").path
        let tagged = try ImageMagick.run(ImageMagick.exiftool, ["-n", "-Orientation=\(orientation)", "-o", rotated, original])
        try #require(tagged.status == 0, "exiftool: \(tagged.stderr)")
        let spec = VariantSpec(name: "upright", box: .longestSide(64), format: format, quality: 95)
        let variant = try VariantMaker.make(spec, fromFileAt: rotated, format: .jpeg)
        #expect(variant.maker == (format == .jpeg ? .libjpegTurbo : .libvips))
        // testorig.jpg is 227x149; orientations 5 to 8 turn it a quarter.
        let turned = orientation >= 5
        #expect(variant.width == (turned ? 42 : 64) && variant.height == (turned ? 64 : 42), "\(variant.width)x\(variant.height)")
        let made = try folder.write("variant.\(format.rawValue)", variant.data).path
        let upright = folder.file("upright.png").path
        try ImageMagick.convert([rotated, "-auto-orient", "-filter", "Lanczos", "-thumbnail", "64x64", upright])
        #expect(try ImageMagick.lumaPSNR(made, upright, in: folder.url) >= Self.leastPSNR)
        if orientation != 1 {
            // The same thumbnail without the turn is far from it: the check above can tell.
            let asStored = folder.file("as-stored.png").path
            try ImageMagick.convert([original, "-thumbnail", turned ? "64x64!" : "64x42!", "-resize", "\(variant.width)x\(variant.height)!", asStored])
            #expect(try ImageMagick.lumaPSNR(made, asStored, in: folder.url) < 25)
        }
    }

    @Test func aDamagedOriginalFailsWithItsReasonAndNoOutput() throws {
        let damaged = CorpusEntry.root + "/libpng-testpngs/crashers/badcrc.png"
        let spec = VariantSpec(name: "inside", box: .longestSide(8), format: .png)
        #expect(throws: VariantError.self) { try VariantMaker.make(spec, fromFileAt: damaged, format: .png) }
        do {
            _ = try VariantMaker.make(spec, fromFileAt: damaged, format: .png)
        } catch {
            #expect(error.reason == "transform_failed")
            #expect(error.description.contains("`inside`") && error.description.contains("libpng"), "\(error)")
        }
    }

    private func expectCleanDecode(_ made: VariantMaker.Made, _ entry: CorpusEntry, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let decoded = try #require(try ImageValidator(level: .decode).validate(data: [UInt8](made.data)), sourceLocation: sourceLocation)
        #expect(decoded.format == made.format && decoded.width == made.width && decoded.height == made.height,
                "\(entry): \(decoded)", sourceLocation: sourceLocation)
        #expect(decoded.warnings.isEmpty, "\(entry): \(decoded)", sourceLocation: sourceLocation)
    }
}
