/// An image format prefetchd can recognise by its magic bytes and decode.
package enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, gif, webp, avif, jxl

    /// The name people write: JPEG, PNG, GIF, WebP, AVIF, JPEG XL.
    var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .avif: "AVIF"
        case .jxl: "JPEG XL"
        }
    }
}
