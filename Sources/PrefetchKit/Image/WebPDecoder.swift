internal import CWebP

/// A full WebP decode with libwebp: the container walked by its demuxer (which checks every chunk
/// size against the RIFF size; bytes after the RIFF chunk are ignored, as the container spec lets
/// readers do), then a still decoded at 1/8 scale (the whole bitstream is decoded;
/// only the output buffer is small), or every frame of an animation composited by WebPAnimDecoder.
enum WebPDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        let data = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        let container = try WebPContainer(data)
        let info = ImageInfo(format: .webp, width: container.width, height: container.height, frames: container.frames)
        try limits.checkCanvas(.webp, width: info.width, height: info.height)
        try limits.checkFrames(.webp, frames: info.frames, canvasPixels: info.pixels)
        if container.isAnimation {
            try decodeAnimation(data, frames: info.frames)
        } else {
            try decodeStill(bytes, width: info.width, height: info.height)
        }
        return info
    }

    private static func decodeStill(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int) throws(ImageError) {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw .decoderFailed(.webp, detail: "libwebp's header and library versions differ")
        }
        config.options.use_scaling = 1
        config.options.scaled_width = Int32(max(1, width / 8))
        config.options.scaled_height = Int32(max(1, height / 8))
        config.output.colorspace = MODE_RGBA
        let status = WebPDecode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &config)
        WebPFreeDecBuffer(&config.output)
        switch status {
        case VP8_STATUS_OK: return
        case VP8_STATUS_NOT_ENOUGH_DATA: throw .truncated(.webp, detail: "the data ends inside the bitstream")
        case VP8_STATUS_OUT_OF_MEMORY: throw .decoderFailed(.webp, detail: "libwebp ran out of memory")
        case VP8_STATUS_UNSUPPORTED_FEATURE: throw .unsupported(kind: "WebP", detail: "a feature libwebp does not decode")
        default: throw .corrupt(.webp, detail: "libwebp: \(statusName(status))")
        }
    }

    private static func decodeAnimation(_ data: WebPData, frames: Int) throws(ImageError) {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw .decoderFailed(.webp, detail: "libwebp's header and library versions differ")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        var data = data
        guard let decoder = WebPAnimDecoderNew(&data, &options) else {
            throw .corrupt(.webp, detail: "libwebp cannot set up the animation decoder")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var decoded = 0
        while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var buffer: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0 else {
                throw .corrupt(.webp, detail: "frame \(decoded + 1) of \(frames) does not decode")
            }
            decoded += 1
        }
    }

    private static func statusName(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "aborted"
        default: "status \(status.rawValue)"
        }
    }
}

/// What libwebp's demuxer reads from the container: canvas, frame count, whether it animates.
private struct WebPContainer {
    let width: Int
    let height: Int
    let frames: Int
    let isAnimation: Bool

    init(_ data: WebPData) throws(ImageError) {
        var data = data
        var state = WEBP_DEMUX_PARSING_HEADER
        let parsed = WebPDemuxPartial(&data, &state)
        defer { if let parsed { WebPDemuxDelete(parsed) } }
        guard let demuxer = parsed, state == WEBP_DEMUX_DONE else {
            if state == WEBP_DEMUX_PARSE_ERROR {
                throw .corrupt(.webp, detail: "a chunk's size or order breaks the WebP container rules")
            }
            throw .truncated(.webp, detail: "the data ends before the RIFF chunk does")
        }
        width = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH))
        height = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
        frames = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        isAnimation = WebPDemuxGetI(demuxer, WEBP_FF_FORMAT_FLAGS) & ANIMATION_FLAG.rawValue != 0
        guard frames > 0 else { throw .corrupt(.webp, detail: "the container holds no image") }
    }
}
