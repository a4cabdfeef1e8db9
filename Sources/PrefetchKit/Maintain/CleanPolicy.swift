import Foundation

/// What `clean` removes and how it paces itself.
///
/// Size is measured in bytes of file data (the files' lengths, `byte_size` in the index), the same
/// measure stats reports; allocated blocks are not counted.
package struct CleanPolicy: Sendable, Equatable {
    /// Entries older than this (by `expireBy`) go; 0 = never expire.
    package var maxAge: TimeInterval
    package var expireBy: ExpiryClock
    /// Cap in bytes of file data; 0 = no cap.
    package var maxSize: Int64
    /// A trim goes down to this fraction of `maxSize`.
    package var trimTo: Double
    /// Temp files untouched for this long are abandoned: longer than any transfer can take. One hour
    /// by default; a job's `timeout × (retries + 1)` is far below it.
    package var staleTempAge: TimeInterval
    /// At most this many files per write transaction (nginx's cache manager takes 100). A batch's rows
    /// are in row order, and every index page its deletes touch is written to the WAL once per batch, so
    /// the more rows a batch holds, the fewer times each page is written (bench/maintain/RESULTS.md,
    /// "Design figures"); and each batch's start and commit are a pause in the unlinks (32,768 rather
    /// than 16,000 took 6 % off a trim of 1,000,000 entries on a tmpfs: "Nineteenth pass"). Fewer when
    /// files are held open under a low open-file limit (`FileRemoval`)...
    package var batchFiles: Int
    /// ...and about this long per batch: the batch size halves after a slower batch and grows back
    /// after a quick one, so a concurrent run waits about that long for the index.
    package var batchTime: TimeInterval
    /// Whether a batch holds its unlinked files open until after its commit (see `FileRemoval`); nil:
    /// unless the cache's file system is known to free files without waiting on a device
    /// (`MountTable.mayWaitToFree`).
    package var holdsFiles: Bool?
    /// Threads unlinking a batch's files, and as many freeing them after it: 4 (on a disk mounted with
    /// `discard` freeing a file waits on the device; four in flight took 40 % of the time of one after
    /// the other, more hardly less; see `FileRemoval`).
    package var unlinkThreads: Int
    /// The orphan sweep (files without rows, rows without files) visits 1/`orphanSweepRounds` of the
    /// fan-out folders per clean, so a nightly clean covers the whole cache once a week. 1 = all.
    package var orphanSweepRounds: Int
    /// How long to wait for another clean's lock before giving up.
    package var lockWait: TimeInterval
    /// How long to keep retrying when other processes hold the index's write lock.
    package var busyWait: TimeInterval

    package init(
        maxAge: TimeInterval = 7 * 86_400, expireBy: ExpiryClock = .access, maxSize: Int64 = 0, trimTo: Double = 0.8,
        staleTempAge: TimeInterval = 3_600, batchFiles: Int = 32_768, batchTime: TimeInterval = 0.5,
        holdsFiles: Bool? = nil, unlinkThreads: Int = 4, orphanSweepRounds: Int = 7, lockWait: TimeInterval = 10,
        busyWait: TimeInterval = 60
    ) {
        self.maxAge = maxAge
        self.expireBy = expireBy
        self.maxSize = maxSize
        self.trimTo = trimTo
        self.staleTempAge = staleTempAge
        self.batchFiles = batchFiles
        self.batchTime = batchTime
        self.holdsFiles = holdsFiles
        self.unlinkThreads = unlinkThreads
        self.orphanSweepRounds = orphanSweepRounds
        self.lockWait = lockWait
        self.busyWait = busyWait
    }

    /// The size a trim stops at.
    package var lowWaterMark: Int64 { Int64((Double(maxSize) * trimTo).rounded(.down)) }
}
