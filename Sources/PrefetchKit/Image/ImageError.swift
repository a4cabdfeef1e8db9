/// Why a downloaded body was refused as an image. `reason` is a stable name for reports and the
/// failure ledger; `description` is one plain sentence that keeps libpng's or libjpeg's own words.
package enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body has no bytes (SDWebImage: "image data is nil").
    case empty
    /// The body is longer than `max_bytes`.
    case tooLarge(bytes: Int64, limit: Int64)
    /// The magic bytes name no image format at all (HTML, text, random bytes).
    case notImage
    /// The magic bytes name an image format prefetchd does not handle (BMP, TIFF, HEIF, ...), or a
    /// variant of a handled one that the decoder cannot read (12-bit or lossless JPEG).
    case unsupported(kind: String, detail: String?)
    /// A handled format that the job's `formats` list leaves out.
    case formatNotAllowed(ImageFormat)
    /// The data ends before the image does.
    case truncated(ImageFormat, detail: String)
    /// The data is damaged or breaks the format's rules (strict: libpng and libjpeg warnings count).
    case corrupt(ImageFormat, detail: String)
    /// The header declares a zero width or height.
    case zeroPixels(ImageFormat, width: Int, height: Int)
    /// The header declares more pixels than `max_pixels` (a decompression bomb).
    case tooManyPixels(ImageFormat, width: Int, height: Int, limit: Int)
    /// A JPEG has more scans than the scan limit (a CPU bomb).
    case tooManyScans(limit: Int)
    /// An animation has more frames, or more frames x canvas pixels, than `max_frames` or
    /// `max_frame_pixels` allow.
    case tooManyFrames(ImageFormat, detail: String)
    /// The file to validate could not be opened or read.
    case unreadable(path: String, detail: String)
    /// The decoder itself failed for a reason that says nothing about the data (out of memory).
    case decoderFailed(ImageFormat, detail: String)

    /// Whether the rejection is the body's own, so that later runs may skip its URL; not when the file
    /// could not be read back or the decoder failed for a reason of its own.
    package var isTheBodysOwn: Bool {
        switch self {
        case .unreadable, .decoderFailed: false
        default: true
        }
    }

    /// Whether the rejection is one of the budgets a decode may spend (`ImageLimits`), which a job may
    /// raise, rather than something wrong with the image.
    package var isOverALimit: Bool {
        switch self {
        case .tooManyPixels, .tooManyScans, .tooManyFrames: true
        default: false
        }
    }

    /// The stable name of this kind of rejection.
    package var reason: String {
        switch self {
        case .empty: "empty"
        case .tooLarge: "too_large"
        case .notImage: "not_image"
        case .unsupported: "unsupported"
        case .formatNotAllowed: "format_not_allowed"
        case .truncated: "truncated"
        case .corrupt: "corrupt"
        case .zeroPixels: "zero_pixels"
        case .tooManyPixels: "too_many_pixels"
        case .tooManyScans: "too_many_scans"
        case .tooManyFrames: "too_many_frames"
        case .unreadable: "unreadable"
        case .decoderFailed: "decoder_failed"
        }
    }

    package var description: String {
        switch self {
        case .empty:
            "image data is nil (the body is empty)"
        case .tooLarge(let bytes, let limit):
            "image is \(bytes) bytes, over the limit of \(limit) bytes"
        case .notImage:
            "data is not an image (no known magic bytes)"
        case .unsupported(let kind, nil):
            "\(kind) images are not supported"
        case .unsupported(let kind, let detail?):
            "\(kind) images of this kind are not supported: \(detail)"
        case .formatNotAllowed(let format):
            "\(format.displayName) images are not among the accepted formats"
        case .truncated(let format, let detail):
            "\(format.displayName) data is truncated: \(detail)"
        case .corrupt(let format, let detail):
            "\(format.displayName) data is corrupt: \(detail)"
        case .zeroPixels(let format, let width, let height):
            "image has 0 pixels (\(format.displayName) header says \(width)x\(height))"
        case .tooManyPixels(let format, let width, let height, let limit):
            "\(format.displayName) image is \(width)x\(height) pixels, over the limit of \(limit) pixels"
        case .tooManyScans(let limit):
            "JPEG has more than \(limit) scans"
        case .tooManyFrames(let format, let detail):
            "\(format.displayName) animation is too long: \(detail)"
        case .unreadable(let path, let detail):
            "cannot read \(path): \(detail)"
        case .decoderFailed(let format, let detail):
            "the \(format.displayName) decoder failed: \(detail)"
        }
    }
}
