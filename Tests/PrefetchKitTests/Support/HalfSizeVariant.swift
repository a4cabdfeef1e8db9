import Foundation
import Testing
@testable import PrefetchKit

/// A PNG variant of the corpus image `entry` (of `format`) half its longest side: checked to be that
/// size and to decode as a PNG of it, and returned.
func expectHalfSizeVariant(of entry: CorpusEntry, format: ImageFormat,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> VariantMaker.Made {
    let info = try #require(try ImageValidator(level: .decode).validate(fileAt: entry.path), sourceLocation: sourceLocation)
    let side = max(1, max(info.width, info.height) / 2)
    let made = try VariantMaker.make(VariantSpec(name: "half", box: .longestSide(side), format: .png), fromFileAt: entry.path, format: format)
    #expect(max(made.width, made.height) == side, "\(entry): \(info.width)x\(info.height) -> \(made.width)x\(made.height)",
            sourceLocation: sourceLocation)
    let decoded = try #require(try ImageValidator(level: .decode).validate(data: [UInt8](made.data)), sourceLocation: sourceLocation)
    #expect(decoded.format == .png && decoded.width == made.width && decoded.height == made.height, "\(entry): \(decoded)",
            sourceLocation: sourceLocation)
    return made
}
