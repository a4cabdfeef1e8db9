/// `--shard K/N`: this run handles only the cache keys whose stable hash falls in shard K of N,
/// so N machines can warm one cache (or N caches) without overlap.
///
/// The hash is 64-bit FNV-1a of the cache key's UTF-8 bytes (after `cache_key` rules), taken modulo
/// N: it reads no seed, no clock and no machine property, so every machine, run and version of
/// prefetchd puts a key in the same shard (ShardTests pins keys to their shards).
package struct Shard: Sendable, Equatable {
    /// 1-based.
    package let index: Int
    package let count: Int

    private init(validIndex: Int, count: Int) {
        self.index = validIndex
        self.count = count
    }

    /// Shard `index` (1-based) of `count`; nil unless 1 <= index <= count.
    package init?(index: Int, count: Int) {
        guard count >= 1, index >= 1, index <= count else { return nil }
        self.init(validIndex: index, count: count)
    }

    /// Parses `K/N` with 1 <= K <= N; nil for anything else.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: k, count: n)
    }

    /// `K/N`, as `--shard` takes it and the report and stats show it.
    package var label: String { "\(index)/\(count)" }

    /// Whether this shard handles `key`.
    package func contains(key: String) -> Bool {
        count == 1 || Int(Self.hash(key) % UInt64(count)) == index - 1
    }

    /// 64-bit FNV-1a of the key's UTF-8 bytes.
    package static func hash(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
