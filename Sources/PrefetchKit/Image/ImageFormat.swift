/// An image format prefetchd can recognise by its magic bytes.
package enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, gif, webp
}
