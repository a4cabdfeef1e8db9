/// An entry row with its row id: what conditional deletes need.
struct IndexedEntry: Sendable {
    var id: Int64
    var entry: CacheEntry
}
