import Testing
@testable import PrefetchKit

@Suite struct VocabularyTests {
    @Test func prioritiesSortHighFirst() {
        #expect([Priority.low, .high, .normal].sorted() == [.high, .normal, .low])
    }

    @Test func imageInfoCountsPixels() {
        #expect(ImageInfo(format: .png, width: 3, height: 7).pixels == 21)
    }
}
