import Foundation

/// A small body that sniffs as PNG and differs per `seed`.
func pngLikeBody(_ seed: Int, length: Int = 300) -> Data {
    Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) })
}
