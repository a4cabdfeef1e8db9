internal import CBrotli

/// The `br` content coding (RFC 7932) through libbrotlidec's streaming decoder.
final class BrotliDecoder: StreamDecoder {
    private let state: OpaquePointer
    private let output: UnsafeMutableRawBufferPointer
    private var sawInput = false
    private var ended = false

    var name: String { "br" }
    var isMidStream: Bool { sawInput && !ended }

    init() {
        // Only a failed malloc makes this fail; that is not recoverable here.
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            fatalError("libbrotlidec could not set up a decoder")
        }
        self.state = state
        output = .allocate(byteCount: decodedPieceBytes, alignment: 16)
    }

    deinit {
        BrotliDecoderDestroyInstance(state)
        output.deallocate()
    }

    func decode(_ input: UnsafeRawBufferPointer, into sink: (UnsafeRawBufferPointer) -> FetchError?) -> FetchError? {
        guard !input.isEmpty else { return nil }
        sawInput = true
        guard !ended else { return .badEncoding("the br body goes on after the end of its stream") }
        var availableIn = input.count
        var nextIn: UnsafePointer<UInt8>? = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
        while true {
            var availableOut = output.count
            var nextOut: UnsafeMutablePointer<UInt8>? = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            let produced = output.count - availableOut
            if produced > 0, let failure = sink(UnsafeRawBufferPointer(rebasing: output[..<produced])) {
                return failure
            }
            switch result {
            case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                continue
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
                return nil
            case BROTLI_DECODER_RESULT_SUCCESS:
                ended = true
                return availableIn == 0 ? nil : .badEncoding("the br body goes on after the end of its stream")
            default:
                let message = String(cString: BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state)))
                return .badEncoding("the br body is corrupt: \(message)")
            }
        }
    }
}

@available(*, unavailable) extension BrotliDecoder: Sendable {}
