import Foundation
import Testing
@testable import PrefetchKit

/// One row of a shared corpus MANIFEST.tsv.
struct CorpusEntry: CustomStringConvertible, Sendable {
    let corpus: String
    let file: String
    /// valid | corrupt | truncated | bomb | unsupported: the spec verdict.
    let expected: String
    /// The reference probe's dimensions for files it decoded ("OK:WxH"), if any.
    let probedSize: (width: Int, height: Int)?

    var path: String { CorpusEntry.root + "/" + corpus + "/" + file }
    var description: String { corpus + "/" + file }

    /// The vendored corpora: Tests/PrefetchKitTests/Image/<this file> -> Tests/Fixtures/corpus.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/corpus").path

    static let all: [CorpusEntry] = {
        let corpora = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return corpora.sorted().flatMap { corpus -> [CorpusEntry] in
            guard let text = try? String(contentsOfFile: root + "/" + corpus + "/MANIFEST.tsv", encoding: .utf8) else {
                return []
            }
            return text.split(separator: "\n").dropFirst().map { line in
                let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                return CorpusEntry(corpus: corpus, file: columns[0], expected: columns[1],
                                   probedSize: columns.count > 6 ? okSize(columns[6]) : nil)
            }
        }
    }()

    /// "libpng-1.6.39 OK:32x32" or "OK 32x32 frames=2" -> (32, 32); warnings and errors give nil.
    private static func okSize(_ probe: String) -> (width: Int, height: Int)? {
        guard let range = probe.range(of: " OK:") ?? (probe.hasPrefix("OK ") ? probe.range(of: "OK ") : nil) else { return nil }
        let numbers = probe[range.upperBound...].prefix { $0.isNumber || $0 == "x" }.split(separator: "x")
        guard numbers.count == 2, let width = Int(numbers[0]), let height = Int(numbers[1]) else { return nil }
        return (width, height)
    }
}

@Suite struct ImageCorpusTests {
    /// Files whose verdict cannot be the manifest's, each with the reason.
    static let exceptions: [String: (reason: String, why: String)] = [
        "libjpeg-turbo-testimages/test.scan": ("not_image", "a text file: no image signature, so not_image rather than unsupported"),
        "libjpeg-turbo-testimages/test1.icc": ("not_image", "an ICC profile: no image signature, so not_image rather than unsupported"),
        "libjpeg-turbo-testimages/test3.icc": ("not_image", "an ICC profile: no image signature, so not_image rather than unsupported"),
        "gif-webp-avif/generated/gif_html_404.gif": ("not_image", "an HTML page: no image signature, so not_image rather than unsupported"),
        // [Debian12-rejects]: valid, but libjxl 0.7's spline-area limit (dropped upstream) refuses it.
        "gif-webp-avif/libjxl-testdata/splines.jxl": ("decoder_failed", "refused by libjxl 0.7's own limit, not by damage"),
        // Unsupported upstream (NOT_IMPLEMENTED in newer libavif); libavif 0.11 calls the grid invalid.
        "gif-webp-avif/libavif/color_grid_alpha_grid_tile_shared_in_dimg.avif":
            ("corrupt", "a tile shared by two grids, which libavif 0.11 reports as an invalid grid"),
    ]

    /// Files the manifest calls corrupt for a damaged ancillary chunk only, which prefetchd stores, as
    /// browsers show them, counting the warning: libpng drops the chunk and decodes the image intact.
    static let acceptedWithWarning: [String: String] = [
        "image-png-bugfixes/bugfixes/cicp_pq.png": "png_ancillary_crc",
        "image-png-bugfixes/bugfixes/issue#430.png": "png_ancillary_crc",
    ]

    /// What each spec verdict may be rejected as.
    static let acceptedReasons: [String: Set<String>] = [
        // A damaged signature no longer names a format, so it is not_image; a zero dimension is zero_pixels.
        "corrupt": ["corrupt", "truncated", "zero_pixels", "not_image"],
        "truncated": ["truncated", "corrupt", "empty"],
        "bomb": ["too_many_pixels", "too_many_frames", "corrupt"],
        "unsupported": ["unsupported"],
    ]

    @Test func corpusIsPresent() throws {
        #expect(CorpusEntry.all.count >= 400, "expected the five vendored corpora under \(CorpusEntry.root)")
        let verdicts = Set(CorpusEntry.all.map(\.expected))
        #expect(verdicts.isSubset(of: ["valid", "corrupt", "truncated", "bomb", "unsupported"]))
    }

    @Test(arguments: CorpusEntry.all)
    func decodeMatchesManifest(_ entry: CorpusEntry) throws {
        let validator = ImageValidator(level: .decode)
        let outcome = Result { () throws(ImageError) in try validator.validate(fileAt: entry.path) }
        // The downloader's way in (the first 32 KiB already in memory) must come to the same verdict.
        let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: entry.path)))
        let headed = Result { () throws(ImageError) in
            try validator.validate(fileAt: entry.path, head: Array(body.prefix(32 << 10)), size: Int64(body.count))
        }
        #expect(headed == outcome, "\(entry): kept head and file disagree")
        switch (outcome, Self.exceptions[entry.description]) {
        case (.success, let exception?):
            Issue.record("\(entry) was accepted; expected \(exception.reason) because it is \(exception.why)")
        case (.failure(let error), let exception?):
            #expect(error.reason == exception.reason, "\(entry): \(error)")
        case (.success(let info), nil):
            let info = try #require(info)
            if let warning = Self.acceptedWithWarning[entry.description] {
                #expect(info.warnings == [warning], "\(entry): \(info)")
                return
            }
            #expect(entry.expected == "valid", "\(entry) (\(entry.expected)) was accepted")
            #expect(info.warnings.isEmpty, "\(entry): \(info)")
            if let size = entry.probedSize {
                #expect(info.width == size.width && info.height == size.height, "\(entry): \(info)")
            }
        case (.failure(let error), nil):
            #expect(entry.expected != "valid", "\(entry) (valid) was rejected: \(error)")
            if let reasons = Self.acceptedReasons[entry.expected] {
                #expect(reasons.contains(error.reason), "\(entry) (\(entry.expected)) rejected as \(error.reason): \(error)")
            }
        }
    }
}
