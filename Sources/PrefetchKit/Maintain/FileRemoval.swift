import Foundation
import Synchronization

/// Removes a clean's files in two steps, each on a few threads of its own. Inside a batch's write
/// transaction each file is renamed aside within its folder (`asideName`): a rename frees nothing, so
/// it is quick, and it takes the file from under its entry's name before the lock is let go. After the
/// commit the aside files are unlinked on other threads while the next batch runs; an unlink waits on
/// the device on a disk mounted with `discard`, and these waits no longer hold the index's lock.
/// At most one batch's unlinks are in flight: `unlinkLater` first waits for the batch before.
///
/// Measured on this project's machine (60,000 of an 80,000-entry cache's files, bench/maintain/RESULTS.md):
/// unlinks on four threads took 121 µs a file in random order and 81 µs on path-sorted runs, against
/// 316 and 216 µs on one thread; so each step's paths are sorted and every thread takes one contiguous run.
final class FileRemoval: Sendable {
    private let width: Int
    private let asides: WorkerPool
    private let unlinks: WorkerPool
    /// The journal of the batch whose unlinks are in flight, and their first failure.
    private let pending = Mutex<(journal: String?, failure: CacheError?)>((nil, nil))

    init(threads: Int) {
        width = max(1, threads)
        asides = WorkerPool(name: "prefetchd.aside", width: width)
        unlinks = WorkerPool(name: "prefetchd.unlink", width: width)
    }

    /// Files per step: a step is path-sorted and shared out in contiguous runs.
    static let stepFiles = 256

    /// The name a file is renamed to before it is unlinked: in its own folder, hidden, and not a cache
    /// file name, so neither a rescan nor the orphan sweep takes it for an entry.
    static func asideName(_ path: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return path[..<slash] + asidePrefix + path[slash...]
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

    /// Unlinks the aside files of `paths` on the unlink threads, returning at once; `journal` (the
    /// batch's, naming them) is removed once they are gone. First settles the batch before.
    func unlinkLater(_ paths: [String], journal: String) throws(CacheError) {
        try settle()
        pending.withLock { $0.journal = journal }
        distribute(paths, on: unlinks) { [self] path in
            let aside = Self.asideName(path)
            guard unlink(aside) != 0, errno != ENOENT else { return true }
            let error = CacheError.fromErrno("remove", aside)
            pending.withLock { $0.failure = $0.failure ?? error }
            return false
        }
    }

    /// Waits for the unlinks in flight and removes their journal; on a failure the journal stays for
    /// the next clean, and the failure is thrown.
    func settle() throws(CacheError) {
        unlinks.waitUntilIdle()
        let (journal, failure) = pending.withLock { state in
            defer { state = (nil, nil) }
            return state
        }
        if let failure { throw failure }
        if let journal { unlink(journal) }
    }

    /// Submits `paths` to `pool` in steps of `stepFiles`, each sorted and cut into one contiguous run a
    /// thread; a run stops at the first path `operation` fails on.
    private func distribute(_ paths: [String], on pool: WorkerPool, _ operation: @escaping @Sendable (String) -> Bool) {
        for stepStart in stride(from: 0, to: paths.count, by: Self.stepFiles) {
            let step = paths[stepStart..<min(stepStart + Self.stepFiles, paths.count)].sorted()
            let shares = min(width, step.count)
            for share in 0..<shares {
                let run = step[(share * step.count / shares)..<((share + 1) * step.count / shares)]
                pool.submit {
                    for path in run where !operation(path) { return }
                }
            }
        }
    }
}
