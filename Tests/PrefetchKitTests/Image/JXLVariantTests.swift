import Foundation
import Testing
@testable import PrefetchKit

/// Variants of JPEG XL originals: a container the check reads only once its 64-bit box sizes are
/// rewritten (`JXLContainer`, around Debian 12's libjxl) gets its variant from the same rewrite.
@Suite struct JXLVariantTests {
    /// Every JPEG XL of the vendored corpora that the decode check passes.
    static let sources: [CorpusEntry] = CorpusEntry.all.filter { entry in
        entry.file.hasSuffix(".jxl") && (try? ImageValidator(level: .decode).validate(fileAt: entry.path)) != nil
    }

    @Test func theSourcesHoldAContainerWith64BitBoxSizes() {
        #expect(Self.sources.contains { $0.file.hasSuffix("square-extended-size-container.jxl") }, "\(Self.sources.map(\.file))")
    }

    @Test(arguments: sources)
    func everyCheckedJXLYieldsItsVariant(_ entry: CorpusEntry) throws {
        _ = try expectHalfSizeVariant(of: entry, format: .jxl)
    }
}
