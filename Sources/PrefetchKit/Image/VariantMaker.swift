internal import CShims
import Foundation

/// Makes a set's variants from a stored original, by one of two paths:
///
/// - A JPEG variant (`max_pixel_size` or `fit: inside`) of a JPEG original in YCbCr, RGB or grey
///   without an embedded ICC profile goes by the fast path (`TurboVariant`): the pixels the decode
///   check kept at the smallest of the DCT scales 1/8, 1/4, 1/2 and 1 that is at least twice the
///   variant's size (or, when the check did not run at `decode`, one such decode made here),
///   area-averaged to the variant's size, the EXIF orientation applied to the small result, encoded
///   by libjpeg-turbo. One decode serves the check and every variant.
/// - Everything else goes to libvips (`shim_vips.c`): PNG, WebP and other originals, CMYK/YCCK and
///   ICC-tagged JPEGs, `cover` crops, PNG and WebP outputs, and a JPEG whose own decode here failed
///   (libvips' verdict stands). libvips' JPEG loader shrinks on load (DCT scaling by 1/2, 1/4 or
///   1/8; other formats are decoded whole), then a Lanczos3 reduce; EXIF orientation applied; an
///   embedded colour profile converted to sRGB. An AVIF libvips cannot open (libheif opens no image
///   sequence) goes to libvips as its first frame's pixels, decoded by libavif.
///
/// Both resample the sRGB values as stored (not in linear light), as `vipsthumbnail` and
/// ImageMagick's `-thumbnail` do, and never enlarge. Runs on the caller's thread: libvips is started
/// with one worker per pipeline and no operation cache, so the run's bounded validation pool is the
/// CPU budget.
package enum VariantMaker {
    /// A variant's encoded bytes and what they are.
    package struct Made: Sendable {
        package var data: Data
        package var format: ImageFormat
        package var width: Int
        package var height: Int
        /// Which path made it.
        package var maker: Maker
    }

    /// The code that made a variant.
    package enum Maker: String, Sendable {
        case libjpegTurbo = "libjpeg-turbo"
        case libvips
    }

    /// The largest width and height a variant may have (upright).
    package struct Box: Sendable, Equatable {
        package var width: Int
        package var height: Int
    }

    /// The box the decode check must keep a JPEG's pixels for so that the fast path can make every
    /// one of `specs` it takes (the largest width and height among them), or nil when it takes none.
    package static func fastBox(_ specs: [VariantSpec], original: ImageFormat?) -> Box? {
        let taken = specs.filter { TurboVariant.takes($0, original: original) }.map(\.target)
        guard let width = taken.map(\.width).max(), let height = taken.map(\.height).max() else { return nil }
        return Box(width: width, height: height)
    }

    /// Every variant in `specs` of the image in the file at `path`, in order: by the fast path from
    /// `kept` (the check's pixels), or from a decode made here when there are none, else by libvips.
    package static func make(_ specs: [VariantSpec], fromFileAt path: String, format original: ImageFormat?,
                             kept: KeptJPEG? = nil) throws(VariantError) -> [(VariantSpec, Made)] {
        let pixels = kept ?? fastBox(specs, original: original).flatMap { box in
            let decoded = KeptJPEG(box: box)
            return (try? decoded.check(.file(path), limits: ImageLimits())) == nil ? nil : decoded
        }
        var made: [(VariantSpec, Made)] = []
        for spec in specs {
            if TurboVariant.takes(spec, original: original), let pixels, let variant = try TurboVariant.make(spec, from: pixels) {
                made.append((spec, variant))
            } else {
                made.append((spec, try libvips(spec, fromFileAt: path, format: original)))
            }
        }
        return made
    }

    /// The variant `spec` of the image in the file at `path`, by whichever path takes it.
    package static func make(_ spec: VariantSpec, fromFileAt path: String, format original: ImageFormat?) throws(VariantError) -> Made {
        try make([spec], fromFileAt: path, format: original)[0].1
    }

    /// The variant `spec` of the image in the file at `path`, by libvips.
    static func libvips(_ spec: VariantSpec, fromFileAt path: String, format original: ImageFormat?) throws(VariantError) -> Made {
        let input: Data
        do {
            input = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw .failed(variant: spec.name, detail: "cannot read the original: \(error.localizedDescription)")
        }
        return try make(spec, from: input, format: original)
    }

    /// The variant `spec` of the encoded image `input`, by libvips; for an AVIF that libvips cannot
    /// open, of its first frame decoded by libavif (libvips reads AVIF through libheif, which opens no
    /// image sequence: an animated AVIF failed with ImageMagick's guess at another format); for a JPEG
    /// XL it cannot, of the container rewritten as the check rewrites it.
    package static func make(_ spec: VariantSpec, from input: Data, format original: ImageFormat?) throws(VariantError) -> Made {
        let shrinkOnLoad: Int32 = original == .jpeg ? 1 : 0
        do {
            return try libvips(spec, original: original) { target, code, output, length, width, height, message in
                input.withUnsafeBytes { bytes in
                    // Shrink-on-load for JPEG only (DCT scaling); a WebP's is libwebp's coarser scaled decode.
                    shim_vips_variant(bytes.baseAddress, bytes.count, shrinkOnLoad, Int32(target.width), Int32(target.height),
                                      target.cover ? 1 : 0, code, Int32(spec.quality), output, length, width, height, message, messageBytes)
                }
            }
        } catch let error where error.isTheImagesOwn && original == .jxl {
            // A container with 64-bit box sizes, which Debian 12's libjxl misreads, as the check reads it:
            // rewritten with 32-bit sizes (`JXLContainer`). Made again only from a copy that differs.
            guard let rewritten = input.withUnsafeBytes({ raw in try? JXLContainer.normalized(raw) { Data($0) } }),
                  rewritten != input else { throw error }
            return try make(spec, from: rewritten, format: original)
        } catch let error where error.isTheImagesOwn && original == .avif {
            let decoded = input.withUnsafeBytes { bytes in
                try? AVIFDecoder.firstFrame(bytes, limits: ImageLimits())
            }
            guard let frame = decoded else { throw error }
            return try libvips(spec, original: original) { target, code, output, length, width, height, message in
                frame.samples.withUnsafeBytes { samples in
                    frame.iccProfile.withUnsafeBytes { icc in
                        shim_vips_variant_pixels(samples.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.bands),
                                                 icc.baseAddress, icc.count, Int32(target.width), Int32(target.height),
                                                 target.cover ? 1 : 0, code, Int32(spec.quality), output, length, width, height, message, messageBytes)
                    }
                }
            }
        }
    }

    /// The room for libvips' message about a variant it could not make.
    private static let messageBytes = 512

    /// One call of libvips' `call` (`shim_vips_variant` or `shim_vips_variant_pixels`), given the box
    /// to fit, the output format's code and where its results go (a message buffer of `messageBytes`).
    private static func libvips(
        _ spec: VariantSpec, original: ImageFormat?,
        _ call: (_ target: (width: Int, height: Int, cover: Bool), _ code: Int32, _ output: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                 _ length: UnsafeMutablePointer<Int>, _ width: UnsafeMutablePointer<Int32>, _ height: UnsafeMutablePointer<Int32>,
                 _ message: UnsafeMutablePointer<CChar>) -> Int32
    ) throws(VariantError) -> Made {
        let format = spec.format.output(for: original)
        let code: Int32 = switch format {
        case .jpeg: Int32(SHIM_VIPS_JPEG)
        case .webp: Int32(SHIM_VIPS_WEBP)
        default: Int32(SHIM_VIPS_PNG)
        }
        // WebP holds at most 16,383 pixels a side: a larger original (kept at its size when it already
        // fits the box) or box is fitted within that.
        var target = spec.target
        if format == .webp {
            target.width = min(target.width, webpLargestSide)
            target.height = min(target.height, webpLargestSide)
        }
        var message = [CChar](repeating: 0, count: messageBytes)
        var output: UnsafeMutableRawPointer?
        var length = 0
        var width: Int32 = 0
        var height: Int32 = 0
        let status = call(target, code, &output, &length, &width, &height, &message)
        guard status == 0, let output else {
            // libvips' messages come a line each: one line of the run's log.
            let detail = String(cBuffer: message).split(separator: "\n").joined(separator: "; ")
            throw status == -2 ? .unavailable(variant: spec.name, detail: detail) : .failed(variant: spec.name, detail: detail)
        }
        defer { shim_vips_free(output) }
        return Made(data: Data(bytes: output, count: length), format: format, width: Int(width), height: Int(height), maker: .libvips)
    }
}

/// Why a variant could not be made; its URL fails with reason `transform_failed`.
package enum VariantError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The image could not be made into the variant: the URL's own failure, which the ledger keeps.
    case failed(variant: String, detail: String)
    /// The library that makes it could not be started (libvips missing or broken): this machine's
    /// trouble, not the URL's, so the next run tries again.
    case unavailable(variant: String, detail: String)

    package var reason: String { "transform_failed" }

    /// Whether the failure is the image's own, for the failure ledger.
    package var isTheImagesOwn: Bool {
        if case .failed = self { true } else { false }
    }

    package var description: String {
        switch self {
        case .failed(let variant, let detail), .unavailable(let variant, let detail):
            "the variant `\(variant)` could not be made: \(detail)"
        }
    }
}

/// The longest side libwebp encodes (WEBP_MAX_DIMENSION).
let webpLargestSide = 16_383
