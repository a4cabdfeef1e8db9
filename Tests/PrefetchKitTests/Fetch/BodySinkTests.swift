import Foundation
import Testing
@testable import PrefetchKit

/// The sink's buffer: every byte taken is in the file at its own offset once the sink is flushed, and
/// until then the file holds whole pages from the start of the body (a resumed body's first write ends
/// on a page boundary too); a write that fails is the failure of the call that made it.
struct BodySinkTests {
    private static let page: Int64 = 4096

    /// `count` bytes that differ from piece to piece and from position to position.
    private static func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7) }
    }

    private static func size(of path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : -1
    }

    private static func sink(writing path: String, flags: Int32, resuming resume: ResumePoint? = nil) throws -> BodySink {
        let descriptor = open(path, flags | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        return BodySink(file: BodyFile(descriptor: descriptor),
                        request: FetchRequest(url: "http://127.0.0.1/body", destination: path), resuming: resume)
    }

    @Test func piecesOfAnySizeAreAllInTheFileOnceFlushedAndWholePagesBefore() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("body").path
        let sink = try Self.sink(writing: path, flags: O_WRONLY | O_CREAT)
        var sent: [UInt8] = []
        for (index, count) in [1, 16_366, 70_000, 4_095, 65_536, 3, 16_366].enumerated() {
            let piece = Self.bytes(count, seed: index)
            #expect(piece.withUnsafeBytes { sink.take($0) } == nil)
            sent += piece
            #expect(Self.size(of: path) % Self.page == 0)
        }
        #expect(Self.size(of: path) > 0)
        #expect(Self.size(of: path) < Int64(sent.count))
        #expect(sink.flush() == nil)
        #expect(sink.bytes == Int64(sent.count))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(sent))
        #expect(sink.flush() == nil)
        #expect(Self.size(of: path) == Int64(sent.count))
    }

    @Test func aResumedBodyGoesOnAtItsOffsetAndItsWritesEndOnPageBoundaries() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("body").path
        let first = Self.bytes(5_000, seed: 9)
        try Data(first).write(to: URL(fileURLWithPath: path))
        let resume = ResumePoint(offset: Int64(first.count), validator: .etag("\"v1\""),
                                 hashes: StoredBodyHashes(checksum: true, expected: nil), serverDigest: nil,
                                 digestWarnings: [], head: first)
        let sink = try Self.sink(writing: path, flags: O_WRONLY, resuming: resume)
        var sent = first
        for index in 0..<12 {
            let piece = Self.bytes(16_366, seed: index)
            #expect(piece.withUnsafeBytes { sink.take($0) } == nil)
            sent += piece
            let size = Self.size(of: path)
            #expect(size == Int64(first.count) || size % Self.page == 0)
        }
        #expect(Self.size(of: path) > Int64(first.count))
        #expect(sink.flush() == nil)
        #expect(sink.bytes == Int64(sent.count))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(sent))
    }

    @Test func aWriteThatFailsIsTheFailureOfTheTakeThatFillsTheBufferOrOfTheFlush() throws {
        // /dev/full refuses every write with ENOSPC.
        let filling = try Self.sink(writing: "/dev/full", flags: O_WRONLY)
        #expect(Self.bytes(1_000, seed: 1).withUnsafeBytes { filling.take($0) } == nil)
        guard case .destination(_, let code)? = Self.bytes(70_000, seed: 2).withUnsafeBytes({ filling.take($0) }) else {
            Issue.record("the take that filled the buffer did not fail")
            return
        }
        #expect(code == ENOSPC)

        let flushed = try Self.sink(writing: "/dev/full", flags: O_WRONLY)
        #expect(Self.bytes(1_000, seed: 3).withUnsafeBytes { flushed.take($0) } == nil)
        guard case .destination(_, let flushCode)? = flushed.flush() else {
            Issue.record("the flush did not fail")
            return
        }
        #expect(flushCode == ENOSPC)
    }
}
