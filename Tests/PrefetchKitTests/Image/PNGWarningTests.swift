import Testing
@testable import PrefetchKit

/// libpng's warnings judged as browsers and Pillow do: the benign kinds are stored and counted, every
/// other warning still fails the image.
@Suite struct PNGWarningTests {
    let decode = ImageValidator(level: .decode)

    /// The image: browsers show it, libpng only warns that its tRNS sample cannot occur.
    @Test func outOfRangeTRNSSampleIsAWarning() throws {
        let png = ImageFixtures.oneBitGreyPNG(width: 9, transparentGrey: 2)
        let info = try #require(try decode.validate(data: png))
        #expect(info == ImageInfo(format: .png, width: 9, height: 1, warnings: ["png_trns_out_of_range"]))
        #expect(try decode.validate(data: ImageFixtures.oneBitGreyPNG(width: 9, transparentGrey: 1))?.warnings == [])
    }

    @Test func ancillaryChunkWithABadCRCIsAWarning() throws {
        let png = ImageFixtures.inserting("tEXt", Array("Comment\0hello".utf8), damagedCRC: true,
                                          into: ImageFixtures.png(width: 4, height: 3))
        #expect(try decode.validate(data: png)?.warnings == ["png_ancillary_crc"])
    }

    @Test func unknownAncillaryChunkIsSkippedSilently() throws {
        let png = ImageFixtures.inserting("prFt", [1, 2, 3], into: ImageFixtures.png(width: 4, height: 3))
        #expect(try decode.validate(data: png) == ImageInfo(format: .png, width: 4, height: 3))
    }

    @Test func criticalChunkWithABadCRCStaysFatal() throws {
        let png = ImageFixtures.inserting("PLTE", [0, 0, 0], damagedCRC: true, into: ImageFixtures.png(width: 4, height: 3))
        let error = try #require(throws: ImageError.self) { try decode.validate(data: png) }
        #expect(error.reason == "corrupt", "\(error)")
    }

    /// A second iCCP (only one is allowed) that libpng finds too short: a warning, but not of a benign kind.
    @Test func otherAncillaryWarningsStayFatal() throws {
        let path = CorpusEntry.root + "/image-png-bugfixes/bugfixes/issue#1825.png"
        let error = try #require(throws: ImageError.self) { try decode.validate(fileAt: path) }
        #expect(error == .corrupt(.png, detail: "iCCP: too short"))
    }
}
