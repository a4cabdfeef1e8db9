/// Reads an image's dimensions from its header without decoding: PNG IHDR, the JPEG frame header
/// (SOFn) found by walking the marker segments, the GIF logical screen, the WebP VP8/VP8L/VP8X chunk;
/// the AVIF and JPEG XL containers through their libraries' parsers (libavif's box parse, libjxl's
/// basic info), which decode no pixels. Reports what the header declares; the limits are the
/// validator's business.
enum ImageHeader {
    static func read(_ format: ImageFormat, from bytes: some ImageBytes) throws(ImageError) -> ImageInfo {
        switch format {
        case .png: try png(bytes)
        case .jpeg: try jpeg(bytes)
        case .gif: try gif(bytes)
        case .webp: try webp(bytes)
        case .avif: try whole(bytes) { raw throws(ImageError) in try AVIFDecoder.header(raw) }
        case .jxl: try whole(bytes) { raw throws(ImageError) in try JXLDecoder.header(raw) }
        }
    }

    /// Formats whose header is their library's container parse, which their full decode starts with.
    static let parsedByTheirDecoders: Set<ImageFormat> = [.avif, .jxl]

    /// The parsers of the container formats take the body whole.
    private static func whole(
        _ bytes: some ImageBytes, _ parse: (UnsafeRawBufferPointer) throws(ImageError) -> ImageInfo
    ) throws(ImageError) -> ImageInfo {
        let all = try bytes.read(at: 0, length: Int(bytes.count))
        return try all.withImageBytes(parse)
    }

    /// Exactly `length` bytes at `offset`, or `truncated` naming what was being read.
    static func exactly(
        _ length: Int, at offset: Int64, of bytes: some ImageBytes, _ format: ImageFormat, reading what: String
    ) throws(ImageError) -> [UInt8] {
        let got = try bytes.read(at: offset, length: length)
        guard got.count == length else {
            throw .truncated(format, detail: "the data ends inside the \(what)")
        }
        return got
    }

    /// `exactly` two bytes, as a big-endian number.
    static func exactlyTwo(at offset: Int64, of bytes: some ImageBytes, _ format: ImageFormat, reading what: String) throws(ImageError) -> UInt16 {
        guard let value = try bytes.twoBytes(at: offset) else {
            throw .truncated(format, detail: "the data ends inside the \(what)")
        }
        return value
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static func png(_ bytes: some ImageBytes) throws(ImageError) -> ImageInfo {
        let head = try exactly(24, at: 0, of: bytes, .png, reading: "signature and IHDR")
        guard Array(head[0..<8]) == pngSignature else {
            throw .corrupt(.png, detail: "the 8-byte signature is damaged (as by a text-mode transfer)")
        }
        guard Array(head[8..<16]) == [0, 0, 0, 13] + Array("IHDR".utf8) else {
            throw .corrupt(.png, detail: "the first chunk is not a 13-byte IHDR")
        }
        let width = head.bigEndian(at: 16, size: 4)
        let height = head.bigEndian(at: 20, size: 4)
        guard width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .corrupt(.png, detail: "IHDR declares \(width)x\(height), beyond PNG's 2^31-1 limit")
        }
        return ImageInfo(format: .png, width: width, height: height)
    }

    private static func gif(_ bytes: some ImageBytes) throws(ImageError) -> ImageInfo {
        let head = try exactly(13, at: 0, of: bytes, .gif, reading: "logical screen descriptor")
        return ImageInfo(format: .gif, width: head.littleEndian(at: 6, size: 2), height: head.littleEndian(at: 8, size: 2))
    }
}

extension [UInt8] {
    func bigEndian(at offset: Int, size: Int) -> Int {
        self[offset..<offset + size].reduce(0) { $0 << 8 | Int($1) }
    }

    func littleEndian(at offset: Int, size: Int) -> Int {
        self[offset..<offset + size].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
