/// What a header read or a decode learned about an image.
package struct ImageInfo: Sendable, Equatable, Codable {
    package var format: ImageFormat
    package var width: Int
    package var height: Int
    /// Frames in the image: 1 for a still, every frame for an animation (known after a decode;
    /// a header read reports what the container declares, or 1).
    package var frames = 1
    /// Benign decoder warnings, by kind (`png_trns_out_of_range`, ...): the image was accepted.
    package var warnings: [String] = []

    package var pixels: Int { width * height }
}
