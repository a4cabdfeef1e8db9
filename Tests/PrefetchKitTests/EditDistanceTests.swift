import Testing
@testable import PrefetchKit

@Suite struct EditDistanceTests {
    @Test(arguments: [
        ("", "abc", 3), ("kitten", "sitting", 3), ("concurrency", "concurrency", 0), ("ordr", "order", 1),
        ("nmae", "name", 1), ("ab", "ba", 1), ("ca", "abc", 3), ("retires", "retries", 1),
    ])
    func distance(a: String, b: String, expected: Int) {
        #expect(EditDistance.between(a, b) == expected)
        #expect(EditDistance.between(b, a) == expected)
    }

    @Test func suggestsOnlyCloseCandidates() {
        #expect(EditDistance.closest(to: "concurency", among: ["cache", "concurrency"]) == "concurrency")
        #expect(EditDistance.closest(to: "zzz", among: ["cache", "concurrency"]) == nil)
        #expect(EditDistance.closest(to: "nmae", among: ["sets", "name", "cache"]) == "name")
    }
}
