internal import CShims
import Foundation
import Synchronization

/// Removes a clean's files on a few threads of its own, inside each batch's write transaction, in one
/// of two ways chosen by the file system (`MountTable.mayWaitToFree`):
/// - **Held** (a file system mounted with online discard, or one whose device the mount table does not
///   show, such as a container's overlay): each file is opened (`O_PATH`: no read, just
///   a reference to its inode) and unlinked; its name is gone before the index's lock is let go, but its
///   inode and blocks live on while the descriptor is open. After the commit the descriptors are closed
///   on other threads while the next batch runs, and the last close frees the blocks: there that waits
///   on the device, and these waits do not hold the index's lock. If the process dies first, the kernel
///   closes the descriptors and frees the files all the same: nothing is left under another name. The
///   descriptors of consecutive batches are gathered into groups of about `groupFiles`, and at most one
///   group's closes are in flight: submitting a group first waits for the one before.
/// - **Unlinked in place** (a tmpfs, or a disk's file system mounted without discard): each file is
///   unlinked by name, which frees it at once; no descriptor, so a batch is not bounded by the
///   open-file limit either. An open and a close a file
///   fewer: a sixth of a clean's CPU on a tmpfs (bench/maintain/RESULTS.md, twelfth pass).
///
/// Opening and unlinking in place saves the dentry work that renaming each file aside and unlinking
/// it later would cost (two lookups, an insert and a delete in a directory of thousands; figures in
/// bench/maintain/RESULTS.md, "Design figures").
final class FileRemoval: Sendable {
    private let width: Int
    private let detaching: WorkerPool
    private let releasing: WorkerPool
    /// The descriptors gathered for the next group.
    private let gathered = Locked<[Int32]>([])
    /// Descriptors handed to `releaseLater` and not closed yet: files unlinked but not freed.
    private let unfreed = Atomic<Int>(0)
    /// Files unlinked in place (so freed) since the last `settle`.
    private let freedInPlace = Atomic<Int>(0)
    /// Descriptors a group of closes gathers before it is submitted (the last one may be smaller).
    let groupFiles: Int
    /// The most files a batch may detach: the policy's `batchFiles`, or, held, fewer under a low
    /// open-file limit.
    let batchFiles: Int
    /// Whether unlinked files are held open until after their batch's commit.
    let holdsFiles: Bool
    /// The most files any one batch may detach: `batchFiles` when they are held open; unlinked in
    /// place, a batch holds no descriptors and is not bounded here.
    var largestBatch: Int { holdsFiles ? batchFiles : .max }

    /// Holding files open, sizes batches and groups to the open-file limit (raised to its hard limit
    /// first), less 256 for what the process has open: a batch being detached, the group gathering, and
    /// the group being closed with the last batch that filled it must fit, so two batches and two
    /// groups. At most 16,384 descriptors a group.
    init(threads: Int, batchFiles: Int, holdsFiles: Bool) {
        width = max(1, threads)
        detaching = WorkerPool(name: "prefetchd.detach", width: width, niceness: Self.detachingNiceness)
        releasing = WorkerPool(name: "prefetchd.release", width: width)
        self.holdsFiles = holdsFiles
        guard holdsFiles else {
            self.batchFiles = max(1, batchFiles)
            groupFiles = 1
            return
        }
        let available = max(16, ProcessTuning.raiseOpenFileLimit() - 256)
        self.batchFiles = max(1, min(batchFiles, available / 4))
        groupFiles = max(1, min(16_384, (available - 2 * self.batchFiles) / 2))
    }

    /// The detaching threads' nice value. What else a batch does (the clean's thread reading and
    /// deleting its rows and committing them, the reading thread reading the next batch's rows)
    /// holds the batch up, so it must not wait for CPU behind four unlinking threads; unlinks take
    /// what CPU is left, which is most of it (bench/maintain/RESULTS.md, "Nineteenth pass").
    static let detachingNiceness: Int32 = 10

    /// The name a clean of the rename-then-unlink removal gave a file before unlinking it (pre-release
    /// builds): in its own folder, hidden, and not a cache file name. A journal such a clean left in a
    /// cache of the current schema may name files set aside so.
    /// Built from the path's UTF-8 bytes.
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

    /// `O_PATH`: a descriptor that only holds the file (no read access needed, no open file ops run).
    private static let pathOnly = pf_open_flag_path()

    /// Runs `prepare` on a detaching thread, then opens (when it holds files) and unlinks every one of
    /// the paths it returned (one already absent counts as done) on the detaching threads, all while
    /// `work` runs on the calling thread; returns, when both are done, the descriptors that keep the
    /// unlinked files' inodes, for `releaseLater` (none when it does not hold files). No file is
    /// unlinked before `prepare` has returned (a clean writes its journal there), and none if it threw.
    /// Throws `work`'s error, else `prepare`'s, else the first failure other than "not there" (closing
    /// every descriptor first).
    func detach(
        after prepare: @escaping @Sendable () throws(CacheError) -> [String], while work: () throws(CacheError) -> Void
    ) throws(CacheError) -> [Int32] {
        let state = Locked<(descriptors: [Int32], failure: CacheError?)>(([], nil))
        // The runs are submitted from the detaching thread that prepared them, before its item ends, so
        // the pool is not idle until they are done.
        detaching.submit { [self] in
            do throws(CacheError) {
                // In the order given: a clean gives its rows in row order, so by fan-out folder
                // (`IndexRowID`), and each run is a few folders.
                for run in runs(of: try prepare()) { unlink(run, into: state) }
            } catch {
                state.withLock { $0.failure = $0.failure ?? error }
            }
        }
        let workResult = Result { () throws(CacheError) in try work() }
        detaching.waitUntilIdle()
        let (descriptors, failure) = state.withLock { $0 }
        do throws(CacheError) {
            try workResult.get()
            if let failure { throw failure }
        } catch {
            for descriptor in descriptors { close(descriptor) }
            throw error
        }
        return descriptors
    }

