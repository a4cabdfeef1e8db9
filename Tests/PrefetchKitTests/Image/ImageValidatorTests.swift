import Foundation
import Testing
@testable import PrefetchKit

/// The heads a downloader may have kept of a body: none, a few bytes (the checks must go on in the
/// file), and all of it.
private func heads(of bytes: [UInt8]) -> [[UInt8]] {
    [[], Array(bytes.prefix(20)), bytes]
}

/// Rejections of one validator, read from a file, from a file with each kept head, and from memory:
/// all must agree (the file's and memory's are returned).
private func rejection(_ validator: ImageValidator, _ bytes: [UInt8]) throws -> (file: ImageError?, memory: ImageError?) {
    let folder = try TemporaryDirectory()
    let path = try folder.write("body", Data(bytes)).path
    var fileError: ImageError?
    var memoryError: ImageError?
    do { _ = try validator.validate(fileAt: path) } catch { fileError = error }
    do { _ = try validator.validate(data: bytes) } catch { memoryError = error }
    for head in heads(of: bytes) {
        var headedError: ImageError?
        do { _ = try validator.validate(fileAt: path, head: head, size: Int64(bytes.count)) } catch { headedError = error }
        #expect(headedError == fileError, "head of \(head.count) bytes")
    }
    return (fileError, memoryError)
}

/// Every path accepts and agrees on what it found.
private func accepted(_ validator: ImageValidator, _ bytes: [UInt8]) throws -> ImageInfo? {
    let folder = try TemporaryDirectory()
    let path = try folder.write("body", Data(bytes)).path
    let fromFile = try validator.validate(fileAt: path)
    let fromMemory = try validator.validate(data: bytes)
    #expect(fromFile == fromMemory)
    for head in heads(of: bytes) {
        #expect(try validator.validate(fileAt: path, head: head, size: Int64(bytes.count)) == fromFile, "head of \(head.count) bytes")
    }
    return fromFile
}

/// The stable reason both paths give.
private func reasons(_ validator: ImageValidator, _ bytes: [UInt8]) throws -> [String?] {
    let (file, memory) = try rejection(validator, bytes)
    return [file?.reason, memory?.reason]
}

@Suite struct ImageValidatorTests {
    let decode = ImageValidator(level: .decode)

    @Test func acceptsOwnPNGJPEGAndGIF() throws {
        #expect(try accepted(decode, ImageFixtures.png(width: 19, height: 7)) == ImageInfo(format: .png, width: 19, height: 7))
        #expect(try accepted(decode, ImageFixtures.baselineJPEG) == ImageInfo(format: .jpeg, width: 48, height: 32))
        #expect(try accepted(decode, ImageFixtures.progressiveJPEG) == ImageInfo(format: .jpeg, width: 48, height: 32))
        #expect(try accepted(decode, ImageFixtures.gif(width: 3, height: 2)) == ImageInfo(format: .gif, width: 3, height: 2))
    }

    /// Header-only fixtures: libwebp's full decode refuses them (the corpus tests cover decoding).
    @Test func readsEachWebPHeaderKind() throws {
        let header = ImageValidator(level: .header)
        #expect(try accepted(header, ImageFixtures.webpVP8(width: 300, height: 200)) == ImageInfo(format: .webp, width: 300, height: 200))
        #expect(try accepted(header, ImageFixtures.webpVP8L(width: 16_384, height: 1)) == ImageInfo(format: .webp, width: 16_384, height: 1))
        #expect(try accepted(header, ImageFixtures.webpVP8X(width: 20_000, height: 3)) == ImageInfo(format: .webp, width: 20_000, height: 3))
    }

    @Test func truncatedJPEGIsTruncatedNotGrey() throws {
        let cut = Array(ImageFixtures.baselineJPEG.prefix(ImageFixtures.baselineJPEG.count * 2 / 3))
        let (file, memory) = try rejection(decode, cut)
        #expect(file == .truncated(.jpeg, detail: "Premature end of JPEG file"))
        #expect(memory == file)
        // The header is intact, so the cheaper levels let it through.
        #expect(try accepted(ImageValidator(level: .header), cut) == ImageInfo(format: .jpeg, width: 48, height: 32))
    }

    @Test func truncatedPNGIsTruncated() throws {
        let whole = ImageFixtures.png(width: 40, height: 40)
        let cut = Array(whole.prefix(whole.count / 2))
        #expect(try reasons(decode, cut) == ["truncated", "truncated"])
        #expect(try accepted(ImageValidator(level: .header), cut) == ImageInfo(format: .png, width: 40, height: 40))
    }

