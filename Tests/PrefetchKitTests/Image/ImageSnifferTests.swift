import Testing
@testable import PrefetchKit

@Suite struct ImageSnifferTests {
    @Test func handledFormats() {
        #expect(ImageSniffer.sniff(ImageFixtures.baselineJPEG) == .image(.jpeg))
        #expect(ImageSniffer.sniff(ImageFixtures.png(width: 1, height: 1)) == .image(.png))
        #expect(ImageSniffer.sniff(ImageFixtures.gif(width: 1, height: 1)) == .image(.gif))
        #expect(ImageSniffer.sniff(ImageFixtures.webpVP8L(width: 1, height: 1)) == .image(.webp))
        #expect(ImageSniffer.sniff([0, 0, 0, 0x20] + Array("ftypavif".utf8) + [0, 0, 0, 0]) == .image(.avif))
        #expect(ImageSniffer.sniff([0, 0, 0, 0x20] + Array("ftypavis".utf8) + [0, 0, 0, 0]) == .image(.avif))
        #expect(ImageSniffer.sniff([0xFF, 0x0A, 0xFA, 0x7F]) == .image(.jxl))
        #expect(ImageSniffer.sniff([0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]) == .image(.jxl))
    }

    /// An AVIF may name the generic HEIF brand first and `avif` among its compatible brands.
    @Test func avifByCompatibleBrand() {
        let avif = [0, 0, 0, 0x1C] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("miafavifmif1".utf8)
        #expect(ImageSniffer.sniff(avif) == .image(.avif))
        let heif = [0, 0, 0, 0x1C] + Array("ftypmif1".utf8) + [0, 0, 0, 0] + Array("miafheicmif1".utf8)
        #expect(ImageSniffer.sniff(heif) == .unsupported("HEIF"))
    }

    @Test(arguments: [
        ("BMP", Array("BM".utf8) + [0x36, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0]),
        ("TIFF", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]),
        ("TIFF", [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]),
        ("Netpbm", Array("P6\n227 149\n255\n".utf8)),
        ("ICO", [0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0]),
        ("HEIF", [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0]),
        ("SVG", Array("  <svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)),
    ] as [(String, [UInt8])])
    func recognisedButUnsupported(kind: String, bytes: [UInt8]) {
        #expect(ImageSniffer.sniff(bytes) == .unsupported(kind))
    }

    @Test(arguments: [
        ImageFixtures.html,
        Array("plain text, no picture".utf8),
        Array("RIFF\u{24}\0\0\0WAVEfmt ".utf8),
        [0, 0, 0, 0x20] + Array("ftypisom".utf8),
        [0x12, 0x9A, 0x07, 0xF3, 0x00, 0xC4],
        [0xFF, 0xD8],
        [],
    ] as [[UInt8]])
    func notImages(bytes: [UInt8]) {
        #expect(ImageSniffer.sniff(bytes) == .notImage)
    }

    @Test func neverLooksPastThePrefix() {
        let padded = [UInt8](repeating: 0x20, count: ImageSniffer.prefixLength) + Array("<svg>".utf8)
        #expect(ImageSniffer.sniff(padded) == .notImage)
    }
}
