/// Where a kept body's bytes go on the network thread, after any content decoding: counted against
/// `maxBytes`, their first bytes kept in memory for the header check, added to the stored body's
/// hashes, and gathered into a page-aligned buffer that is written to the file whenever it fills, at
/// page-aligned offsets, and once more by `flush`, after which the file and the hashes hold exactly
/// the bytes taken.
///
/// Written as they came, straight from libcurl's buffer, a body over TLS was a write for every
/// 16,366-byte record, each starting mid-page; gathered, it is a write per 64 KiB, and the HTTPS
/// header run spent about 6 % less CPU by hand, all of it in the kernel, a gain inside the spread of
/// the benchmark's rounds (bench/RESULTS.md, "Bodies written 64 KiB at a time"). Over HTTP/1.1,
/// where libcurl's reads were already large, it is level. Only a transfer holds a buffer: it goes
/// when the attempt settles.
final class BodySink {
    private let file: BodyFile
    private let maxBytes: Int64
    private let keptHeadBytes: Int
    /// The destination's name, for messages.
    private let destination: String
    let hashes: StoredBodyHashes
    /// Bytes taken so far; all of them in the file after `flush`.
    private(set) var bytes: Int64 = 0
    /// The bytes taken and not yet written, `staged` of them, which go at `stagedAt`.
    private var staging: UnsafeMutableRawBufferPointer?
    private var staged = 0
    private var stagedAt: Int64 = 0
    /// Where the buffer counts as full: its size, less, for a body resumed mid-page, what brings
    /// the next write to a page's start.
    private var stagingLimit = BodySink.stagingBytes
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
            stagedAt = resume.offset
            head = resume.head
            stagingLimit -= Int(resume.offset % Int64(Self.pageBytes))
        } else {
            hashes = StoredBodyHashes(checksum: request.computesChecksum, expected: request.expectedDigest)
        }
    }

    deinit {
        staging?.deallocate()
    }

    /// The first read's size from which the head's whole room is taken at once.
    static let headReserveThreshold = 4096
    /// The staging buffer's size: under glibc's threshold for mapping an allocation of its own, so that
    /// a body's buffer comes from the heap the last one went back to.
    static let stagingBytes = 64 * 1024
    private static let pageBytes = 4096

    /// Takes the next bytes of the body; the failure that ends the transfer (too large, or a write that
    /// failed), else nil.
    func take(_ bytes: UnsafeRawBufferPointer) -> FetchError? {
        self.bytes += Int64(bytes.count)
        if self.bytes > maxBytes {
            return .tooLarge(limit: maxBytes)
        }
        hashes.update(bytes)
        if let failure = stage(bytes) {
            return failure
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

    /// Writes what the buffer holds; the write's failure, else nil.
    func flush() -> FetchError? {
        guard let staging, staged > 0 else { return nil }
        let failure = BodyFile.writeAll(UnsafeRawBufferPointer(rebasing: staging[..<staged]), to: file.descriptor, at: stagedAt)
        stagedAt += Int64(staged)
        staged = 0
        stagingLimit = Self.stagingBytes
        return failure.map { .destination(path: destination, code: $0) }
    }

    /// Copies `bytes` into the buffer, writing it out each time it fills.
    private func stage(_ bytes: UnsafeRawBufferPointer) -> FetchError? {
        let buffer = staging ?? .allocate(byteCount: Self.stagingBytes, alignment: Self.pageBytes)
        staging = buffer
        var rest = bytes[...]
        while !rest.isEmpty {
            let count = min(rest.count, stagingLimit - staged)
            UnsafeMutableRawBufferPointer(rebasing: buffer[staged..<(staged + count)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest.prefix(count)))
            staged += count
            rest = rest.dropFirst(count)
            if staged == stagingLimit, let failure = flush() {
                return failure
            }
        }
        return nil
    }
}

@available(*, unavailable) extension BodySink: Sendable {}