    @Test func damagedJPEGScanIsCorrupt() throws {
        var damaged = ImageFixtures.baselineJPEG
        let scanStart = try #require(damaged.indices.first { damaged[$0] == 0xFF && damaged[$0 + 1] == 0xDA })
        for index in (scanStart + 20)..<(scanStart + 60) {
            damaged[index] = 0xFF  // with no stuffed zero, each is read as a marker prefix
        }
        #expect(try reasons(decode, damaged) == ["corrupt", "corrupt"])
    }

    @Test func damagedPNGDataCRCIsCorrupt() throws {
        var damaged = ImageFixtures.png(width: 8, height: 8)
        damaged[damaged.count - 13] ^= 0x01  // last byte of the IDAT CRC
        let (file, _) = try rejection(decode, damaged)
        #expect(file == .corrupt(.png, detail: "IDAT: CRC error"))
    }

    @Test func pixelBombIsRejectedFromTheHeader() throws {
        // 10^10 pixels and one byte of image data: decoding would run out of data, so too_many_pixels
        // shows the limit was applied from IHDR, before any row was allocated or read.
        let bomb = ImageFixtures.png(width: 100_000, height: 100_000, pixels: false)
        #expect(try reasons(decode, bomb) == ["too_many_pixels", "too_many_pixels"])
        #expect(throws: ImageError.tooManyPixels(.png, width: 100_000, height: 100_000, limit: 89_478_485)) {
            try ImageDecoder.png(.memory(bomb), maxPixels: ImageLimits.defaultMaxPixels)
        }
        #expect(try reasons(ImageValidator(level: .header), bomb) == ["too_many_pixels", "too_many_pixels"])
    }

    @Test func jpegPixelLimitIsCheckedBeforeDecoding() throws {
        let small = ImageValidator(level: .decode, maxPixels: 48 * 32 - 1)
        #expect(try reasons(small, ImageFixtures.baselineJPEG) == ["too_many_pixels", "too_many_pixels"])
        #expect(throws: ImageError.tooManyPixels(.jpeg, width: 48, height: 32, limit: 1_000)) {
            try ImageDecoder.jpeg(.memory(ImageFixtures.baselineJPEG), maxPixels: 1_000, maxScans: 100)
        }
    }

    @Test func progressiveScanLimit() throws {
        let strict = ImageValidator(level: .decode, maxScans: 5)
        let (file, memory) = try rejection(strict, ImageFixtures.progressiveJPEG)
        #expect(file == .tooManyScans(limit: 5))
        #expect(memory == file)
        #expect(try accepted(ImageValidator(level: .decode, maxScans: 10), ImageFixtures.progressiveJPEG) != nil)
    }

    @Test func zeroPixelsAreRejected() throws {
        let zeroPNG = ImageFixtures.png(width: 0, height: 5, pixels: false)
        let (file, _) = try rejection(decode, zeroPNG)
        #expect(file == .zeroPixels(.png, width: 0, height: 5))
        #expect(file?.description.hasPrefix("image has 0 pixels") == true)
        #expect(try reasons(decode, ImageFixtures.gif(width: 0, height: 4)) == ["zero_pixels", "zero_pixels"])
        #expect(try reasons(decode, ImageFixtures.webpVP8(width: 10, height: 0)) == ["zero_pixels", "zero_pixels"])
    }

    @Test func emptyHTMLAndOversizedBodies() throws {
        let (file, memory) = try rejection(decode, [])
        #expect(file == .empty && memory == .empty)
        #expect(ImageError.empty.description.hasPrefix("image data is nil"))
        #expect(try reasons(decode, ImageFixtures.html) == ["not_image", "not_image"])
        let capped = ImageValidator(level: .sniff, maxBytes: 100)
        let (tooLarge, _) = try rejection(capped, ImageFixtures.baselineJPEG)
        #expect(tooLarge == .tooLarge(bytes: Int64(ImageFixtures.baselineJPEG.count), limit: 100))
    }

    /// `max_bytes` is the largest body accepted: a body of exactly that many bytes passes, one byte
    /// more is refused.
    @Test func aBodyOfExactlyMaxBytesIsAcceptedAndOneByteMoreIsNot() throws {
        let body = ImageFixtures.baselineJPEG
        let size = Int64(body.count)
        let sniffed = ImageInfo(format: .jpeg, width: 0, height: 0)
        #expect(try accepted(ImageValidator(level: .sniff, maxBytes: size + 1), body) == sniffed)
        #expect(try accepted(ImageValidator(level: .sniff, maxBytes: size), body) == sniffed)
        let (file, memory) = try rejection(ImageValidator(level: .sniff, maxBytes: size - 1), body)
        #expect(file == .tooLarge(bytes: size, limit: size - 1))
        #expect(memory == file)
    }

    /// `max_pixels` is the largest image accepted, from the header and by each decoder: an image of
    /// exactly that many pixels passes, one pixel more than the limit is refused.
    @Test func anImageOfExactlyMaxPixelsIsAcceptedAndOneMoreIsNot() throws {
        // A 19x7 PNG (133 pixels), read from its header
        let png = ImageFixtures.png(width: 19, height: 7)
        let pngInfo = ImageInfo(format: .png, width: 19, height: 7)
        #expect(try accepted(ImageValidator(level: .header, maxPixels: 134), png) == pngInfo)
        #expect(try accepted(ImageValidator(level: .header, maxPixels: 133), png) == pngInfo)
        let (file, memory) = try rejection(ImageValidator(level: .header, maxPixels: 132), png)
        #expect(file == .tooManyPixels(.png, width: 19, height: 7, limit: 132))
        #expect(memory == file)
        #expect(try accepted(ImageValidator(level: .decode, maxPixels: 133), png) == pngInfo)

        // and by libpng and libjpeg-turbo themselves (the 48x32 JPEG: 1,536 pixels), from memory and from a file
        let folder = try TemporaryDirectory()
        let pngFile = try folder.write("png", Data(png)).path
        let jpeg = ImageFixtures.baselineJPEG
        let jpegFile = try folder.write("jpeg", Data(jpeg)).path
        let jpegInfo = ImageInfo(format: .jpeg, width: 48, height: 32)
        for input in [ImageDecoder.Input.memory(png), .file(pngFile)] {
            #expect(try ImageDecoder.png(input, maxPixels: 133) == pngInfo)
            #expect(throws: ImageError.tooManyPixels(.png, width: 19, height: 7, limit: 132)) {
                try ImageDecoder.png(input, maxPixels: 132)
            }
        }
        for input in [ImageDecoder.Input.memory(jpeg), .file(jpegFile)] {
            #expect(try ImageDecoder.jpeg(input, maxPixels: 1_536, maxScans: 100) == jpegInfo)
            #expect(throws: ImageError.tooManyPixels(.jpeg, width: 48, height: 32, limit: 1_535)) {
                try ImageDecoder.jpeg(input, maxPixels: 1_535, maxScans: 100)
            }
        }
    }

    @Test func formatsListLimitsWhatIsAccepted() throws {
        let pngOnly = ImageValidator(level: .decode, formats: [.png])
        #expect(try reasons(pngOnly, ImageFixtures.baselineJPEG) == ["format_not_allowed", "format_not_allowed"])
        #expect(try accepted(pngOnly, ImageFixtures.png(width: 2, height: 2)) != nil)
    }

    @Test func levelsCheckProgressivelyMore() throws {
        let truncatedPNG = Array(ImageFixtures.png(width: 40, height: 40).prefix(60))
        #expect(try accepted(ImageValidator(level: .none), ImageFixtures.html) == nil)
        #expect(try accepted(ImageValidator(level: .sniff), truncatedPNG) == ImageInfo(format: .png, width: 0, height: 0))
        #expect(try accepted(ImageValidator(level: .header), truncatedPNG) == ImageInfo(format: .png, width: 40, height: 40))
        #expect(try reasons(ImageValidator(level: .decode), truncatedPNG) == ["truncated", "truncated"])
        let headerOnly = Array(truncatedPNG.prefix(20))
        #expect(try reasons(ImageValidator(level: .header), headerOnly) == ["truncated", "truncated"])
    }

    @Test func missingFileIsUnreadable() throws {
        let folder = try TemporaryDirectory()
        #expect(throws: ImageError.unreadable(path: folder.path + "/absent", detail: "No such file or directory")) {
            try decode.validate(fileAt: folder.path + "/absent")
        }
    }

    /// Only what the body itself is may keep its URL away from later runs: not a file that could not
    /// be read back (no file descriptor left, an I/O error) or a decoder that failed on its own.
    @Test func onlyTheBodysOwnFaultsBlameIt() {
        #expect(!ImageError.unreadable(path: "/p", detail: "Too many open files").isTheBodysOwn)
        #expect(!ImageError.decoderFailed(.jpeg, detail: "out of memory").isTheBodysOwn)
        #expect(ImageError.notImage.isTheBodysOwn)
        #expect(ImageError.truncated(.png, detail: "").isTheBodysOwn)
        #expect(ImageError.tooManyPixels(.png, width: 9, height: 9, limit: 1).isTheBodysOwn)
    }
}
