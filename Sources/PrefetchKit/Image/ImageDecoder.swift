internal import CShims

/// Full decodes. PNG and JPEG go through the setjmp-guarded C shims (libpng, libjpeg-turbo), which
/// read the file themselves or a buffer, into one reused row; the other formats' decoders take the
/// body mapped in memory.
enum ImageDecoder {
    /// Where the bytes are.
    enum Input {
        case file(String)
        case memory([UInt8])
    }

    static func decode(_ format: ImageFormat, _ input: Input, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        switch format {
        case .png: try png(input, maxPixels: limits.maxPixels)
        case .jpeg: try jpeg(input, maxPixels: limits.maxPixels, maxScans: limits.maxScans)
        case .gif: try input.withContents { bytes throws(ImageError) in try GIFDecoder.decode(bytes, limits: limits) }
        case .webp: try input.withContents { bytes throws(ImageError) in try WebPDecoder.decode(bytes, limits: limits) }
        case .avif: try input.withContents { bytes throws(ImageError) in try AVIFDecoder.decode(bytes, limits: limits) }
        case .jxl: try input.withContents { bytes throws(ImageError) in try JXLDecoder.decode(bytes, limits: limits) }
        }
    }

    private static let messageSize = 256

    static func png(_ input: Input, maxPixels: Int) throws(ImageError) -> ImageInfo {
        var width: UInt32 = 0
        var height: UInt32 = 0
        var warnings: UInt32 = 0
        var message = [CChar](repeating: 0, count: messageSize)
        let limit = UInt64(max(0, maxPixels))
        let status = switch input {
        case .file(let path):
            pf_png_check_file(path, limit, &width, &height, &warnings, &message, messageSize)
        case .memory(let bytes):
            bytes.withUnsafeBufferPointer { buffer in
                pf_png_check_memory(buffer.baseAddress, buffer.count, limit, &width, &height, &warnings, &message, messageSize)
            }
        }
        let detail = String(cBuffer: message)
        let (w, h) = (Int(width), Int(height))
        switch status {
        case PF_PNG_OK: return ImageInfo(format: .png, width: w, height: h, warnings: pngWarnings(warnings))
        case PF_PNG_TRUNCATED: throw .truncated(.png, detail: detail)
        case PF_PNG_TOO_MANY_PIXELS: throw .tooManyPixels(.png, width: w, height: h, limit: maxPixels)
        case PF_PNG_UNREADABLE: throw .unreadable(path: input.path, detail: detail)
        case PF_PNG_FAILED: throw .decoderFailed(.png, detail: detail)
        default: throw .corrupt(.png, detail: detail)
        }
    }

    /// The benign kinds the shim counted, by their report names.
    private static func pngWarnings(_ bits: UInt32) -> [String] {
        [(UInt32(PF_PNG_WARNING_TRNS_OUT_OF_RANGE), "png_trns_out_of_range"),
         (UInt32(PF_PNG_WARNING_ANCILLARY_CRC), "png_ancillary_crc")]
            .filter { bits & $0.0 != 0 }.map(\.1)
    }

    /// With `keep`, the check keeps its decoded planes for the variants (`KeptJPEG`).
    static func jpeg(_ input: Input, maxPixels: Int, maxScans: Int, keep: UnsafeMutablePointer<pf_jpeg_keep>? = nil) throws(ImageError) -> ImageInfo {
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: messageSize)
        let limit = UInt64(max(0, maxPixels))
        let scans = Int32(clamping: max(0, maxScans))
        let status = switch input {
        case .file(let path):
            pf_jpeg_check_file(path, limit, scans, keep, &width, &height, &message, messageSize)
        case .memory(let bytes):
            bytes.withUnsafeBufferPointer { buffer in
                pf_jpeg_check_memory(buffer.baseAddress, buffer.count, limit, scans, keep, &width, &height, &message, messageSize)
            }
        }
        let detail = String(cBuffer: message)
        let (w, h) = (Int(width), Int(height))
        switch status {
        case PF_JPEG_OK: return ImageInfo(format: .jpeg, width: w, height: h)
        case PF_JPEG_TRUNCATED: throw .truncated(.jpeg, detail: detail)
        case PF_JPEG_TOO_MANY_PIXELS: throw .tooManyPixels(.jpeg, width: w, height: h, limit: maxPixels)
        case PF_JPEG_ZERO_PIXELS: throw .zeroPixels(.jpeg, width: w, height: h)
        case PF_JPEG_TOO_MANY_SCANS: throw .tooManyScans(limit: maxScans)
        case PF_JPEG_UNSUPPORTED: throw .unsupported(kind: "JPEG", detail: detail)
        case PF_JPEG_UNREADABLE: throw .unreadable(path: input.path, detail: detail)
        case PF_JPEG_FAILED: throw .decoderFailed(.jpeg, detail: detail)
        default: throw .corrupt(.jpeg, detail: detail)
        }
    }
}

extension ImageDecoder.Input {
    /// The file's path, or a stand-in for a buffer in messages.
    var path: String {
        switch self {
        case .file(let path): path
        case .memory: "<memory>"
        }
    }
}
