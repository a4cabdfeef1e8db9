internal import CAVIF

/// AVIF through libavif (AV1 by dav1d, the first decoder Debian's libavif links): the container
/// parsed with libavif's strict defaults, the limits checked from what the parse declares (the
/// primary item's `ispe`, or the sequence's track and sample count), then every frame decoded. libavif
/// is opened on the first AVIF (`pf_avif_library`); one that cannot be opened fails that body as the
/// decoder's failure, with the loader's reason.
enum AVIFDecoder {
    /// The container only: dimensions and frame count, no AV1 data decoded.
    static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageInfo {
        try AVIFContainer.normalized(bytes) { bytes throws(ImageError) in
            try withDecoder(bytes) { decoder, _ throws(ImageError) in info(decoder) }
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        try AVIFContainer.normalized(bytes) { bytes throws(ImageError) in
            try withDecoder(bytes) { decoder, avif throws(ImageError) in
                let info = info(decoder)
                try limits.checkCanvas(.avif, width: info.width, height: info.height)
                try limits.checkFrames(.avif, frames: info.frames, canvasPixels: info.pixels)
                for frame in 1...info.frames {
                    let (result, trace) = LibraryTrace.capturing { avif.decoder_next_image(decoder) }
                    guard result == AVIF_RESULT_OK else {
                        throw failure(result, decoder, avif, trace: trace, during: "frame \(frame) of \(info.frames)")
                    }
                }
                return info
            }
        }
    }

    /// The first frame (a still's image, a sequence's first) in 8-bit RGB, or RGBA when it has alpha,
    /// with its colour profile: what a variant is made of when libvips cannot open the file.
    static func firstFrame(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) -> DecodedPixels {
        try AVIFContainer.normalized(bytes) { bytes throws(ImageError) in
            try withDecoder(bytes) { decoder, avif throws(ImageError) in
                let info = info(decoder)
                try limits.checkCanvas(.avif, width: info.width, height: info.height)
                let (result, trace) = LibraryTrace.capturing { avif.decoder_next_image(decoder) }
                guard result == AVIF_RESULT_OK else {
                    throw failure(result, decoder, avif, trace: trace, during: "frame 1 of \(info.frames)")
                }
                let image: UnsafeMutablePointer<avifImage> = decoder.pointee.image
                var rgb = avifRGBImage()
                avif.rgb_image_set_defaults(&rgb, image)
                let bands = image.pointee.alphaPlane == nil ? 3 : 4
                rgb.depth = 8
                rgb.format = bands == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB
                rgb.rowBytes = rgb.width * UInt32(bands)
                var samples = [UInt8](repeating: 0, count: Int(rgb.rowBytes) * Int(rgb.height))
                let converted = samples.withUnsafeMutableBufferPointer { buffer in
                    rgb.pixels = buffer.baseAddress
                    return avif.image_yuv_to_rgb(image, &rgb)
                }
                guard converted == AVIF_RESULT_OK else {
                    throw failure(converted, decoder, avif, trace: "", during: "frame 1's conversion to RGB")
                }
                let icc = image.pointee.icc
                return DecodedPixels(width: Int(rgb.width), height: Int(rgb.height), bands: bands, samples: samples,
                                     iccProfile: icc.data.map { Array(UnsafeBufferPointer(start: $0, count: icc.size)) } ?? [])
            }
        }
    }

    private static func info(_ decoder: UnsafeMutablePointer<avifDecoder>) -> ImageInfo {
        let image = decoder.pointee.image.pointee
        return ImageInfo(format: .avif, width: Int(image.width), height: Int(image.height),
                         frames: Int(max(1, decoder.pointee.imageCount)))
    }

    /// libavif's functions, the library opened on the first call.
    static func library() throws(ImageError) -> pf_avif {
        do {
            return try OpenedLibrary.table(pf_avif_library)
        } catch {
            throw .decoderFailed(.avif, detail: "libavif is not loadable: \(error.reason)")
        }
    }

    /// A decoder parsed over `bytes`, single-threaded, with libavif's own size limit lifted to its
    /// largest (the validator's limits decide); destroyed after `body`, which gets libavif's functions too.
    private static func withDecoder<R>(
        _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeMutablePointer<avifDecoder>, pf_avif) throws(ImageError) -> R
    ) throws(ImageError) -> R {
        let avif = try library()
        guard let decoder = avif.decoder_create() else {
            throw .decoderFailed(.avif, detail: "libavif could not allocate a decoder")
        }
        defer { avif.decoder_destroy(decoder) }
        decoder.pointee.maxThreads = 1
        decoder.pointee.imageCountLimit = 0
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard avif.decoder_set_io_memory(decoder, base, bytes.count) == AVIF_RESULT_OK else {
            throw .decoderFailed(.avif, detail: "libavif refused the input buffer")
        }
        let (result, trace) = LibraryTrace.capturing { avif.decoder_parse(decoder) }
        guard result == AVIF_RESULT_OK else { throw failure(result, decoder, avif, trace: trace, during: "the container") }
        return try body(decoder, avif)
    }

    private static func failure(
        _ result: avifResult, _ decoder: UnsafeMutablePointer<avifDecoder>, _ avif: pf_avif, trace: String, during what: String
    ) -> ImageError {
        let diagnostic = withUnsafeBytes(of: decoder.pointee.diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let words = [avif.result_to_string(result).map { String(cString: $0) } ?? "", diagnostic, trace].filter { !$0.isEmpty }
        let detail = "\(what): " + words.joined(separator: ": ")
        // A box that runs past the end is a parse failure to libavif, "possibly truncated data".
        let cut = diagnostic.lowercased().contains("truncated data")
        switch result {
        case AVIF_RESULT_TRUNCATED_DATA, _ where cut:
            return .truncated(.avif, detail: detail)
        case AVIF_RESULT_NOT_IMPLEMENTED:
            return .unsupported(kind: "AVIF", detail: detail)
        case AVIF_RESULT_OUT_OF_MEMORY, AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_UNKNOWN_ERROR:
            return .decoderFailed(.avif, detail: detail)
        default:
            if let size = declaredTooLarge(diagnostic) {
                return .tooManyPixels(.avif, width: size.width, height: size.height, limit: Int(decoder.pointee.imageSizeLimit))
            }
            return .corrupt(.avif, detail: detail)
        }
    }

    /// libavif refuses an `ispe` past its own limit while parsing: "... dimensions are too large [WxH]".
    private static func declaredTooLarge(_ diagnostic: String) -> (width: Int, height: Int)? {
        guard diagnostic.contains("dimensions are too large"), let open = diagnostic.lastIndex(of: "["),
              let close = diagnostic.lastIndex(of: "]"), open < close else { return nil }
        let sides = diagnostic[diagnostic.index(after: open)..<close].split(separator: "x").compactMap { Int($0) }
        return sides.count == 2 ? (sides[0], sides[1]) : nil
    }
}
