/// Where a kept body's bytes go on the network thread, after any content decoding: counted against
/// `maxBytes`, their first bytes kept in memory for the header check, added to the stored body's
/// hashes, and written into the file straight from the buffer they arrived in (libcurl's, or the
/// decoder's), so that the file and the hashes always hold exactly the bytes taken.
final class BodySink {
    private let file: BodyFile
    private let maxBytes: Int64
    private let keptHeadBytes: Int
    /// The destination's name, for messages.
    private let destination: String
    let hashes: StoredBodyHashes
    /// Bytes taken so far, each in the file at its own offset.
    private(set) var bytes: Int64 = 0
    /// The body's first bytes, up to `keptHeadBytes`.
    private(set) var head: [UInt8] = []

    /// A sink for a body from its first byte, or, `resuming` a cut one, from where it stands: the
    /// bytes already in the file count, and the hashes and head go on from them.
    init(file: BodyFile, request: FetchRequest, resuming resume: ResumePoint? = nil) {
        self.file = file
        maxBytes = request.maxBytes
        keptHeadBytes = request.keptHeadBytes
        destination = request.destination
        if let resume {
            hashes = resume.hashes
            bytes = resume.offset
            head = resume.head
        } else {
            hashes = StoredBodyHashes(checksum: request.computesChecksum, expected: request.expectedDigest)
        }
    }

    /// The first read's size from which the head's whole room is taken at once.
    static let headReserveThreshold = 4096

    /// Takes the next bytes of the body; the failure that ends the transfer (too large, or a write that
    /// failed), else nil.
    func take(_ bytes: UnsafeRawBufferPointer) -> FetchError? {
        let offset = self.bytes
        self.bytes += Int64(bytes.count)
        if self.bytes > maxBytes {
            return .tooLarge(limit: maxBytes)
        }
        hashes.update(bytes)
        if let failure = BodyFile.writeAll(bytes, to: file.descriptor, at: offset) {
            return .destination(path: destination, code: failure)
        }
        let wanted = keptHeadBytes - head.count
        if wanted > 0 {
            // Room for the whole head when the first bytes are a buffer's worth (a body of more to
            // come, as a rule): grown by appends, it was copied again at every doubling. A small first
            // read (a small body, which a million-URL job may be all of) gets no more than it holds.
            if head.isEmpty, bytes.count >= Self.headReserveThreshold { head.reserveCapacity(keptHeadBytes) }
            head.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(wanted)))
        }
        return nil
    }
}

@available(*, unavailable) extension BodySink: Sendable {}
