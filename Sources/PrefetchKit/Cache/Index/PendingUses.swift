/// The uses of entries remembered and not yet written to the index: each relative path once, with
/// the time of its latest use, in the order the paths were first used. Written in that order, a warm
/// rerun's uses follow the order its entries were stored in, so their update walks the table and its
/// `accessed_at` index forward instead of at random (a quarter less time for the update; bench/RESULTS.md,
/// "Warm path: start, heap, uses in order").
struct PendingUses {
    private(set) var uses: [(path: String, time: Double)] = []
    /// Each path's place in `uses`.
    private var places: [String: Int] = [:]

    var count: Int { uses.count }
    var isEmpty: Bool { uses.isEmpty }

    /// Remembers a use of `path` at `time`, which replaces an earlier time remembered for it.
    mutating func note(_ path: String, at time: Double) {
        if let place = places[path] {
            uses[place].time = time
        } else {
            places[path] = uses.count
            uses.append((path, time))
        }
    }

    mutating func removeAll() {
        uses.removeAll(keepingCapacity: true)
        places.removeAll(keepingCapacity: true)
    }
}
