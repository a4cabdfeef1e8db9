internal import CZlib

/// The `gzip` and `deflate` content codings through zlib's `inflate`. `gzip` takes a gzip stream
/// (concatenated members too, as gunzip does) or a zlib one; `deflate` takes a zlib stream, as RFC 9110
/// means it, or the raw deflate data some servers send under that name, told apart by the first two
/// bytes (a zlib header is a multiple of 31 with method 8).
final class InflateDecoder: StreamDecoder {
    enum Coding: String {
        case gzip, deflate
    }

    private let coding: Coding
    /// Allocated, not a stored struct: zlib keeps the stream's address and checks it on every call.
    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawBufferPointer
    private var started = false
    /// The body's first two bytes, which choose the framing; a first byte that came alone is held back here.
    private var lead: [UInt8] = []
    private var sawInput = false
    private var ended = false

    var name: String { coding.rawValue }
    var isMidStream: Bool { sawInput && !ended }

    init(_ coding: Coding) {
        self.coding = coding
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = .allocate(byteCount: decodedPieceBytes, alignment: 16)
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    func decode(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> FetchError?) -> FetchError? {
        guard !input.isEmpty else { return nil }
        sawInput = true
        guard !started else { return inflate(input, into: sink) }
        let held = lead
        lead += input.prefix(2 - lead.count)
        guard lead.count == 2 else { return nil }
        if let failure = start() { return failure }
        if !held.isEmpty, let failure = held.withUnsafeBytes({ inflate($0, into: sink) }) {
            return failure
        }
        return inflate(input, into: sink)
    }

    /// Sets zlib up for the framing the first two bytes show.
    private func start() -> FetchError? {
        let zlibHeader = lead[0] & 0x0F == 8 && (UInt16(lead[0]) << 8 | UInt16(lead[1])) % 31 == 0
        let gzipMagic = lead[0] == 0x1F && lead[1] == 0x8B
        // 15 + 32: a 32 KiB window, with gzip or zlib framing detected; -15: raw deflate.
        let windowBits: Int32 = coding == .deflate && !zlibHeader && !gzipMagic ? -15 : 15 + 32
        guard inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .badEncoding("zlib could not set up a \(coding.rawValue) decoder")
        }
        started = true
        return nil
    }

    private func inflate(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> FetchError?) -> FetchError? {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        repeat {
            if ended {
                // Another gzip member; after a zlib or raw stream, nothing may follow.
                guard coding == .gzip, inflateReset(stream) == Z_OK else {
                    return .badEncoding("the \(name) body goes on after the end of its stream")
                }
                ended = false
            }
            stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(output.count)
            let code = CZlib.inflate(stream, Z_NO_FLUSH)
            let produced = output.count - Int(stream.pointee.avail_out)
            if produced > 0, let failure = sink(UnsafeRawBufferPointer(rebasing: output[..<produced])) {
                return failure
            }
            switch code {
            case Z_STREAM_END:
                ended = true
            case Z_OK, Z_BUF_ERROR:
                break
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "error \(code)"
                return .badEncoding("the \(name) body is corrupt: \(message)")
            }
        // Until the input is used up and zlib holds no more output for it.
        } while stream.pointee.avail_in > 0 || (stream.pointee.avail_out == 0 && !ended)
        return nil
    }
}

@available(*, unavailable) extension InflateDecoder: Sendable {}
