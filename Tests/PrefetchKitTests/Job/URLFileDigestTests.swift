import Foundation
import Testing
@testable import PrefetchKit

/// The optional second column of a URL file line, `sha256:HEX` or `sha512:HEX`: read beside the URL,
/// comments and blank lines as before, and every malformed one reported at its line and column.
struct URLFileDigestTests {
    static let sha256 = String(repeating: "ab", count: 32)
    static let sha512 = String(repeating: "0F", count: 64)

    @Test func digestsAreReadBesideTheirURLs() throws {
        let folder = try TemporaryDirectory()
        try folder.write("urls.txt", """
            # images with their digests

            https://x.example/1.png sha256:\(Self.sha256)
              https://x.example/2.png \t sha512:\(Self.sha512)\r
            # no digest for this one
            https://x.example/3.png

            """)
        let job = try folder.load("version: 1\nsets:\n  - { name: file, url_file: urls.txt }\n")
        #expect(job.sets[0].urls.count == 3)
        #expect(Array(job.sets[0].urls) == ["https://x.example/1.png", "https://x.example/2.png", "https://x.example/3.png"])
        var iterator = job.sets[0].urls.makeIterator()
        var entries: [URLEntry] = []
        while let entry = iterator.nextEntry() { entries.append(entry) }
        #expect(entries.map(\.expectedDigest) == [
            ExpectedDigest(.sha256, Array(repeating: 0xAB, count: 32), from: .urlFile),
            ExpectedDigest(.sha512, Array(repeating: 0x0F, count: 64), from: .urlFile),
            nil,
        ])
        #expect(iterator.failure == nil)
    }

    @Test func aPlanItemCarriesItsLinesDigest() throws {
        let folder = try TemporaryDirectory()
        try folder.write("urls.txt", "https://x.example/1.png sha256:\(Self.sha256)\nhttps://x.example/2.png\n")
        let job = try folder.load("version: 1\nsets:\n  - { name: file, order: lifo, url_file: urls.txt }\n")
        let items = Array(RunPlan(job: job))
        #expect(items.map(\.url) == ["https://x.example/2.png", "https://x.example/1.png"])
        #expect(items.map { $0.expectedDigest?.algorithm } == [nil, .sha256])
    }

    @Test func everyMalformedDigestIsReportedAtItsPlace() throws {
        let folder = try TemporaryDirectory()
        try folder.write("list.txt", """
            https://x.example/ok.png sha512:\(Self.sha512)
            https://x.example/a.png md5:\(String(repeating: "0", count: 32))
            https://x.example/b.png sha256:\(Self.sha256.dropLast())
            https://x.example/c.png  sha256:\(Self.sha256.dropLast())g
            https://x.example/d.png sha256:\(Self.sha256) extra
            https://x.example/e.png \(Self.sha256)
            ftp://x.example/f.png sha256:xyz

            """)
        let diagnostics = try folder.diagnostics("version: 1\nsets:\n  - { name: b, url_file: list.txt }\n")
        let file = "\(folder.path)/list.txt"
        #expect(diagnostics.map(\.description) == [
            "\(file):2:25: sets[0].url_file: `md5:\(String(repeating: "0", count: 32))` is not a digest: "
                + "expected sha256:HEX or sha512:HEX after the URL (a space within a URL is written %20)",
            "\(file):3:25: sets[0].url_file: the sha256 digest `sha256:\(Self.sha256.prefix(33))...` has 63 hex digits, not 64",
            "\(file):4:26: sets[0].url_file: the sha256 digest `sha256:\(Self.sha256.prefix(33))...` has a character that "
                + "is not a hex digit at character 71",
            "\(file):5:25: sets[0].url_file: a URL file line holds a URL and at most one digest after it; found more: "
                + "`sha256:\(Self.sha256.prefix(33))...`",
            "\(file):6:25: sets[0].url_file: `\(Self.sha256.prefix(40))...` is not a digest: expected sha256:HEX or sha512:HEX after the URL "
                + "(a space within a URL is written %20)",
            "\(file):7:1: sets[0].url_file: `ftp://x.example/f.png` is not an absolute http or https URL",
            "\(file):7:23: sets[0].url_file: the sha256 digest `sha256:xyz` has a character that is not a hex digit at character 8",
        ])
    }
}
