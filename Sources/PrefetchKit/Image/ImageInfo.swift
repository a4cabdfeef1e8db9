/// What a header read or a decode learned about an image.
package struct ImageInfo: Sendable, Equatable, Codable {
    package var format: ImageFormat
    package var width: Int
    package var height: Int

    package var pixels: Int { width * height }
}
