internal import CGIF

/// A full GIF decode with giflib: every frame's LZW data is decoded row by row into one reused row,
/// each frame checked against the limits from its image descriptor before its pixels are read.
/// The canvas is the logical screen grown to every frame's extent, as browsers draw it.
enum GIFDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        let source = GIFSource(bytes)
        var error: Int32 = 0
        guard let gif = withExtendedLifetime(source, {
            DGifOpen(Unmanaged.passUnretained(source).toOpaque(), gifRead, &error)
        }) else {
            throw source.failure(error, reading: "the logical screen descriptor")
        }
        defer { DGifCloseFile(gif, nil) }
        var walk = GIFWalk(gif: gif, source: source, limits: limits)
        defer { withExtendedLifetime(source) {} }
        return try walk.run()
    }
}

/// The walk over one open GIF's records.
private struct GIFWalk {
    let gif: UnsafeMutablePointer<GifFileType>
    let source: GIFSource
    let limits: ImageLimits
    var canvas: (width: Int, height: Int) = (0, 0)
    var frames = 0
    var row: [GifPixelType] = []

    init(gif: UnsafeMutablePointer<GifFileType>, source: GIFSource, limits: ImageLimits) {
        self.gif = gif
        self.source = source
        self.limits = limits
        canvas = (Int(gif.pointee.SWidth), Int(gif.pointee.SHeight))
    }

    mutating func run() throws(ImageError) -> ImageInfo {
        try limits.checkCanvas(.gif, width: canvas.width, height: canvas.height)
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else {
                throw source.failure(gif.pointee.Error, reading: "the record after frame \(frames)")
            }
            switch record {
            case IMAGE_DESC_RECORD_TYPE: try frame()
            case EXTENSION_RECORD_TYPE: try skipExtension()
            case TERMINATE_RECORD_TYPE: return try finish()
            default: throw .corrupt(.gif, detail: "unknown record type after frame \(frames)")
            }
        }
    }

    private mutating func frame() throws(ImageError) {
        guard DGifGetImageDesc(gif) == GIF_OK else {
            throw source.failure(gif.pointee.Error, reading: "the image descriptor of frame \(frames + 1)")
        }
        frames += 1
        let image = gif.pointee.Image
        let (width, height) = (Int(image.Width), Int(image.Height))
        guard width > 0, height > 0 else {
            throw .corrupt(.gif, detail: "frame \(frames) is \(width)x\(height): it has no pixels")
        }
        try limits.checkCanvas(.gif, width: width, height: height)
        canvas = (max(canvas.width, Int(image.Left) + width), max(canvas.height, Int(image.Top) + height))
        try limits.checkCanvas(.gif, width: canvas.width, height: canvas.height)
        try limits.checkFrames(.gif, frames: frames, canvasPixels: canvas.width * canvas.height)
        if row.count < width { row = [GifPixelType](repeating: 0, count: width) }
        for _ in 0..<height {
            guard DGifGetLine(gif, &row, Int32(width)) == GIF_OK else {
                throw source.failure(gif.pointee.Error, reading: "the LZW data of frame \(frames)")
            }
        }
    }

    private func skipExtension() throws(ImageError) {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &code, &block) == GIF_OK else {
            throw source.failure(gif.pointee.Error, reading: "an extension block")
        }
        while block != nil {
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else {
                throw source.failure(gif.pointee.Error, reading: "an extension block")
            }
        }
    }

    /// The trailer ends the data stream. Bytes after it are not read, as by giflib and browsers:
    /// the format does not forbid them, and real files carry them (giflib's own porsche.gif).
    private func finish() throws(ImageError) -> ImageInfo {
        guard frames > 0 else { throw .corrupt(.gif, detail: "the data stream has no image") }
        return ImageInfo(format: .gif, width: canvas.width, height: canvas.height, frames: frames)
    }
}

/// The bytes giflib reads, through `gifRead`; remembers whether a read ran past the end.
private final class GIFSource {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    var ranOut = false

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    func read(into buffer: UnsafeMutablePointer<GifByteType>, count: Int) -> Int {
        let length = min(count, bytes.count - offset)
        if length < count { ranOut = true }
        if length > 0 {
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: length)
        }
        offset += length
        return length
    }

    /// giflib's error as a verdict: a read that ran out of data is `truncated`.
    func failure(_ code: Int32, reading what: String) -> ImageError {
        if ranOut || code == D_GIF_ERR_EOF_TOO_SOON {
            return .truncated(.gif, detail: "the data ends inside \(what)")
        }
        if code == D_GIF_ERR_NOT_ENOUGH_MEM {
            return .decoderFailed(.gif, detail: "giflib ran out of memory")
        }
        let text = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        return .corrupt(.gif, detail: "\(text) (in \(what))")
    }
}

private let gifRead: InputFunc = { gif, buffer, count in
    guard let gif, let buffer, count > 0, let user = gif.pointee.UserData else { return 0 }
    let source = Unmanaged<GIFSource>.fromOpaque(user).takeUnretainedValue()
    return Int32(source.read(into: buffer, count: Int(count)))
}
