extension CacheIndex {
    /// Folds the uses runs recorded into their rows' `accessed_at` (`IndexRecentUses`), after the uses
    /// this process holds are written, in a write transaction of its own: before a read of many rows'
    /// last uses at once (a clean's walk, stats). The write lock is not taken when no use waits, and
    /// nothing is written on a snapshot.
    func foldRecentUses() throws(CacheError) {
        guard !isSnapshot else { return }
        try flush()
        guard try withConnection({ connection throws(CacheError) in try connection.hasRecentUses() }) else { return }
        try inWriteTransaction { transaction throws(CacheError) in try transaction.foldRecentUses() }
    }
}
