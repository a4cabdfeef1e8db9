internal import CShims

/// A JPEG's planes as its decode check left them for the variants' fast path: decoded at the
/// smallest of the DCT scales 1/8, 1/4, 1/2 and 1 that is at least twice the largest variant's size,
/// each component as the IDCT gives it (no colour conversion), with its EXIF orientation
/// (`pf_jpeg_keep`). Only 8-bit YCbCr, RGB and grey JPEGs without an embedded ICC profile or
/// fractional sampling, of at most 16 Mi pixels at that scale, are kept; for the others `declined`
/// says why and the variants go to libvips.
package final class KeptJPEG {
    var raw: pf_jpeg_keep
    /// The image's own size, before scaling.
    package private(set) var width = 0
    package private(set) var height = 0

    /// Asks the check for pixels enough for a variant inside `box` (upright).
    init(box: VariantMaker.Box) {
        raw = pf_jpeg_keep()
        raw.box_width = UInt32(clamping: max(1, box.width))
        raw.box_height = UInt32(clamping: max(1, box.height))
    }

    deinit { pf_jpeg_keep_free(&raw) }

    /// Runs the JPEG decode check on `input`, keeping the pixels.
    func check(_ input: ImageDecoder.Input, limits: ImageLimits) throws(ImageError) -> ImageInfo {
        let info = try withUnsafeMutablePointer(to: &raw) { keep throws(ImageError) in
            try ImageDecoder.jpeg(input, maxPixels: limits.maxPixels, maxScans: limits.maxScans, keep: keep)
        }
        (width, height) = (info.width, info.height)
        return info
    }

    /// Whether the check kept pixels (it did, unless the image is of a kind the fast path leaves out).
    package var isKept: Bool { raw.plane.0.pixels != nil }

    /// Why the pixels were not kept, or nil.
    package var declined: String? { raw.declined.map { String(cString: $0) } }
}
