import Foundation
import Testing
@testable import PrefetchKit

/// The variants' fast path (a JPEG variant of a JPEG made from the pixels the decode check kept):
/// every valid JPEG of the vendored corpora, and kinds made from one of them, yields the right size,
/// a clean decode and pixels close to ImageMagick's `-thumbnail`; each result says which path made
/// it, so a fast path that silently fell back to libvips fails here. (Its EXIF orientations are
/// VariantCorpusTests'.)
@Suite struct TurboVariantTests {
    /// The valid JPEGs of the vendored corpora.
    static let jpegs: [CorpusEntry] = CorpusEntry.all.filter { entry in
        entry.expected == "valid" && ["jpg", "jpeg"].contains(URL(fileURLWithPath: entry.file).pathExtension.lowercased())
    }

    /// Every JPEG of the manifests, whatever its verdict.
    static let allJPEGs: [CorpusEntry] = CorpusEntry.all.filter { entry in
        ["jpg", "jpeg"].contains(URL(fileURLWithPath: entry.file).pathExtension.lowercased())
    }

    static let testorig = CorpusEntry.root + "/libjpeg-turbo-testimages/testorig.jpg"

    /// Kinds of JPEG made from testorig.jpg by ImageMagick, each with the path it must take: grey,
    /// progressive, unsubsampled, 4:2:2 and larger ones go the fast path (the larger at DCT scales other
    /// than 1/2); CMYK and an embedded ICC profile go to libvips, which converts them.
    static let kinds: [(name: String, arguments: [String], maker: VariantMaker.Maker)] = [
        ("grey", ["-colorspace", "Gray"], .libjpegTurbo),
        ("progressive", ["-interlace", "Plane"], .libjpegTurbo),
        ("unsubsampled", ["-sampling-factor", "1x1"], .libjpegTurbo),
        ("four-two-two", ["-sampling-factor", "2x1"], .libjpegTurbo),
        ("three-times", ["-resize", "300%"], .libjpegTurbo),
        ("tall", ["-rotate", "90", "-resize", "250%"], .libjpegTurbo),
        ("cmyk", ["-colorspace", "CMYK"], .libvips),
        ("icc", ["-profile", CorpusEntry.root + "/libjpeg-turbo-testimages/test1.icc"], .libvips),
    ]

    @Test func theCorpusHasJPEGs() {
        #expect(Self.jpegs.map(\.file).contains("testorig.jpg"))
        #expect(Self.jpegs.count >= 3, "\(Self.jpegs.count) JPEGs")
    }

    @Test(arguments: jpegs)
    func everyValidJPEGGoesTheFastPath(_ entry: CorpusEntry) throws {
        try expectFastVariants(of: entry.path, maker: .libjpegTurbo, "\(entry)")
    }

    @Test(arguments: kinds.map(\.name))
    func eachKindTakesItsPath(_ name: String) throws {
        let kind = try #require(Self.kinds.first { $0.name == name })
        let folder = try TemporaryDirectory()
        let made = folder.file("\(name).jpg").path
        try ImageMagick.convert([Self.testorig] + kind.arguments + ["-quality", "95", made])
        try expectFastVariants(of: made, maker: kind.maker, name)
    }

    /// An RGB JPEG (components R, G and B, no colour transform; cjpeg -rgb, which ImageMagick 6 does
    /// not write) takes the fast path too: its planes are converted by the encoder.
    @Test func anRGBJPEGGoesTheFastPath() throws {
        let folder = try TemporaryDirectory()
        let pixels = folder.file("testorig.ppm").path, made = folder.file("rgb.jpg").path
        try ImageMagick.convert([Self.testorig, pixels])
        let outcome = try ImageMagick.run(ImageMagick.cjpeg, ["-rgb", "-quality", "95", "-outfile", made, pixels])
        try #require(outcome.status == 0, "cjpeg -rgb: \(outcome.stderr)")
        // The frame header names its components R, G and B.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: made)))
        let frame = try #require((0..<bytes.count - 16).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        #expect([bytes[frame + 10], bytes[frame + 13], bytes[frame + 16]] == Array("RGB".utf8))
        try expectFastVariants(of: made, maker: .libjpegTurbo, "rgb")
    }

