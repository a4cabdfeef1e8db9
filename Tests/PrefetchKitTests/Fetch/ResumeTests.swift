import Foundation
import Testing
@testable import PrefetchKit

/// A body cut part way is resumed by the next attempt with `Range` and `If-Range`, judged by what
/// the fixture server says it sent; every answer that does not continue the body starts it again.
@Suite(.timeLimit(.minutes(3)))
struct ResumeTests {
    /// One line of the server's `/sent/<name>`: a response it sent for the name.
    struct Sent: Equatable, CustomStringConvertible {
        var status: Int
        var range: String
        var bytes: Int
        var ifRange: String

        var description: String { "\(status) \(range) \(bytes) \(ifRange)" }
    }

    static func sent(_ server: FixtureServer, _ name: String) throws -> [Sent] {
        try server.text("/sent/\(name)").split(separator: "\n").map { line in
            let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
            return Sent(status: Int(fields[0]) ?? 0, range: fields[1], bytes: Int(fields[2]) ?? -1, ifRange: fields[3])
        }
    }

    /// The image `/resumable/<name>/<kib>/...` serves, whole (`version` 2: after new-etag's change).
    static func image(_ server: FixtureServer, _ name: String, kib: Int = 512, version: Int = 1) throws -> Data {
        let (status, body) = try server.get("/resumable-image/\(name)/\(kib)/\(version)")
        #expect(status == 200)
        return body
    }

    static func sha256(_ data: Data) -> [UInt8] {
        let hasher = DigestHasher(.sha256)
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    static func request(_ harness: FetchHarness, _ name: String, mode: String, kib: Int = 512) -> FetchRequest {
        var request = harness.request("/resumable/\(name)/\(kib)/90/\(mode)",
                                      retry: RetryPolicy(retries: 1, baseDelay: .milliseconds(20), jitter: 0))
        request.computesChecksum = true
        request.keptHeadBytes = 64
        return request
    }

    /// Cut at 90 %, the retry asks for the rest and the server sends at most 15 % of the body again;
    /// the file, its checksum and head, and the digest header of the response that began it cover
    /// the whole body.
    @Test(arguments: ["range", "last-modified", "repr-digest"])
    func aCutBodyIsResumedWithARangeRequest(mode: String) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let name = "cut-\(mode)"
        let whole = try Self.image(harness.server, name)
        let request = Self.request(harness, name, mode: mode)

        let result = await harness.engine.fetch(request)

        let response = try #require(result.response, "\(String(describing: result.error))")
        let sent = try Self.sent(harness.server, name)
        #expect(try Data(contentsOf: URL(fileURLWithPath: request.destination)) == whole)
        #expect(response.status == 206)
        #expect(response.bytes == Int64(whole.count))
        #expect(response.head == Array(whole.prefix(64)))
        #expect(response.checksum == (try ContentHasher.checksum(ofFileAt: request.destination)))
        #expect(result.attempts == 2)
        try #require(sent.count == 2, "\(sent)")
        #expect(sent[0].status == 200 && sent[0].range == "-")
        #expect(sent[0].bytes >= whole.count * 85 / 100)
        #expect(sent[1].status == 206)
        #expect(sent[1].range == "bytes=\(sent[0].bytes)-")
        #expect(sent[1].ifRange == (mode == "last-modified" ? "Wed, 21 Oct 2015 07:28:00 GMT" : "\"\(name)-v1\""))
        #expect(sent[1].bytes <= whole.count * 15 / 100)
    }

    /// A url_file digest is checked over the whole resumed body: the image's own passes, another's fails.
    @Test(arguments: [true, false])
    func anExpectedDigestCoversTheWholeResumedBody(right: Bool) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let name = "digest-\(right)"
        let whole = try Self.image(harness.server, name)
        var request = Self.request(harness, name, mode: "range")
        request.expectedDigest = ExpectedDigest(.sha256, Self.sha256(right ? whole : whole.dropLast()), from: .urlFile)

        let result = await harness.engine.fetch(request)

