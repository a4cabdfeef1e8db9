internal import CJXL

/// JPEG XL through libjxl: the basic info (the size header) checked against the pixel limit, then
/// every frame decoded, each counted against the frame limits as its header arrives and before its
/// pixels are made. Pixels go to a callback that drops them, so no image buffer is allocated here.
/// libjxl is opened on the first JPEG XL (`pf_jxl_library`); one that cannot be opened fails that body
/// as the decoder's failure, with the loader's reason.
enum JXLDecoder {
    /// The size header only.
    static func header(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageInfo {
        try JXLContainer.normalized(bytes) { bytes throws(ImageError) in
            try run(bytes, limits: nil)
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        try JXLContainer.normalized(bytes) { bytes throws(ImageError) in
            try run(bytes, limits: limits)
        }
    }

    /// libjxl's functions, the library opened on the first call.
    static func library() throws(ImageError) -> pf_jxl {
        do {
            return try OpenedLibrary.table(pf_jxl_library)
        } catch {
            throw .decoderFailed(.jxl, detail: "libjxl is not loadable: \(error.reason)")
        }
    }

    /// Stops after the basic info when `limits` is nil.
    private static func run(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits?) throws(ImageError) -> ImageInfo {
        let jxl = try library()
        guard let decoder = jxl.create(nil) else {
            throw .decoderFailed(.jxl, detail: "libjxl could not allocate a decoder")
        }
        defer { jxl.destroy(decoder) }
        let events = limits == nil
            ? JXL_DEC_BASIC_INFO.rawValue
            : JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue
        guard jxl.subscribe_events(decoder, Int32(events)) == JXL_DEC_SUCCESS,
              jxl.set_input(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == JXL_DEC_SUCCESS
        else {
            throw .decoderFailed(.jxl, detail: "libjxl refused its settings")
        }
        // The input is not closed: data that ends early is then NEED_MORE_INPUT, not a bare error.
        var info = ImageInfo(format: .jxl, width: 0, height: 0, frames: 0)
        while true {
            let (status, trace) = LibraryTrace.capturing { jxl.process_input(decoder) }
            switch status {
            case JXL_DEC_BASIC_INFO:
                var basic = JxlBasicInfo()
                _ = jxl.get_basic_info(decoder, &basic)
                info.width = Int(basic.xsize)
                info.height = Int(basic.ysize)
                guard let limits else { info.frames = 1; return info }
                try limits.checkCanvas(.jxl, width: info.width, height: info.height)
            case JXL_DEC_FRAME:
                info.frames += 1
                try limits?.checkFrames(.jxl, frames: info.frames, canvasPixels: info.pixels)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
                guard jxl.set_image_out_callback(decoder, &format, dropPixels, nil) == JXL_DEC_SUCCESS else {
                    throw .decoderFailed(.jxl, detail: "libjxl refused the pixel callback")
                }
            case JXL_DEC_FULL_IMAGE:
                continue
            case JXL_DEC_SUCCESS:
                guard info.frames > 0 else { throw .corrupt(.jxl, detail: "the codestream holds no frame") }
                return info
            case JXL_DEC_NEED_MORE_INPUT:
                throw .truncated(.jxl, detail: info.width == 0 ? "the data ends before the size header" : "the data ends inside frame \(max(1, info.frames))")
            default:
                throw failure(trace, info: info)
            }
        }
    }

    /// libjxl's verdict from its trace. Debian 12's libjxl 0.7 refuses some valid files by limits
    /// that later releases dropped; those are the decoder's failure, not the body's.
    private static func failure(_ trace: String, info: ImageInfo) -> ImageError {
        let detail = trace.isEmpty ? "libjxl reports an error" : trace
        if libraryLimits.contains(where: detail.contains) {
            return .decoderFailed(.jxl, detail: "libjxl's own limit, not damage: \(detail)")
        }
        return .corrupt(.jxl, detail: info.width == 0 ? detail : "frame \(max(1, info.frames)): \(detail)")
    }

    /// Traces of libjxl 0.7 limits that newer libjxl no longer has (libjxl PR 2419).
    private static let libraryLimits = ["Too many pixels covered with splines"]
}

private let dropPixels: JxlImageOutCallback = { _, _, _, _, _ in }
