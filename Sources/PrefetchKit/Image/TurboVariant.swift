internal import CShims
import Foundation

/// The variants' fast path: a JPEG variant of a JPEG original made from the planes its decode check
/// kept (`KeptJPEG`), so the body is decoded once for the check and every variant. Each component
/// area-averaged from its DCT-scaled plane to its size in the variant, on the values as decoded;
/// the EXIF orientation applied to the small result; libjpeg-turbo's encoder at the spec's quality
/// (`shim_variant.c`).
enum TurboVariant {
    /// Whether the fast path makes `spec` of an original in `original`: a JPEG variant (`fit: inside`
    /// or `max_pixel_size`; `cover` crops go to libvips) of a JPEG.
    static func takes(_ spec: VariantSpec, original: ImageFormat?) -> Bool {
        original == .jpeg && spec.format.output(for: original) == .jpeg && !spec.target.cover
    }

    /// The variant `spec` from `kept`, or nil when the pixels were not kept or were kept for a smaller box.
    static func make(_ spec: VariantSpec, from kept: KeptJPEG) throws(VariantError) -> VariantMaker.Made? {
        guard kept.isKept else { return nil }
        let target = spec.target
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var width: UInt32 = 0
        var height: UInt32 = 0
        let status = withUnsafePointer(to: kept.raw) { raw in
            pf_variant_jpeg(raw, UInt32(kept.width), UInt32(kept.height), UInt32(clamping: target.width), UInt32(clamping: target.height),
                            Int32(spec.quality), &output, &length, &width, &height, &message, message.count)
        }
        switch status {
        case PF_VARIANT_OK:
            guard let output else { return nil }
            defer { pf_variant_free(output) }
            return VariantMaker.Made(data: Data(bytes: output, count: length), format: .jpeg, width: Int(width), height: Int(height),
                                     maker: .libjpegTurbo)
        case PF_VARIANT_TOO_SMALL:
            return nil
        default:
            throw .failed(variant: spec.name, detail: String(cBuffer: message))
        }
    }
}
