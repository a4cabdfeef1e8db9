internal import CShims
import Foundation

/// Makes a set's variants from a stored original with libvips (`shim_vips.c`): the JPEG loader's
/// shrink-on-load (DCT scaling by 1/2, 1/4 or 1/8 while decoding; other formats are decoded whole),
/// then a Lanczos3 reduce; EXIF
/// orientation applied; an embedded colour profile converted to sRGB; never enlarged. Resampling
/// is done on the sRGB values as stored (not in linear light), as `vipsthumbnail` and ImageMagick's
/// `-thumbnail` do. Runs on the caller's thread: libvips is started with one worker per pipeline and
/// no operation cache, so the run's bounded validation pool is the CPU budget.
package enum VariantMaker {
    /// A variant's encoded bytes and what they are.
    package struct Made: Sendable {
        package var data: Data
        package var format: ImageFormat
        package var width: Int
        package var height: Int
    }

    /// The variant `spec` of the image in the file at `path`.
    package static func make(_ spec: VariantSpec, fromFileAt path: String, format original: ImageFormat?) throws(VariantError) -> Made {
        let input: Data
        do {
            input = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw .failed(variant: spec.name, detail: "cannot read the original: \(error.localizedDescription)")
        }
        return try make(spec, from: input, format: original)
    }

    /// The variant `spec` of the encoded image `input`.
    package static func make(_ spec: VariantSpec, from input: Data, format original: ImageFormat?) throws(VariantError) -> Made {
        let format = spec.format.output(for: original)
        let code: Int32 = switch format {
        case .jpeg: Int32(SHIM_VIPS_JPEG)
        case .webp: Int32(SHIM_VIPS_WEBP)
        default: Int32(SHIM_VIPS_PNG)
        }
        let target = spec.target
        var message = [CChar](repeating: 0, count: 512)
        var output: UnsafeMutableRawPointer?
        var length = 0
        var width: Int32 = 0
        var height: Int32 = 0
        let status = input.withUnsafeBytes { bytes in
            // Shrink-on-load for JPEG only (DCT scaling); a WebP's is libwebp's coarser scaled decode.
            shim_vips_variant(bytes.baseAddress, bytes.count, original == .jpeg ? 1 : 0, Int32(target.width), Int32(target.height), target.cover ? 1 : 0,
                              code, Int32(spec.quality), &output, &length, &width, &height, &message, message.count)
        }
        guard status == 0, let output else {
            throw .failed(variant: spec.name, detail: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { shim_vips_free(output) }
        return Made(data: Data(bytes: output, count: length), format: format, width: Int(width), height: Int(height))
    }
}

/// Why a variant could not be made; its URL fails with reason `transform_failed`.
package enum VariantError: Error, Sendable, Equatable, CustomStringConvertible {
    case failed(variant: String, detail: String)

    package var reason: String { "transform_failed" }

    package var description: String {
        switch self {
        case .failed(let variant, let detail): "the variant `\(variant)` could not be made: \(detail)"
        }
    }
}
