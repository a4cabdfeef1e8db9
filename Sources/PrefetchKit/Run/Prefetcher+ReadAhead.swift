import Foundation

/// An item's location and index row, read with those of the items around it by one query.
struct ReadAhead: Sendable {
    let location: CacheLocation
    /// The entry's summary as `DiskCache.lookup` found it (present, with its size), nil when none was.
    let row: IndexedSummary?
    /// The uses of the board's memory of settled keys just before the read
    /// (`RunBoard.rememberedEverySettle`).
    let settledUses: RunBoard.SettledUses
}

extension Prefetcher {
    /// Items whose index rows are read by one query: a statement's start and end cost more than the
    /// row it finds, and a warm rerun is little else (bench/RESULTS.md, "Warm path in batches").
    static let readAheadCount = 512

    /// Batches read ahead at once, each on a thread of its own: a warm rerun's reads (the rows, then a
    /// `stat` of each file) took longer than its decisions, so one reading thread left the scheduling
    /// thread waiting on it (bench/RESULTS.md, "Last uses in a table of their own").
    static let readAheadDepth = 2

    /// Schedules the items `iterator` yields until it ends or the job stops, the concurrency following
    /// each item's set. The items are taken `readAheadCount` at a time, and each batch's rows are read
    /// together (`readAhead(_:)`) on `readAheadThreads`, `readAheadDepth` batches ahead of the one
    /// decided as `schedule(_:ahead:)` says: a warm rerun's lookups and file checks then run beside its
    /// decisions and its uses' writes, on the other core.
    func scheduleAll(_ iterator: inout RunPlan.Iterator) {
        var currentSet = -1
        var pending: [PendingResult<([PlanItem], [ReadAhead?]), CacheError>] = []
        while pending.count < Self.readAheadDepth, let batch = startReadAhead(&iterator) { pending.append(batch) }
        while !pending.isEmpty {
            let items: [PlanItem]
            let ahead: [ReadAhead?]
            do {
                (items, ahead) = try pending.removeFirst().wait()
            } catch {
                stop(for: error)
                pending.forEach { _ = try? $0.wait() }
                return
            }
            if !isStopping, let batch = startReadAhead(&iterator) { pending.append(batch) }
            // By position, so that each item and its row are lent to `schedule` where they lie: a copy
            // of a row retains every text of its entry, and releases them after.
            for position in items.indices where !isStopping {
                if items[position].setIndex != currentSet {
                    currentSet = items[position].setIndex
                    gate.setLimit(settings.concurrency ?? plan.sets[currentSet].options.concurrency)
                }
                do {
                    try schedule(items[position], ahead: ahead[position])
                } catch {
                    stop(for: error)
                }
            }
        }
    }

    /// Takes the next batch of items from `iterator` and starts reading their rows; nil when it has no more.
    private func startReadAhead(_ iterator: inout RunPlan.Iterator) -> PendingResult<([PlanItem], [ReadAhead?]), CacheError>? {
        var items: [PlanItem] = []
        items.reserveCapacity(Self.readAheadCount)
        while items.count < Self.readAheadCount, let item = iterator.next() { items.append(item) }
        guard !items.isEmpty else { return nil }
        return PendingResult(on: readAheadThreads) { [self, items] () throws(CacheError) in (items, try readAhead(items)) }
    }

    /// The rows of `items` by one index query, committed rows only (the reader connection, so that the
    /// read never waits for the batch the uses and stores are writing: a key this run settled is told
    /// by the board, see `schedule`), and none for an item outside the run's shard, which is never
    /// looked up. With other jobs of the run on this cache nothing is read ahead: a key may be theirs
    /// to store while this job waits (`CacheShare`), and only a read after that wait answers for it.
    private func readAhead(_ items: [PlanItem]) throws(CacheError) -> [ReadAhead?] {
        guard !share.isShared else { return [ReadAhead?](repeating: nil, count: items.count) }
        let locations = items.map { item in
            settings.shard?.contains(key: item.key) ?? true ? cache.location(forKey: item.key) : nil
        }
        // Taken before the read: every key settled after it is counted in the uses since.
        let settledUses = board.settledUses
        var rows = try cache.lookup(locations.compactMap { $0 }, committedOnly: true).makeIterator()
        return locations.map { location in
            location.map { ReadAhead(location: $0, row: rows.next() ?? nil, settledUses: settledUses) }
        }
    }
}
