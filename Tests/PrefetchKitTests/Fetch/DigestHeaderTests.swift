import Foundation
import Testing
@testable import PrefetchKit

/// Digest headers checked over the body as sent: a match stores it, a mismatch fails the request with
/// no file, a malformed value is left out with a warning.
@Suite(.timeLimit(.minutes(3)))
struct DigestHeaderTests {
    static let headers = ["content-md5", "digest-md5", "digest-sha256", "digest-sha512", "repr-sha256", "repr-sha512"]

    /// A right digest stores the body; so does a malformed one, which is left out with a warning.
    @Test(arguments: headers, ["right", "malformed"])
    func aRightOrMalformedDigestStoresTheBody(_ header: String, verdict: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/digest/\(header)/\(verdict)")

        let result = await harness.engine.fetch(request)

        let response = try #require(result.response, "\(String(describing: result.error))")
        #expect(harness.exists(request.destination))
        if verdict == "right" {
            #expect(response.warnings.isEmpty)
        } else {
            #expect(response.warnings.count == 1)
            #expect(response.warnings.first?.contains("is not the base64 of") == true, "\(response.warnings)")
        }
    }

    @Test(arguments: headers)
    func aWrongDigestFailsWithNoFile(_ header: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/digest/\(header)/wrong", retry: RetryPolicy(retries: 2, baseDelay: .milliseconds(1)))

        let result = await harness.engine.fetch(request)

        let error = try #require(result.error)
        #expect(error.reason == "digest_mismatch")
        let name = header == "content-md5" ? "Content-MD5" : header.hasPrefix("digest") ? "Digest" : "Repr-Digest"
        let algorithm = header.split(separator: "-").last.map { $0 == "md5" ? "md5" : String($0) } ?? ""
        let png = try harness.server.get("/ok/reference").body
        let got = Self.hex(png, algorithm)
        #expect(error.description.contains("the \(name) header gives \(algorithm) "), "\(error)")
        #expect(error.description.contains("the body has \(got)"), "\(error)")
        #expect(!error.description.contains("\n"))
        #expect(result.attempts == 1)
        #expect(!harness.exists(request.destination))
    }

    /// Of several digests the strongest decides, whichever else is wrong.
    @Test(arguments: [("wrong", "right", true), ("right", "wrong", false)])
    func theStrongestDigestDecides(md5: String, sha512: String, stored: Bool) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/digest-pair/\(md5)/\(sha512)")

        let result = await harness.engine.fetch(request)

        #expect((result.response != nil) == stored)
        #expect(result.error == nil || result.error?.reason == "digest_mismatch")
        #expect(harness.exists(request.destination) == stored)
    }

    /// Repr-Digest covers the bytes as sent: over a gzip body it is the digest of the gzip bytes, not of
    /// the image they decode to.
    @Test(arguments: [("encoded", true), ("decoded", false)])
    func aDigestHeaderCoversTheEncodedBytes(covering: String, stored: Bool) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/encoded/gzip/\(covering)")

        let result = await harness.engine.fetch(request)

        #expect((result.response != nil) == stored, "\(String(describing: result.error))")
        #expect(result.error == nil || result.error?.reason == "digest_mismatch")
        #expect(harness.exists(request.destination) == stored)
    }

    /// A request's expected digest (a url_file line's) covers the body as stored, decoded.
    @Test(arguments: [("/ok/a", true, true), ("/ok/a", false, false), ("/encoded/br", true, true)])
    func anExpectedDigestCoversTheStoredBytes(path: String, right: Bool, stored: Bool) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let png = try harness.server.get("/ok/reference").body
        var request = harness.request(path)
        let digest = Self.digest(right ? png : png + [0], "sha512")
        request.expectedDigest = ExpectedDigest(.sha512, digest, from: .urlFile)
        request.computesChecksum = true

        let result = await harness.engine.fetch(request)

        #expect((result.response != nil) == stored, "\(String(describing: result.error))")
        if !stored {
            #expect(result.error?.reason == "digest_mismatch")
            #expect(result.error?.description.contains("the url_file line gives sha512 \(CacheDigest.hex(digest))") == true)
        } else {
            #expect(result.response?.checksum?.hasPrefix("xxh3:") == true)
        }
        #expect(harness.exists(request.destination) == stored)
    }

    @Test func valuesAreReadAsTheirHeadersSpellThem() {
        let sha256 = Array(repeating: UInt8(7), count: 32)
        let unpadded = Data(sha256).base64EncodedString().replacingOccurrences(of: "=", with: "")
        let chosen = ServerDigest.choose(contentMD5: [], digest: ["UNIXsum=30637, SHA=thvDyvhfIqlvFe+A9MYgxAfm1q5=",
                                                                  "sha-256=" + unpadded],
                                         reprDigest: ["sha-256=:\(unpadded):;p=1, md5=:AAAAAAAAAAAAAAAAAAAAAA==:"])
        #expect(chosen.expected == ExpectedDigest(.sha256, sha256, from: .reprDigest))
        #expect(chosen.warnings.isEmpty)
        let bare = ServerDigest.choose(contentMD5: [], digest: [], reprDigest: ["sha-512=\(unpadded)"])
        #expect(bare.expected == nil)
        #expect(bare.warnings.count == 1)
    }

    static func digest(_ data: Data, _ algorithm: String) -> [UInt8] {
        let hasher = DigestHasher(algorithm == "md5" ? .md5 : algorithm == "sha256" ? .sha256 : .sha512)
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    static func hex(_ data: Data, _ algorithm: String) -> String {
        CacheDigest.hex(digest(data, algorithm))
    }
}