        #expect(try Self.sent(harness.server, name).map(\.status) == [200, 206])
        if right {
            #expect(result.response?.status == 206, "\(String(describing: result.error))")
        } else {
            #expect(result.error?.reason == "digest_mismatch")
            #expect(!harness.exists(request.destination))
        }
    }

    /// Every answer to the Range request that does not continue the body asked for starts it again
    /// from byte 0, and the file is the image the server serves then: a 200 in its place (taken as
    /// it comes), a changed ETag (If-Range fails, so a 200 of the new image), a 206 from another byte,
    /// with another ETag, of another whole length, in a content coding, stopping short of the end or
    /// running past it (aborted, then asked for whole).
    @Test(arguments: [("ignore-range", [200, 200], 1), ("new-etag", [200, 200], 2), ("bad-range", [200, 206, 200], 1),
                      ("lying-etag", [200, 206, 200], 1), ("longer", [200, 206, 200], 1), ("encoded", [200, 206, 200], 1),
                      ("short-range", [200, 206, 200], 1), ("past-end", [200, 206, 200], 1)])
    func anAnswerThatDoesNotContinueTheBodyStartsItAgain(mode: String, statuses: [Int], version: Int) async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let name = "restart-\(mode)"
        let whole = try Self.image(harness.server, name, version: version)
        let request = Self.request(harness, name, mode: mode)

        let result = await harness.engine.fetch(request)

        let response = try #require(result.response, "\(String(describing: result.error))")
        let sent = try Self.sent(harness.server, name)
        #expect(sent.map(\.status) == statuses, "\(sent)")
        #expect(sent.dropFirst().first?.range == "bytes=\(sent.first?.bytes ?? 0)-")
        #expect(sent.last?.bytes == whole.count)
        #expect(response.status == 200)
        #expect(try Data(contentsOf: URL(fileURLWithPath: request.destination)) == whole)
        #expect(response.checksum == (try ContentHasher.checksum(ofFileAt: request.destination)))
        #expect(response.head == Array(whole.prefix(64)))
    }

    /// A body cut with no retry left is a failure; a file the engine made for it is removed, and one
    /// the caller holds open is reported kept, with what an earlier run needs to resume it.
    @Test func theLastCutKeepsTheBodyOnlyInTheCallersFile() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var owned = Self.request(harness, "kept-owned", mode: "range")
        owned.retry = RetryPolicy(retries: 0)
        let lost = await harness.engine.fetch(owned)
        #expect(lost.error?.reason == "truncated_body")
        #expect(lost.kept == nil)
        #expect(!harness.exists(owned.destination))

        var borrowed = Self.request(harness, "kept-borrowed", mode: "range")
        borrowed.retry = RetryPolicy(retries: 0)
        let descriptor = open(borrowed.destination, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        borrowed.destinationDescriptor = descriptor
        let cut = await harness.engine.fetch(borrowed)
        #expect(cut.error?.reason == "truncated_body")
        let kept = try #require(cut.kept)
        let whole = try Self.image(harness.server, "kept-borrowed")
        #expect(kept.validator == .etag("\"kept-borrowed-v1\""))
        #expect(try Data(contentsOf: URL(fileURLWithPath: borrowed.destination)) == whole.prefix(Int(kept.offset)))

        // A later request resumes from the file alone, its prefix read back for the hashes.
        var later = borrowed
        guard let point = ResumePoint.reading(descriptor, size: kept.offset, validator: kept.validator, for: borrowed) else {
            Issue.record("the kept bytes could not be read back")
            return
        }
        later.resume = point
        let resumed = await harness.engine.fetch(later)
        #expect(resumed.response?.status == 206, "\(String(describing: resumed.error))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: borrowed.destination)) == whole)
        #expect(resumed.response?.checksum == (try ContentHasher.checksum(ofFileAt: borrowed.destination)))
        #expect(try Self.sent(harness.server, "kept-borrowed").last?.bytes ?? .max <= whole.count * 15 / 100)
    }
}
