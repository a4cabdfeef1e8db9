import Foundation
import Synchronization

/// Unlinks a batch of files on a few threads. On a disk mounted with `discard` an unlink waits on the
/// device; two in flight take about 60 % of the time of one after the other (bench/maintain/RESULTS.md).
/// Thread k takes paths k, k + n, k + 2n, ..., each in order, so what is removed by the deadline is the
/// batch's first paths, give or take one per thread: a trim stays least-recently-used first.
enum FileRemoval {
    /// Unlinks `paths` until `deadline` (each thread removes at least one); returns the indexes of the
    /// paths now gone, removed here or absent already. Throws the first failure other than "not there".
    static func unlink(_ paths: [String], threads: Int, deadline: Date) throws(CacheError) -> [Int] {
        let workers = max(1, min(threads, paths.count))
        let outcome = Mutex<(gone: [Int], failure: CacheError?)>(([], nil))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var gone: [Int] = []
            var failure: CacheError?
            for index in stride(from: worker, to: paths.count, by: workers) {
                if !gone.isEmpty && Date() >= deadline { break }
                guard Glibc.unlink(paths[index]) == 0 || errno == ENOENT else {
                    failure = .fromErrno("remove", paths[index])
                    break
                }
                gone.append(index)
            }
            outcome.withLock { outcome in
                outcome.gone += gone
                outcome.failure = outcome.failure ?? failure
            }
        }
        let (gone, failure) = outcome.withLock { $0 }
        if let failure { throw failure }
        return gone.sorted()
    }
}
