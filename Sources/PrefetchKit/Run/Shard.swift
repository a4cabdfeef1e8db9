/// `--shard K/N`: this run handles only the cache keys whose stable hash falls in shard K of N,
/// so N machines can warm one cache (or N caches) without overlap.
package struct Shard: Sendable, Equatable {
    /// 1-based.
    package let index: Int
    package let count: Int

    package static let all = Shard(validIndex: 1, count: 1)

    private init(validIndex: Int, count: Int) {
        self.index = validIndex
        self.count = count
    }

    /// Parses `K/N` with 1 <= K <= N; nil for anything else.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 1, k <= n else {
            return nil
        }
        self.init(validIndex: k, count: n)
    }

    /// Whether this shard handles `key`. FNV-1a, so the split is the same on every machine and run.
    package func contains(key: String) -> Bool {
        if count == 1 { return true }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return Int(hash % UInt64(count)) == index - 1
    }
}
