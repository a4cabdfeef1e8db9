/// One content coding's streaming decoder (`InflateDecoder`, `BrotliDecoder`): takes the body as it
/// arrives and hands the decoded bytes on in pieces of at most `decodedPieceBytes`, so memory stays
/// bounded whatever the ratio, and stops as soon as the receiver says so.
protocol StreamDecoder: AnyObject {
    /// The coding's name, as `Content-Encoding` gives it.
    var name: String { get }
    /// True once input has come and its stream has not ended.
    var isMidStream: Bool { get }

    /// Decodes `input`, handing each piece of output to `output`; the first failure `output` returns,
    /// or the decoder's own `.badEncoding` for a corrupt stream, ends decoding and is returned.
    func decode(_ input: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) -> FetchError?) -> FetchError?
}

extension StreamDecoder {
    /// Nil when the input was a whole stream (or no input came at all), else why not.
    func finish() -> FetchError? {
        isMidStream ? .badEncoding("the \(name) body ends before its stream does") : nil
    }
}

/// The size of a decoder's output buffer.
let decodedPieceBytes = 64 << 10
