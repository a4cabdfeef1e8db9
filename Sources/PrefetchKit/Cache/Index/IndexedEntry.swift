/// An entry row with its row id: what conditional deletes need, and a run's use of a row it looked up
/// (`CacheIndex.touch(rowID:at:)`).
struct IndexedEntry: Sendable {
    var id: Int64
    var entry: CacheEntry
}
