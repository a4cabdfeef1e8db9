internal import Glibc

/// Writes response bodies into their files on threads beside the network thread.
///
/// The network thread copies a body into fixed-size chunks and hands each full chunk, and at the end
/// the last one, to the writer; the copy into the page cache (the biggest cost of a transfer on this
/// kind of machine) then runs beside the next receives, on up to two cores, instead of in line with them
/// as in a single-threaded client. Chunks are taken from a bounded set and reused: when every chunk is
/// in use, the network thread writes the bytes itself, so memory stays bounded whatever the disk does.
///
/// Each writer thread has its own queue and a file's chunks all go to one of them (chosen by its
/// descriptor): two threads writing one file wait for each other on the file's lock in the kernel,
/// which spins first, most while the disk is slow to take writes (bench/RESULTS.md, "Design figures").
final class BodyWriter: Sendable {
    /// Bytes per chunk: one `pwrite` each, at offsets aligned to it.
    static let chunkSize = 128 << 10

    /// One single-threaded pool per writer thread.
    private let lanes: [WorkerPool]
    private let spare: Locked<Spare>

    private struct Spare {
        var chunks: [Chunk] = []
        /// Chunks allocated so far, at most `limit`.
        var allocated = 0
        let limit: Int
    }

    /// A chunk's memory, owned by one thread at a time: the network thread while it fills the chunk,
    /// then the writer thread it was handed to, until it goes back to the spare set.
    struct Chunk: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
    }

    /// `threads` writer threads; at most `chunks` chunks exist at once.
    init(threads: Int, chunks: Int) {
        lanes = (0..<max(threads, 1)).map { WorkerPool(name: "prefetchd.fetch.writer\($0)", width: 1) }
        spare = Locked(Spare(limit: max(chunks, 1)))
    }

    deinit {
        waitUntilIdle()
        for chunk in spare.withLock({ $0.chunks }) {
            chunk.base.deallocate()
        }
    }

    /// A chunk to fill, or nil when every chunk is in use (the caller then writes the bytes itself).
    func takeChunk() -> Chunk? {
        spare.withLock { spare in
            if let chunk = spare.chunks.popLast() {
                return chunk
            }
            guard spare.allocated < spare.limit else { return nil }
            spare.allocated += 1
            return Chunk(base: UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: 4096))
        }
    }

    /// Gives back a chunk that was not handed to `write`.
    func giveBack(_ chunk: Chunk) {
        spare.withLock { $0.chunks.append(chunk) }
    }

    /// A chunk holding `count` bytes of a body, which start at `offset` in its file.
    struct Filled: Sendable {
        let chunk: Chunk
        let count: Int
        let offset: Int64

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: chunk.base, count: count) }
    }

    /// A body's hashes in progress, handed from the network thread to the writer that takes the
    /// body's last chunk. One thread uses them at a time; the hand-over through the file's lane orders them.
    struct PendingHashes: @unchecked Sendable {
        let hashes: StoredBodyHashes
    }

    /// Writes the chunk's bytes into the file on a writer thread; the chunk goes back to the spare set after.
    func write(_ filled: Filled, to file: BodyFile) {
        file.beginWrite()
        lane(of: file).submit { [self] in
            file.endWrite(failure: writeOut(filled, to: file))
        }
    }

    /// Writes the body's `last` chunk, closes the file once all its writes are done and calls `then`
    /// with their first failure, always on a writer thread: the last chunk (or a no-op) is queued
    /// behind the file's other chunks, so whichever write ends last closes the file there, never on
    /// the network thread. One hand-off per body that fits in a chunk. The last chunk goes into
    /// `hashes` there too, which for most bodies is all of the hashes' work.
    func close(
        _ file: BodyFile, after last: Filled?, hashes: PendingHashes?, then: @escaping @Sendable (Int32?) -> Void
    ) {
        file.beginWrite()
        file.closeWhenWritten(then: then)
        lane(of: file).submit { [self] in
            if let last { hashes?.hashes.update(last.bytes) }
            file.endWrite(failure: last.flatMap { writeOut($0, to: file) })
        }
    }

    /// The thread that writes every chunk of `file`.
    private func lane(of file: BodyFile) -> WorkerPool {
        lanes[Int(file.descriptor) % lanes.count]
    }

    private func writeOut(_ filled: Filled, to file: BodyFile) -> Int32? {
        let failure = BodyFile.writeAll(filled.bytes, to: file.descriptor, at: filled.offset)
        giveBack(filled.chunk)
        return failure
    }

    /// True on a writer thread.
    var isCurrentThreadWriter: Bool {
        lanes.contains { $0.isCurrentThreadWorker }
    }

    /// Waits until every write and finish handed over so far has run.
    func waitUntilIdle() {
        for lane in lanes {
            lane.waitUntilIdle()
        }
    }
}
