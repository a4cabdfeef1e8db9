import Testing
@testable import PrefetchKit

/// `StringTable` tells strings apart by their bytes, whatever their digests do.
@Suite struct StringTableTests {
    /// XXH3, and a digest every string shares (each probe then passes every slot before it).
    static let digests: [(@Sendable (UnsafeBufferPointer<UInt8>) -> UInt64)?] = [nil, { _ in 42 }]

    @Test(arguments: [0, 1]) func keepsEachStringOnceWithItsFirstValue(digest: Int) {
        // Given a table, XXH3's or one where every string collides
        var table = Self.digests[digest].map { StringTable(placeholder: -1, digest: $0) } ?? StringTable(placeholder: -1)
        // and strings of every kind: empty, a prefix of another, the same length, non-ASCII (é spelt
        // two ways is two strings, as it is two cache keys: a key's file name is made from its bytes)
        let strings = ["", "a", "ab", "ba", "abc", "é", "e\u{301}", "https://img.example.com/1.jpg"]

        // When each is inserted twice, the second time with another value
        let first = strings.enumerated().map { table.insert($1, $0) }
        let second = strings.enumerated().map { table.insert($1, $0 + 100) }

        // Then only the first insert of each is new, and each keeps its first value
        #expect(first == Array(repeating: true, count: strings.count))
        #expect(second == Array(repeating: false, count: strings.count))
        #expect(strings.map { table.value(for: $0) } == Array(0..<strings.count))
        #expect(table.count == strings.count)
        // and a string never inserted has no value, even when it shares a digest with all of them
        #expect(table.value(for: "abcd") == nil)
        #expect(table.value(for: "b") == nil)
    }

    /// Grown from its 1,024 slots, and sized for them all at the start.
    @Test(arguments: [0, 20_000]) func holdsEveryStringAsItGrows(capacity: Int) {
        // Given more strings than a table starts with room for
        var table = StringTable(placeholder: -1, capacity: capacity)
        let strings = (0..<20_000).map { "key-\($0)" }

        // When they are inserted
        let inserted = strings.enumerated().map { table.insert($1, $0) }

        // Then each was new, is found with its value after every growth, and repeats are told as such
        #expect(!inserted.contains(false))
        #expect(strings.indices.allSatisfy { table.value(for: strings[$0]) == $0 })
        let repeated = strings.map { table.insert($0, -2) }
        #expect(!repeated.contains(true))
        #expect(table.count == strings.count)
        #expect(table.value(for: "key-20000") == nil)
    }
}
