import Foundation
import Synchronization

/// Removes a clean's files in two steps, each on a few threads of its own. Inside a batch's write
/// transaction each file is renamed aside within its folder (`asideName`): a rename frees nothing, so
/// it is quick, and it takes the file from under its entry's name before the lock is let go. After the
/// commit the aside files are unlinked on other threads while the next batch runs; an unlink waits on
/// the device on a disk mounted with `discard`, and these waits no longer hold the index's lock.
/// The aside files of consecutive batches are gathered into groups of about `groupFiles`, and at
/// most one group's unlinks are in flight: submitting a group first waits for the one before.
///
/// Measured on this project's machine (60,000 of an 80,000-entry cache's files, bench/maintain/RESULTS.md):
/// unlinks on four threads took 121 µs a file in random order and 81 µs on path-sorted runs, against
/// 316 and 216 µs on one thread; so a group's paths are sorted and cut into contiguous runs, and a
/// group is large enough that a run holds many files of each of its folders.
final class FileRemoval: Sendable {
    private let width: Int
    private let asides: WorkerPool
    private let unlinks: WorkerPool
    /// The journals of the group whose unlinks are in flight, and their first failure.
    private let pending = Mutex<(journals: [String], failure: CacheError?)>(([], nil))
    /// The batches gathered for the next group: their paths and journals.
    private let gathered = Mutex<(paths: [String], journals: [String])>(([], []))

    /// Files a group of unlinks gathers before it is submitted (the last one may be smaller).
    static let groupFiles = 16_384

    init(threads: Int) {
        width = max(1, threads)
        asides = WorkerPool(name: "prefetchd.aside", width: width)
        unlinks = WorkerPool(name: "prefetchd.unlink", width: width)
    }

    /// The name a file is renamed to before it is unlinked: in its own folder, hidden, and not a cache
    /// file name, so neither a rescan nor the orphan sweep takes it for an entry.
    /// Built from the path's UTF-8 bytes: Character-based slicing cost 7 % of a clean's CPU.
    static func asideName(_ path: String) -> String {
        var path = path
        return path.withUTF8 { bytes in
            let cut = bytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            var name: [UInt8] = []
            name.reserveCapacity(bytes.count + asidePrefix.utf8.count)
            name += bytes[..<cut]
            name += asidePrefix.utf8
            name += bytes[cut...]
            return String(decoding: name, as: UTF8.self)
        }
    }

    static let asidePrefix = ".removing."

    /// Renames every one of `paths` to its aside name (one already absent counts as done) on the aside
    /// threads while `work` runs on the calling thread; returns when both are done. Throws `work`'s
    /// error, else the first rename failure other than "not there".
    func setAside(_ paths: [String], while work: () throws(CacheError) -> Void) throws(CacheError) {
        let failure = Mutex<CacheError?>(nil)
        distribute(paths, on: asides) { path in
            guard rename(path, Self.asideName(path)) != 0, errno != ENOENT else { return true }
            let error = CacheError.fromErrno("rename", path)
            failure.withLock { $0 = $0 ?? error }
            return false
        }
        let workResult = Result { () throws(CacheError) in try work() }
        asides.waitUntilIdle()
        try workResult.get()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Gathers the aside files of `paths` for unlinking on the unlink threads, and returns; `journal`
    /// (the batch's, naming them) is removed once they are gone. A full group is submitted, after the
    /// group before it has settled.
    func unlinkLater(_ paths: [String], journal: String) throws(CacheError) {
        let full = gathered.withLock { gathered in
            gathered.paths += paths
            gathered.journals.append(journal)
            return gathered.paths.count >= Self.groupFiles
        }
        if full { try submitGathered() }
    }

    /// Submits what is gathered and waits until every unlink is done and its journal gone; on a
    /// failure the journals stay for the next clean, and the failure is thrown.
    func settle() throws(CacheError) {
        try submitGathered()
        try settleSubmitted()
    }

    private func submitGathered() throws(CacheError) {
        let group = gathered.withLock { gathered in
            defer { gathered = ([], []) }
            return gathered
        }
        guard !group.journals.isEmpty else { return }
        try settleSubmitted()
        pending.withLock { $0.journals = group.journals }
        distribute(group.paths, on: unlinks) { [self] path in
            let aside = Self.asideName(path)
            guard unlink(aside) != 0, errno != ENOENT else { return true }
            let error = CacheError.fromErrno("remove", aside)
            pending.withLock { $0.failure = $0.failure ?? error }
            return false
        }
    }

    /// Waits for the group in flight and removes its journals (unless an unlink failed: then throws).
    private func settleSubmitted() throws(CacheError) {
        unlinks.waitUntilIdle()
        let (journals, failure) = pending.withLock { state in
            defer { state = ([], nil) }
            return state
        }
        if let failure { throw failure }
        for journal in journals { unlink(journal) }
    }

    /// Sorts `paths` and submits them to `pool` in `runsPerThread` contiguous runs a thread, so each
    /// thread works through a few folders at a time; a run stops at the first path `operation` fails on.
    private func distribute(_ paths: [String], on pool: WorkerPool, _ operation: @escaping @Sendable (String) -> Bool) {
        let sorted = paths.sorted()
        let runs = min(width * Self.runsPerThread, sorted.count)
        for number in 0..<runs {
            let run = sorted[(number * sorted.count / runs)..<((number + 1) * sorted.count / runs)]
            pool.submit {
                for path in run where !operation(path) { return }
            }
        }
    }

    /// Runs per thread and group: enough that a thread slowed by its device waits does not hold up the
    /// group's end, few enough that each run stays within a few folders.
    static let runsPerThread = 4
}
