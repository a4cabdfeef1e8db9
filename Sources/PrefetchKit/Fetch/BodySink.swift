/// Where a kept body's bytes go on the network thread, after any content decoding: counted against
/// `maxBytes`, their first bytes kept in memory for the header check, added to the stored body's
/// hashes, and copied into chunks that the `BodyWriter` writes into the file. When every chunk is in use
/// (the writers are behind), the bytes are written on the network thread itself, so memory stays bounded.
final class BodySink {
    private let file: BodyFile
    private let writer: BodyWriter
    private let maxBytes: Int64
    private let keptHeadBytes: Int
    /// The destination's name, for messages.
    private let destination: String
    let hashes: StoredBodyHashes
    /// The chunk being filled, its bytes so far, and the file offset it starts at.
    private var chunk: BodyWriter.Chunk?
    private var filled = 0
    private var offset: Int64 = 0
    /// Bytes taken so far.
    private(set) var bytes: Int64 = 0
    /// The body's first bytes, up to `keptHeadBytes`.
    private(set) var head: [UInt8] = []

    /// A sink for a body from its first byte, or, `resuming` a cut one, from where it stands: the
    /// bytes already in the file count, and the hashes and head go on from them.
    init(file: BodyFile, writer: BodyWriter, request: FetchRequest, resuming resume: ResumePoint? = nil) {
        self.file = file
        self.writer = writer
        maxBytes = request.maxBytes
        keptHeadBytes = request.keptHeadBytes
        destination = request.destination
        if let resume {
            hashes = resume.hashes
            offset = resume.offset
            bytes = resume.offset
            head = resume.head
        } else {
            hashes = StoredBodyHashes(checksum: request.computesChecksum, expected: request.expectedDigest)
        }
    }

    /// Takes the next bytes of the body; the failure that ends the transfer (too large, or a write that
    /// failed), else nil.
    func take(_ bytes: UnsafeRawBufferPointer) -> FetchError? {
        self.bytes += Int64(bytes.count)
        if self.bytes > maxBytes {
            return .tooLarge(limit: maxBytes)
        }
        if let failure = store(bytes) {
            return .destination(path: destination, code: failure)
        }
        let wanted = keptHeadBytes - head.count
        if wanted > 0 {
            head.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(wanted)))
        }
        return nil
    }

    /// Copies bytes into chunks and hands each full one to the writer, or writes them itself when no
    /// chunk is free. The system's error number when that write fails.
    private func store(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        var rest = bytes
        while !rest.isEmpty {
            if chunk == nil {
                chunk = writer.takeChunk()
            }
            guard let current = chunk else {
                hashes.update(rest)
                let failure = BodyFile.writeAll(rest, to: file.descriptor, at: offset)
                offset += Int64(rest.count)
                return failure
            }
            let count = min(rest.count, BodyWriter.chunkSize - filled)
            (current.base + filled).copyMemory(from: rest.baseAddress!, byteCount: count)
            filled += count
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(count))
            if filled == BodyWriter.chunkSize {
                handOverChunk()
            }
        }
        return nil
    }

    /// Hands the chunk being filled, if it holds anything, to the writer.
    private func handOverChunk() {
        guard let filledChunk = takeFilledChunk() else { return }
        hashes.update(filledChunk.bytes)
        writer.write(filledChunk, to: file)
    }

    /// The chunk being filled with its bytes and offset, when it holds any (an empty one goes back):
    /// the body's last bytes, which go with the file's close.
    func takeFilledChunk() -> BodyWriter.Filled? {
        guard let current = chunk else { return nil }
        chunk = nil
        defer {
            offset += Int64(filled)
            filled = 0
        }
        guard filled > 0 else {
            writer.giveBack(current)
            return nil
        }
        return BodyWriter.Filled(chunk: current, count: filled, offset: offset)
    }

    /// Hashes and writes the chunk being filled on this thread, for a body cut part way that a later
    /// attempt resumes: afterwards, once the writes in flight are done, the file and the hashes hold
    /// exactly `bytes` bytes. The system's error number when the write fails.
    func flushChunk() -> Int32? {
        guard let filledChunk = takeFilledChunk() else { return nil }
        hashes.update(filledChunk.bytes)
        let failure = BodyFile.writeAll(filledChunk.bytes, to: file.descriptor, at: filledChunk.offset)
        writer.giveBack(filledChunk.chunk)
        return failure
    }

    /// Gives the chunk being filled back unwritten, for a body that is given up.
    func dropChunk() {
        if let current = chunk {
            writer.giveBack(current)
            chunk = nil
            filled = 0
        }
    }
}

@available(*, unavailable) extension BodySink: Sendable {}
