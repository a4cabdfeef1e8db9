/// Checks a downloaded body at one of the `validate:` levels before it is stored.
///
/// - `none`: nothing is read; the result is `nil`.
/// - `sniff`: the body must not be empty or over `maxBytes`, and its magic bytes must name a
///   format in `formats`. Dimensions are not read and are reported as 0x0.
/// - `header`: sniff, then the dimensions from the header; zero width or height is `zero_pixels`,
///   more than `maxPixels` is `too_many_pixels`.
/// - `decode`: header, then a full strict decode of every frame: PNG (libpng), JPEG (libjpeg-turbo),
///   GIF (giflib), WebP (libwebp), AVIF (libavif with dav1d), JPEG XL (libjxl). Animations are held
///   to `maxFrames` and `maxFramePixels` before their frames are decoded.
///
/// A recognised format that `formats` leaves out is refused as `format_not_allowed`, apart from
/// `unsupported`, which means prefetchd cannot handle the format at all.
package struct ImageValidator: Sendable {
    package var level: ValidationLevel
    package var formats: Set<ImageFormat>
    package var limits: ImageLimits
    /// 0 means no byte limit.
    package var maxBytes: Int64

    package init(
        level: ValidationLevel = .decode,
        formats: Set<ImageFormat> = Set(ImageFormat.allCases),
        maxPixels: Int = ImageLimits.defaultMaxPixels,
        maxBytes: Int64 = 0,
        maxScans: Int = ImageLimits.defaultMaxScans,
        maxFrames: Int = ImageLimits.defaultMaxFrames,
        maxFramePixels: Int = ImageLimits.defaultMaxFramePixels
    ) {
        self.level = level
        self.formats = formats
        self.limits = ImageLimits(maxPixels: maxPixels, maxScans: maxScans, maxFrames: maxFrames, maxFramePixels: maxFramePixels)
        self.maxBytes = maxBytes
    }

    /// Validates a stored file without loading it whole; the decoders read it themselves.
    package func validate(fileAt path: String) throws(ImageError) -> ImageInfo? {
        guard level != .none else { return nil }
        let info = try checkHeader(of: FileImageBytes(path: path))
        return try decode(info, .file(path))
    }

    /// Validates a file of `size` bytes whose first bytes, `head`, the caller already holds: the
    /// header checks read from `head` and open the file only when they need more (or to decode).
    package func validate(fileAt path: String, head: [UInt8], size: Int64) throws(ImageError) -> ImageInfo? {
        guard level != .none else { return nil }
        let info = try checkHeader(of: HeadedImageBytes(head: head, count: size, path: path))
        return try decode(info, .file(path))
    }

    /// `validate(fileAt:head:size:)`, with a JPEG's decoded pixels kept for variants inside `box`
    /// when the level is `decode` (the same check, at a larger DCT scale); nil pixels otherwise.
    package func validate(fileAt path: String, head: [UInt8], size: Int64,
                          keepingFor box: VariantMaker.Box?) throws(ImageError) -> (info: ImageInfo?, kept: KeptJPEG?) {
        guard level == .decode, let box else { return (try validate(fileAt: path, head: head, size: size), nil) }
        let info = try checkHeader(of: HeadedImageBytes(head: head, count: size, path: path))
        guard info.format == .jpeg else { return (try decode(info, .file(path)), nil) }
        let kept = KeptJPEG(box: box)
        return (try kept.check(.file(path), limits: limits), kept)
    }

    /// Validates a body held in memory.
    package func validate(data: [UInt8]) throws(ImageError) -> ImageInfo? {
        guard level != .none else { return nil }
        let info = try checkHeader(of: MemoryImageBytes(bytes: data))
        return try decode(info, .memory(data))
    }

    /// Size, magic bytes and (from `header` up) the header's dimensions and limits.
    private func checkHeader(of bytes: some ImageBytes) throws(ImageError) -> ImageInfo {
        guard bytes.count > 0 else { throw .empty }
        guard maxBytes <= 0 || bytes.count <= maxBytes else {
            throw .tooLarge(bytes: bytes.count, limit: maxBytes)
        }
        let format: ImageFormat
        switch ImageSniffer.sniff(try bytes.read(at: 0, length: ImageSniffer.prefixLength)) {
        case .image(let sniffed): format = sniffed
        case .unsupported(let kind): throw .unsupported(kind: kind, detail: nil)
        case .notImage: throw .notImage
        }
        guard formats.contains(format) else { throw .formatNotAllowed(format) }
        guard level != .sniff else { return ImageInfo(format: format, width: 0, height: 0) }
        // Their decoders begin with the same container parse, limits included: read the body once.
        if level == .decode && ImageHeader.parsedByTheirDecoders.contains(format) {
            return ImageInfo(format: format, width: 0, height: 0)
        }

        let info = try ImageHeader.read(format, from: bytes)
        try limits.checkCanvas(format, width: info.width, height: info.height)
        return info
    }

    private func decode(_ info: ImageInfo, _ input: ImageDecoder.Input) throws(ImageError) -> ImageInfo {
        guard level == .decode else { return info }
        return try ImageDecoder.decode(info.format, input, limits: limits)
    }
}
