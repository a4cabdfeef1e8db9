import Foundation
import Testing
@testable import PrefetchKit

/// Bodies a server sends in a content coding although `Accept-Encoding: identity` asked for none: the
/// codings prefetchd knows are undone as the body streams in, the others refused, and the decoded
/// bytes held to `maxBytes`.
@Suite(.timeLimit(.minutes(3)))
struct ContentDecodingTests {
    @Test(arguments: ["gzip", "x-gzip", "deflate", "raw-deflate", "br", "gzip-br", "gzip-members"])
    func aBodyInAKnownCodingIsStoredDecoded(_ coding: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let png = try harness.server.get("/ok/reference").body
        let encoded = try harness.server.get("/encoded/\(coding)").body
        #expect(encoded != png)
        var request = harness.request("/encoded/\(coding)")
        request.keptHeadBytes = 32 << 10

        let result = await harness.engine.fetch(request)

        let response = try #require(result.response, "\(String(describing: result.error))")
        #expect(response.bytes == Int64(png.count))
        #expect(response.head == Array(png))
        #expect(try Data(contentsOf: URL(fileURLWithPath: request.destination)) == png)
    }

    /// Each failure is the body's own: not retried, and no file is left.
    @Test(arguments: [("zstd", "unsupported_encoding", "`zstd`"), ("corrupt-gzip", "bad_encoding", "corrupt"),
                      ("short-gzip", "bad_encoding", "ends before its stream does")])
    func aBodyThatCannotBeDecodedFailsWithNoFile(coding: String, reason: String, words: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/encoded/\(coding)", retry: RetryPolicy(retries: 2, baseDelay: .milliseconds(1)))

        let result = await harness.engine.fetch(request)

        let error = try #require(result.error)
        #expect(error.reason == reason)
        #expect(error.description.contains(words), "\(error)")
        #expect(result.attempts == 1)
        #expect(!harness.exists(request.destination))
    }

    /// 1 GiB of zeros, about 1 MB gzipped: decoding stops at the limit, and no more than the limit
    /// reaches the file (a descriptor the test owns, which the engine leaves in place).
    @Test func aGzipBombIsCutAtMaxBytesOfDecodedBytes() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let path = harness.destination()
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var request = harness.request("/gzip-bomb/1024")
        request.destinationDescriptor = descriptor
        request.maxBytes = 1 << 20

        let result = await harness.engine.fetch(request)

        #expect(result.error == .tooLarge(limit: 1 << 20))
        var info = stat()
        #expect(fstat(descriptor, &info) == 0)
        #expect(info.st_size <= 1 << 20)
        #expect(info.st_size > 0)
    }

    @Test func identityInTheListIsNoCoding() throws {
        #expect(try ContentDecoder.make(contentEncoding: []) == nil)
        #expect(try ContentDecoder.make(contentEncoding: ["identity", " "]) == nil)
        #expect(try ContentDecoder.make(contentEncoding: ["identity, GZIP"]) != nil)
        #expect(throws: FetchError.self) { try ContentDecoder.make(contentEncoding: Array(repeating: "gzip", count: 6)) }
        #expect(throws: FetchError.self) { try ContentDecoder.make(contentEncoding: ["gzip", "compress"]) }
    }

    /// Byte by byte, so the deflate framing is chosen from a first byte held back and the second.
    @Test(arguments: ["deflate", "raw-deflate", "gzip-members", "br"])
    func aBodyDecodesWhenItsBytesComeOneByOne(_ coding: String) throws {
        let server = try FixtureServer()
        let png = Array(try server.get("/ok/reference").body)
        let encoded = Array(try server.get("/encoded/\(coding)").body)
        let label = coding == "raw-deflate" ? "deflate" : coding == "gzip-members" ? "gzip" : coding
        let decoder = try #require(try ContentDecoder.make(contentEncoding: [label]))
        var decoded: [UInt8] = []
        for byte in encoded {
            let failure = [byte].withUnsafeBytes { decoder.decode($0) { decoded += $0; return nil } }
            #expect(failure == nil)
        }
        #expect(decoder.finish() == nil)
        #expect(decoded == png)
    }
}