    /// A JPEG whose sampling factors do not divide the largest, which libjpeg-turbo's upsampler
    /// refuses (raw data would not), is not kept and gets the check's own verdict: testorig.jpg with
    /// its Cb sampled 3x1 against the luma's 2x2.
    @Test func aFractionallySampledJPEGKeepsTheChecksVerdict() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.testorig)))
        let frame = try #require((0..<bytes.count - 16).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        try #require(bytes[frame + 11] == 0x22 && bytes[frame + 14] == 0x11)
        bytes[frame + 14] = 0x31
        let folder = try TemporaryDirectory()
        let path = try folder.write("fractional.jpg", Data(bytes)).path
        let validator = ImageValidator(level: .decode)
        let plain = Result { () throws(ImageError) in try validator.validate(fileAt: path) }
        let keeping = Result { () throws(ImageError) in
            try validator.validate(fileAt: path, head: Array(bytes.prefix(4096)), size: Int64(bytes.count),
                                   keepingFor: VariantMaker.Box(width: 64, height: 64)).info
        }
        guard case .failure(let without) = plain, case .failure(let with) = keeping else {
            Issue.record("\(plain) without keeping, \(keeping) keeping")
            return
        }
        #expect("\(without)".contains("Fractional sampling not implemented"))
        #expect(with.reason == without.reason && "\(with)" == "\(without)")
    }

    /// A halved chroma plane of an odd width or height has a last sample that covers one column or
    /// row; its grid must start at the upright image's edge whatever the EXIF orientation. Two-pixel
    /// red and blue stripes across an odd width are the case a misplaced grid shows most: the
    /// variant (the image's own size, quality 80, chroma halved) must match libjpeg's own 4:2:0
    /// encoding of the upright pixels (cjpeg) within 0.1 dB, over all three channels.
    @Test(arguments: [1, 2, 3, 6, 8])
    func halvedChromaOfAnOddSizeSitsOnTheUprightGrid(_ orientation: Int) throws {
        let folder = try TemporaryDirectory()
        let (width, height) = (201, 61)
        var stripes = Array("P6\n\(width) \(height)\n255\n".utf8)
        for _ in 0..<height {
            for x in 0..<width { stripes += (x / 2) % 2 == 0 ? [255, 0, 0] : [0, 0, 255] }
        }
        let pixels = try folder.write("stripes.ppm", Data(stripes)).path
        let stored = folder.file("stripes.jpg").path, original = folder.file("oriented.jpg").path
        try ImageMagick.convert([pixels, "-sampling-factor", "1x1", "-quality", "100", stored])
        let tagged = try ImageMagick.run(ImageMagick.exiftool, ["-n", "-Orientation=\(orientation)", "-o", original, stored])
        try #require(tagged.status == 0, "exiftool: \(tagged.stderr)")
        let variant = try VariantMaker.make(VariantSpec(name: "same", box: .longestSide(1000), format: .jpeg, quality: 80),
                                            fromFileAt: original, format: .jpeg)
        #expect(variant.maker == .libjpegTurbo)
        let made = try folder.write("variant.jpg", variant.data).path
        let upright = folder.file("upright.ppm").path, reference = folder.file("reference.jpg").path
        try ImageMagick.convert([original, "-auto-orient", upright])
        let encoded = try ImageMagick.run(ImageMagick.cjpeg, ["-sample", "2x2,1x1,1x1", "-quality", "80", "-outfile", reference, upright])
        try #require(encoded.status == 0, "cjpeg: \(encoded.stderr)")
        let ours = try ImageMagick.psnr(made, upright), libjpegs = try ImageMagick.psnr(reference, upright)
        #expect(abs(ours - libjpegs) <= 0.1, "orientation \(orientation): \(ours) dB against cjpeg's \(libjpegs) dB")
    }

    /// Keeping the pixels changes the scale of the decode, not what it finds: every JPEG of the
    /// manifests gets the same verdict (and the same dimensions, or the same error) as without.
    @Test(arguments: allJPEGs)
    func keepingPixelsLeavesTheCheckAsItWas(_ entry: CorpusEntry) throws {
        let validator = ImageValidator(level: .decode)
        let plain = Result { () throws(ImageError) in try validator.validate(fileAt: entry.path) }
        let head = [UInt8](try Data(contentsOf: URL(fileURLWithPath: entry.path)).prefix(4096))
        let size = Int64(try FileManager.default.attributesOfItem(atPath: entry.path)[.size] as? Int ?? 0)
        for box in [VariantMaker.Box(width: 1, height: 1), VariantMaker.Box(width: 100, height: 100), VariantMaker.Box(width: 10_000, height: 10_000)] {
            let keeping = Result { () throws(ImageError) in try validator.validate(fileAt: entry.path, head: head, size: size, keepingFor: box).info }
            switch (plain, keeping) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(entry), box \(box)")
            case (.failure(let a), .failure(let b)): #expect(a.reason == b.reason && "\(a)" == "\(b)", "\(entry), box \(box)")
            default: Issue.record("\(entry), box \(box): \(plain) without keeping, \(keeping) keeping")
            }
        }
    }

    /// One kept decode serves every variant of a set the fast path takes; the others go to libvips.
    @Test func aSetsVariantsShareTheCheckDecode() throws {
        let specs = [
            VariantSpec(name: "thumb", box: .longestSide(64), format: .jpeg, quality: 80),
            VariantSpec(name: "screen", box: .inside(width: 200, height: nil), format: .same, quality: 90),
            VariantSpec(name: "png", box: .longestSide(64), format: .png),
            VariantSpec(name: "card", box: .cover(width: 32, height: 32), format: .jpeg),
        ]
        let box = try #require(VariantMaker.fastBox(specs, original: .jpeg))
        #expect(box == VariantMaker.Box(width: 200, height: 10_000_000))
        let head = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.testorig)).prefix(4096))
        let (info, kept) = try ImageValidator(level: .decode).validate(fileAt: Self.testorig, head: head, size: 5770, keepingFor: box)
        #expect(info?.width == 227 && info?.height == 149)
        let pixels = try #require(kept)
        #expect(pixels.isKept && pixels.declined == nil)
        let made = try VariantMaker.make(specs, fromFileAt: Self.testorig, format: .jpeg, kept: pixels)
        #expect(made.map(\.1.maker) == [.libjpegTurbo, .libjpegTurbo, .libvips, .libvips])
        #expect(made.map { "\($0.1.width)x\($0.1.height)" } == ["64x42", "200x131", "64x42", "32x32"])
        // The kept decode and a decode of its own give the same bytes.
        #expect(made[0].1.data == (try VariantMaker.make(specs[0], fromFileAt: Self.testorig, format: .jpeg)).data)
    }

    /// A decode the fast path would keep at more than 16 Mi pixels is left to libvips, which streams
    /// it; the same image with a variant small enough to be made from its half-scale decode is kept.
    @Test func aHugeKeptDecodeGoesToLibvips() throws {
        let folder = try TemporaryDirectory()
        let huge = folder.file("huge.jpg").path
        try ImageMagick.convert([Self.testorig, "-resize", "4200x4200!", "-quality", "80", huge])
        let head = [UInt8](try Data(contentsOf: URL(fileURLWithPath: huge)).prefix(4096))
        let size = Int64(try FileManager.default.attributesOfItem(atPath: huge)[.size] as? Int ?? 0)
        for (side, maker) in [(2100, VariantMaker.Maker.libvips), (1000, .libjpegTurbo)] {
            let box = VariantMaker.Box(width: side, height: side)
            let kept = try #require(try ImageValidator(level: .decode).validate(fileAt: huge, head: head, size: size, keepingFor: box).kept)
            #expect(kept.isKept == (maker == .libjpegTurbo) && kept.declined == (kept.isKept ? nil : "too large to keep whole"), "\(side)")
            let spec = VariantSpec(name: "big", box: .longestSide(side), format: .jpeg)
            let made = try VariantMaker.make([spec], fromFileAt: huge, format: .jpeg, kept: kept)[0].1
            #expect(made.maker == maker && made.width == side && made.height == side, "\(side)")
        }
    }

    /// The path, dimensions and a clean decode for `max_pixel_size` at half, a third and a fifth of
    /// the longest side (DCT scales from 1 to 1/4), pixels at the first two, and a box larger than
    /// the image.
    private func expectFastVariants(of path: String, maker: VariantMaker.Maker, _ name: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let folder = try TemporaryDirectory()
        let info = try #require(try ImageValidator(level: .decode).validate(fileAt: path), sourceLocation: sourceLocation)
        let longest = max(info.width, info.height)
        // Pixels compared at half and a third of the longest side (the fast path's; libvips' are
        // VariantCorpusTests'), the fifth for size and decode.
        for (side, compared) in [(longest / 2, maker == .libjpegTurbo), (longest / 3, maker == .libjpegTurbo), (longest / 5, false)] {
            let variant = try VariantMaker.make(VariantSpec(name: "thumb", box: .longestSide(side), format: .jpeg, quality: 95),
                                                fromFileAt: path, format: .jpeg)
            #expect(variant.maker == maker, "\(name)", sourceLocation: sourceLocation)
            let scale = Double(side) / Double(longest)
            #expect(max(variant.width, variant.height) == side, "\(name): \(info.width)x\(info.height) -> \(variant.width)x\(variant.height)",
                    sourceLocation: sourceLocation)
            #expect(abs(Double(variant.width) - Double(info.width) * scale) <= 1 && abs(Double(variant.height) - Double(info.height) * scale) <= 1,
                    "\(name): \(info.width)x\(info.height) -> \(variant.width)x\(variant.height)", sourceLocation: sourceLocation)
            try expectCleanDecode(variant, name, sourceLocation: sourceLocation)
            guard compared else { continue }
            let made = try folder.write("variant-\(side).jpg", variant.data).path
            let reference = folder.file("reference-\(side).png").path
            try ImageMagick.convert([path, "-auto-orient", "-filter", "Lanczos", "-thumbnail", "\(side)x\(side)>", reference])
            let psnr = try ImageMagick.lumaPSNR(made, reference, in: folder.url)
            #expect(psnr >= VariantCorpusTests.leastPSNR, "\(name) at \(side): luma PSNR \(psnr) dB against convert -thumbnail",
                    sourceLocation: sourceLocation)
        }
        let larger = try VariantMaker.make(VariantSpec(name: "larger", box: .longestSide(longest + 10), format: .jpeg, quality: 80),
                                           fromFileAt: path, format: .jpeg)
        #expect(larger.maker == maker && larger.width == info.width && larger.height == info.height, "\(name)", sourceLocation: sourceLocation)
        try expectCleanDecode(larger, name, sourceLocation: sourceLocation)
    }

    private func expectCleanDecode(_ made: VariantMaker.Made, _ name: String, sourceLocation: SourceLocation) throws {
        let decoded = try #require(try ImageValidator(level: .decode).validate(data: [UInt8](made.data)), sourceLocation: sourceLocation)
        #expect(decoded.format == .jpeg && decoded.width == made.width && decoded.height == made.height && decoded.warnings.isEmpty,
                "\(name): \(decoded)", sourceLocation: sourceLocation)
    }
}