    /// Submits the opening (when it holds files) and unlinking of `run` to a detaching thread, which adds
    /// its descriptors and any failure to `state`.
    private func unlink(_ run: ArraySlice<String>, into state: Locked<(descriptors: [Int32], failure: CacheError?)>) {
        detaching.submit { [self] in
            var descriptors: [Int32] = []
            descriptors.reserveCapacity(run.count)
            var failure: CacheError?
            var unlinked = 0
            // Each file is opened and unlinked by its name in its folder, held open once for the
            // run's stretch of that folder: the path is walked once per folder, not twice per file.
            var folder = Self.Folder()
            defer { folder.close() }
            for path in run {
                let (parent, name) = Self.split(path)
                guard let directory = folder.open(parent) else {
                    if errno == ENOENT { continue }  // the folder is gone, and its files with it
                    failure = CacheError.fromErrno("open", String(parent))
                    break
                }
                if holdsFiles {
                    let descriptor = openat(directory, name, Self.pathOnly | O_NOFOLLOW | O_CLOEXEC)
                    if descriptor < 0 {
                        if errno == ENOENT { continue }
                        failure = CacheError.fromErrno("open", path)
                        break
                    }
                    descriptors.append(descriptor)
                }
                if unlinkat(directory, name, 0) == 0 {
                    if !holdsFiles { unlinked += 1 }
                } else if errno != ENOENT {
                    failure = CacheError.fromErrno("remove", path)
                    break
                }
            }
            freedInPlace.add(unlinked, ordering: .relaxed)
            state.withLock { state in
                state.descriptors += descriptors
                if let failure { state.failure = state.failure ?? failure }
            }
        }
    }

    /// The folder part (up to the last `/`) and the name of `path`.
    private static func split(_ path: String) -> (folder: Substring, name: String) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
        return (path[..<slash], String(path[path.utf8.index(after: slash)...]))
    }

    /// The folder a detaching thread is in: its path and an `O_PATH` descriptor of it, opened again
    /// only when the next file is in another folder.
    private struct Folder {
        private var path: Substring?
        private var descriptor: Int32 = -1

        /// The descriptor of `folder`; nil, with `errno` set, when it cannot be opened.
        mutating func open(_ folder: Substring) -> Int32? {
            if descriptor >= 0 && path == folder { return descriptor }
            close()
            descriptor = Glibc.open(String(folder), FileRemoval.pathOnly | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            path = folder
            return descriptor
        }

        mutating func close() {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
            path = nil
        }
    }

    /// Gathers `descriptors` for closing on the releasing threads, and returns. A full group is
    /// submitted, after the group before it has been closed.
    func releaseLater(_ descriptors: [Int32]) {
        unfreed.add(descriptors.count, ordering: .relaxed)
        let group = gathered.withLock { gathered -> [Int32]? in
            gathered += descriptors
            guard gathered.count >= groupFiles else { return nil }
            defer { gathered = [] }
            return gathered
        }
        if let group { submit(group) }
    }

    /// Closes what is gathered and waits until every submitted descriptor is closed (its file freed);
    /// true when that or an unlink in place freed a file since the last call (a batch whose commit
    /// failed on a full disk is then worth another attempt).
    @discardableResult
    func settle() -> Bool {
        let held = unfreed.load(ordering: .relaxed) > 0 || freedInPlace.exchange(0, ordering: .relaxed) > 0
        submit(gathered.withLock { gathered in
            defer { gathered = [] }
            return gathered
        })
        releasing.waitUntilIdle()
        return held
    }

    /// Waits for the group in flight, then shares `group` out among the releasing threads in
    /// contiguous runs, in the order the detaching threads handed them over.
    private func submit(_ group: [Int32]) {
        releasing.waitUntilIdle()
        for run in runs(of: group) {
            releasing.submit { [self] in
                for descriptor in run { close(descriptor) }
                unfreed.subtract(run.count, ordering: .relaxed)
            }
        }
    }

    /// `items` cut into `runsPerThread` contiguous runs a thread, so each thread works through a few
    /// folders at a time.
    private func runs<Item>(of items: [Item]) -> [ArraySlice<Item>] {
        let count = min(width * Self.runsPerThread, items.count)
        return (0..<count).map { number in items[(number * items.count / count)..<((number + 1) * items.count / count)] }
    }

    /// Runs per thread and group: enough that a thread slowed by its device waits does not hold up the
    /// group's end, few enough that each run stays within a few folders.
    static let runsPerThread = 4
}
