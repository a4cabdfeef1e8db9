import Foundation
import Synchronization
import Testing
@testable import PrefetchKit

@Suite struct CleanTests {
    private let day: TimeInterval = 86_400

    @Test func asideNamesStayInTheFileFolderAndAreHidden() {
        #expect(FileRemoval.asideName("/cache/ab/0f3e.jpg") == "/cache/ab/.removing.0f3e.jpg")
        #expect(FileRemoval.asideName("cache/0f3e") == "cache/.removing.0f3e")
        #expect(FileRemoval.asideName("0f3e.png") == ".removing.0f3e.png")
        #expect(FileRemoval.asideName("/caché/ä/x.jpg") == "/caché/ä/.removing.x.jpg")
    }

    @Test(arguments: ExpiryClock.allCases)
    func expiresByTheChosenClockOnly(clock: ExpiryClock) throws {
        try TemporaryDirectory.withPath { folder in
            // Given entries old by creation only, by creation and modification, by all three, and by none
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 4)
            let now = Date()
            let old = now.addingTimeInterval(-10 * day)
            let recent = now.addingTimeInterval(-3_600)
            try setClocks(cache, key: keys[0], fetched: old, modified: recent, accessed: recent)
            try setClocks(cache, key: keys[1], fetched: old, modified: old, accessed: recent)
            try setClocks(cache, key: keys[2], fetched: old, modified: old, accessed: old)
            try setClocks(cache, key: keys[3], fetched: recent, modified: recent, accessed: recent)

            // When a clean expires entries older than a week by `clock`
            let report = try CacheCleaner(cache, policy: testPolicy(maxAge: 7 * day, expireBy: clock)).run(now: now)

            // Then exactly the entries old by that clock are gone, files and rows
            let expected: Set<Int> = switch clock {
            case .creation: [0, 1, 2]
            case .modification: [1, 2]
            case .access: [2]
            }
            for (number, key) in keys.enumerated() {
                let gone = expected.contains(number)
                #expect((try cache.lookup(key: key) == nil) == gone, "entry \(number) by \(clock)")
                #expect(FileManager.default.fileExists(atPath: cache.root + "/" + cache.relativePath(forKey: key)) != gone)
            }
            #expect(report.expired.entries == expected.count)
            #expect(report.expired.bytes == expected.map { Int64(8 + 300 + $0) }.reduce(0, +))
        }
    }

    /// Both ways of removing a file (`FileRemoval`): held open until the commit, and unlinked in place.
    @Test(arguments: [true, false])
    func trimRemovesTheLeastRecentlyUsedDownToTheLowWaterMark(holdsFiles: Bool) throws {
        try TemporaryDirectory.withPath { folder in
            // Given ten entries of 1,000 bytes, used in the reverse of the order they were stored in
            // (entry 9 longest ago)
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 10, length: { _ in 992 })
            let now = Date()
            try setAllClocks(cache, keys: keys) { now.addingTimeInterval(Double(-20 - $0) * 60) }

            // When the cap is 8,000 bytes and trim_to 0.5
            var order: [String] = []
            var policy = testPolicy(maxSize: 8_000, trimTo: 0.5)
            policy.holdsFiles = holdsFiles
            let report = try CacheCleaner(cache, policy: policy)
                .run(now: now, onItem: { if $0.kind == .trimmed { order.append($0.relativePath) } })

            // Then the six least recently used go, in the order they were stored, leaving 4,000 bytes
            // (the low-water mark)
            #expect(order == inRowOrder(keys[4...].map(cache.relativePath(forKey:))))
            #expect(report.trimmed == CleanTally(entries: 6, bytes: 6_000))
            #expect(try cache.index.totalBytes() == 4_000)
            #expect(try indexedPaths(cache) == Set(keys.prefix(4).map(cache.relativePath(forKey:))))
            #expect(Set(try scanFiles(cache).keys) == Set(keys.prefix(4).map(cache.relativePath(forKey:))))
        }
    }

    /// Used by this process's own connection, or by another (as a run beside the clean would): the
    /// rows read ahead of the next batch (`RemovalReadAhead`) are then read again.
    @Test(arguments: [false, true])
    func anEntryUsedAfterTheCleanListedItForExpiryIsKept(byAnotherConnection: Bool) throws {
        try TemporaryDirectory.withPath { folder in
            // Given six entries unused for a month
            let cache = try DiskCache.open(at: folder, layout: .native)
            let user = byAnotherConnection ? try DiskCache.open(at: folder, layout: .native) : cache
            let keys = try fillCache(cache, count: 6, length: { _ in 992 })
            let now = Date()
            let old = now.addingTimeInterval(-30 * day)
            for key in keys { try setClocks(cache, key: key, fetched: old, modified: old, accessed: old) }

            // When a clean in batches of two expires them, and the last entry is used (by a run) while it
            // removes the first batch
            var policy = testPolicy(maxAge: 7 * day)
            policy.batchFiles = 2
            var expired: [String] = []
            let report = try CacheCleaner(cache, policy: policy).run(now: now, onItem: { item in
                if expired.isEmpty { try? setClocks(user, key: keys[5], fetched: old, modified: old, accessed: now) }
                expired.append(item.relativePath)
            })

            // Then the used entry stays, file and row; the other five went
            #expect(expired == inRowOrder(keys.prefix(5).map(cache.relativePath(forKey:))))
            #expect(report.expired == CleanTally(entries: 5, bytes: 5_000))
            #expect(try indexedPaths(cache) == [cache.relativePath(forKey: keys[5])])
            #expect(Set(try scanFiles(cache).keys) == [cache.relativePath(forKey: keys[5])])
        }
    }

    @Test(arguments: [true, false], [false, true])
    func anEntryUsedWhileATrimRunsIsKeptAndTheNextLeastRecentlyUsedGoes(holdsFiles: Bool, byAnotherConnection: Bool) throws {
        try TemporaryDirectory.withPath { folder in
            // Given ten entries of 1,000 bytes used in the order they were stored (entry 0 longest ago)
            let cache = try DiskCache.open(at: folder, layout: .native)
            let user = byAnotherConnection ? try DiskCache.open(at: folder, layout: .native) : cache
            let keys = try fillCache(cache, count: 10, length: { _ in 992 })
            let now = Date()
            try setAllClocks(cache, keys: keys) { now.addingTimeInterval(Double($0 - 20) * 60) }

            // When a trim to 4,000 bytes in batches of two runs, and entry 3 (among the six it listed)
            // is used while it removes the first batch
            var policy = testPolicy(maxSize: 8_000, trimTo: 0.5)
            policy.batchFiles = 2
            policy.holdsFiles = holdsFiles
            var trimmed: [String] = []
            let report = try CacheCleaner(cache, policy: policy).run(now: now, onItem: { item in
                if trimmed.isEmpty { try? setClocks(user, key: keys[3], fetched: now, modified: now, accessed: now) }
                trimmed.append(item.relativePath)
            })

            // Then entry 3 stays (its row comes after the first batch's, by these keys' hashes), and the trim still reaches the
            // low-water mark by taking entry 6 next
            let gone = inRowOrder([0, 1, 2, 4, 5].map { cache.relativePath(forKey: keys[$0]) }) + [cache.relativePath(forKey: keys[6])]
            #expect(trimmed == gone)
            #expect(report.trimmed == CleanTally(entries: 6, bytes: 6_000))
            let left = Set([3, 7, 8, 9].map { cache.relativePath(forKey: keys[$0]) })
            #expect(try indexedPaths(cache) == left)
            #expect(Set(try scanFiles(cache).keys) == left)
        }
    }

    @Test func batchesOutOfTimeStillExpireEverythingAndTrimTheLeastRecentlyUsed() throws {
        try TemporaryDirectory.withPath { folder in
            // Given 30 entries of 1,000 bytes unused for a month, then 10 more used in a known order
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 40, length: { _ in 992 })
            let now = Date()
            try setAllClocks(cache, keys: keys) { $0 < 30 ? now.addingTimeInterval(-30 * day) : now.addingTimeInterval(Double($0 - 50) * 60) }

            // When a clean whose batches have no time at all expires and trims to 4,000 bytes
            var policy = testPolicy(maxAge: 7 * day, maxSize: 8_000, trimTo: 0.5)
            policy.batchTime = 0
            var trimmed: [String] = []
            let report = try CacheCleaner(cache, policy: policy)
                .run(now: now, onItem: { if $0.kind == .trimmed { trimmed.append($0.relativePath) } })

            // Then every expired entry went, the six least recently used next
            #expect(report.expired == CleanTally(entries: 30, bytes: 30_000))
            #expect(trimmed == inRowOrder(keys[30..<36].map(cache.relativePath(forKey:))))
            #expect(Set(try scanFiles(cache).keys) == Set(keys.suffix(4).map(cache.relativePath(forKey:))))
            #expect(try indexedPaths(cache) == Set(keys.suffix(4).map(cache.relativePath(forKey:))))
        }
    }

    @Test func underTheCapNothingIsTrimmed() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            _ = try fillCache(cache, count: 5, length: { _ in 992 })
            let report = try CacheCleaner(cache, policy: testPolicy(maxSize: 5_000)).run()
            #expect(report.trimmed.entries == 0)
            #expect(try cache.index.entryCount() == 5)
        }
    }

    @Test func dryRunChangesNothingAndPredictsTheRealRun() throws {
        try TemporaryDirectory.withPath { folder in
            // Given a cache with expired entries, an over-cap size, a stale temp file and an orphan
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 30)
            let now = Date()
            for key in keys.prefix(10) {
                let old = now.addingTimeInterval(-30 * day)
                try setClocks(cache, key: key, fetched: old, modified: old, accessed: old)
            }
            let temp = cache.tempFolder + "/1-1-ab.part"
            #expect(FileManager.default.createFile(atPath: temp, contents: Data(count: 50)))
            try setFileTime(temp, now.addingTimeInterval(-2 * day))
            try cache.index.deleteEntry(relativePath: cache.relativePath(forKey: keys[29]))
            try cache.flush()
            let policy = testPolicy(maxAge: 7 * day, maxSize: 6_000, trimTo: 0.5)
            let filesBefore = try scanFiles(cache)
            let rowsBefore = try cache.index.allEntries().sorted { $0.relativePath < $1.relativePath }
            let tempsBefore = try DiskCache.names(in: cache.tempFolder).sorted()

            // When a dry run goes over it
            var listed: [CleanItem] = []
            let predicted = try CacheCleaner(cache, policy: policy).run(dryRun: true, now: now, onItem: { listed.append($0) })

            // Then nothing changed, and what it listed is what a real run then does
            #expect(try scanFiles(cache) == filesBefore)
            #expect(try cache.index.allEntries().sorted { $0.relativePath < $1.relativePath } == rowsBefore)
            #expect(try DiskCache.names(in: cache.tempFolder).sorted() == tempsBefore)
            #expect(predicted.expired.entries == 10 && predicted.trimmed.entries > 0 && predicted.sweptTemp.entries == 1)
            #expect(listed.count == predicted.expired.entries + predicted.trimmed.entries + 1 + predicted.orphans.entries)
            let real = try CacheCleaner(cache, policy: policy).run(now: now)
            #expect(real.expired == predicted.expired)
            #expect(real.trimmed == predicted.trimmed)
            #expect(real.sweptTemp == predicted.sweptTemp)
            #expect(real.orphans == predicted.orphans && real.orphans.entries == 1)
            #expect(real.bytesAfter == predicted.bytesAfter, "the orphan it indexes counts in the size after")
        }
    }

    @Test(arguments: CacheLayout.allCases)
    func sweepRemovesStaleTempsIndexesOrphansDropsRowsWithoutFilesAndLeavesForeignFiles(layout: CacheLayout) throws {
        try TemporaryDirectory.withPath { folder in
            // Given a stale and a fresh temp file, an orphan file, a row without a file and foreign files
            let cache = try DiskCache.open(at: folder, layout: layout)
            let keys = try fillCache(cache, count: 6)
            let now = Date()
            let stale = cache.tempFolder + "/7-1-aa.part"
            let fresh = cache.tempFolder + "/7-2-bb.part"
            #expect(FileManager.default.createFile(atPath: stale, contents: Data(count: 100)))
            #expect(FileManager.default.createFile(atPath: fresh, contents: Data(count: 10)))
            try setFileTime(stale, now.addingTimeInterval(-7_200))
            let orphan = cache.relativePath(forKey: keys[0])
            try cache.index.deleteEntry(relativePath: orphan)
            let lost = cache.relativePath(forKey: keys[1])
            #expect(unlink(cache.root + "/" + lost) == 0)
            #expect(FileManager.default.createFile(atPath: cache.root + "/notes.txt", contents: Data(count: 7)))
            try cache.flush()

            // When a clean sweeps every folder
            let report = try CacheCleaner(cache, policy: testPolicy()).run(now: now)

            // Then
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(FileManager.default.fileExists(atPath: fresh))
            #expect(report.sweptTemp == CleanTally(entries: 1, bytes: 100))
            #expect(report.orphans.entries == 1)
            #expect(try cache.index.entry(relativePath: orphan) != nil)
            #expect(report.missingFiles.entries == 1)
            #expect(try cache.index.entry(relativePath: lost) == nil)
            #expect(FileManager.default.fileExists(atPath: cache.root + "/notes.txt"))
            #expect(report.foreign.entries == 1)
            #expect(try CacheChecker(cache).check().isEmpty)
            #expect(report.sweptFolders == report.totalFolders)
        }
    }

    @Test func orphanSweepRotatesThroughTheFoldersAcrossCleans() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            var policy = testPolicy()
            policy.orphanSweepRounds = 3
            let first = try CacheCleaner(cache, policy: policy).run()
            // 256 folders in three rounds: 86 a clean.
            #expect(first.sweptFolders == 86)
            #expect(try cache.index.meta("clean_sweep_cursor") == "86")
            _ = try CacheCleaner(cache, policy: policy).run()
            _ = try CacheCleaner(cache, policy: policy).run()
            #expect(try cache.index.meta("clean_sweep_cursor") == String(86 * 3 % 256))
        }
    }

    @Test func aRemovalLeftHalfDoneIsFinishedByTheNextClean() throws {
        try TemporaryDirectory.withPath { folder in
            // Given a killed clean's journal naming two entries: one whose file it had set aside (its row
            // still there: the batch did not commit), one it had not reached
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 3)
            let unlinked = cache.relativePath(forKey: keys[0])
            let reached = cache.relativePath(forKey: keys[1])
            let journal = cache.tempFolder + "/clean-removing-7.journal"
            try Data((unlinked + "\n" + reached).utf8).write(to: URL(fileURLWithPath: journal))
            let aside = FileRemoval.asideName(cache.root + "/" + unlinked)
            #expect(rename(cache.root + "/" + unlinked, aside) == 0)

            // A dry run predicts it: the row once (not again as a row without its file), and the
            // bytes the real clean leaves
            var predicted: [CleanItem] = []
            let dry = try CacheCleaner(cache, policy: testPolicy()).run(dryRun: true, onItem: { predicted.append($0) })
            #expect(predicted.map(\.kind) == [.abandonedRemoval])
            #expect(dry.missingFiles.entries == 1)

            // When the next clean runs
            var items: [CleanItem] = []
            let report = try CacheCleaner(cache, policy: testPolicy()).run(onItem: { items.append($0) })
            #expect(report.bytesAfter == dry.bytesAfter && report.bytesAfter < report.bytesBefore)

            // Then the row without its file is gone and so is the aside file, the other entry is whole,
            // and the journal is gone
            #expect(try cache.index.entry(relativePath: unlinked) == nil)
            #expect(!FileManager.default.fileExists(atPath: aside))
            #expect(try cache.index.entry(relativePath: reached) != nil)
            #expect(FileManager.default.fileExists(atPath: cache.root + "/" + reached))
            #expect(!FileManager.default.fileExists(atPath: journal))
            #expect(report.missingFiles.entries == 1)
            #expect(items.map(\.kind) == [.abandonedRemoval])
            #expect(try cache.index.entryCount() == 2)
            #expect(try CacheChecker(cache).check().isEmpty)
        }
    }

    /// What a clean after an interrupted one is asked to do besides: trim, or expire everything.
    struct AfterInterruption: Sendable, CustomStringConvertible {
        let description: String
        let policy: @Sendable (_ total: Int64) -> CleanPolicy

        static let trim = AfterInterruption(description: "trim to half") { testPolicy(maxSize: $0 / 2) }
        static let expire = AfterInterruption(description: "expire all") { _ in testPolicy(maxAge: 3_600) }
    }

    @Test(arguments: [AfterInterruption.trim, .expire])
    func aDryRunAfterAnInterruptedRemovalPredictsTheClean(_ case: AfterInterruption) throws {
        try TemporaryDirectory.withPath { folder in
            // Given 20 entries, used two hours ago, and a killed clean's journal naming the five least
            // recently used, whose files it had unlinked (their rows still there)
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 20)
            let past = Date().addingTimeInterval(-7_200)
            try setAllClocks(cache, keys: keys) { past.addingTimeInterval(Double($0)) }
            let unlinked = keys.prefix(5).map { cache.relativePath(forKey: $0) }
            try Data(unlinked.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: cache.tempFolder + "/clean-removing-3.journal"))
            for path in unlinked { #expect(unlink(cache.root + "/" + path) == 0) }
            let policy = `case`.policy(try cache.index.totalBytes())

            // When a dry run and then the clean itself run
            var predicted: [CleanItem] = []
            let dry = try CacheCleaner(cache, policy: policy).run(dryRun: true, onItem: { predicted.append($0) })
            var done: [CleanItem] = []
            let real = try CacheCleaner(cache, policy: policy).run(onItem: { done.append($0) })

            // Then the dry run told of each row once, and of what the clean did
            #expect(Set(predicted.map(\.relativePath)).count == predicted.count, "\(predicted)")
            #expect(predicted.map { "\($0.kind) \($0.relativePath)" }.sorted() == done.map { "\($0.kind) \($0.relativePath)" }.sorted())
            #expect(dry.bytesAfter == real.bytesAfter && dry.bytesAfter >= 0, "\(dry.bytesAfter) \(real.bytesAfter)")
            #expect(real.missingFiles.entries == 5)
        }
    }

    @Test func aFileThatCannotBeRemovedKeepsItsRowAndTheRestOfItsBatchIsDropped() throws {
        try TemporaryDirectory.withPath { folder in
            // Given five expired entries, one of whose files is a folder with something in it (unlink
            // fails with EISDIR, as a file the clean has no permission to remove would fail)
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillAgedCache(cache, count: 5, days: 40)
            let stuck = cache.root + "/" + cache.relativePath(forKey: keys[2])
            #expect(unlink(stuck) == 0 && mkdir(stuck, 0o755) == 0)
            try Data("x".utf8).write(to: URL(fileURLWithPath: stuck + "/inside"))

            // When a clean expires them, it fails on that file
            #expect(throws: MaintenanceError.self) { try CacheCleaner(cache, policy: testPolicy(maxAge: 30 * 86_400)).run() }

            // Then the rows of the files it did remove are gone with them, the stuck one's row stays,
            // and the index agrees with the files
            #expect(try cache.index.entryCount() == 1)
            #expect(try cache.index.entry(relativePath: cache.relativePath(forKey: keys[2])) != nil)
            for key in keys where key != keys[2] {
                #expect(!FileManager.default.fileExists(atPath: cache.root + "/" + cache.relativePath(forKey: key)))
            }
            #expect(try CacheStats.collect(from: cache).entries == 1)
        }
    }

    @Test func aSecondCleanGivesUpWhileTheFirstHoldsTheLock() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let cleaner = CacheCleaner(cache, policy: testPolicy())
            try {
                guard case .success(let held) = try CacheFolderLock.acquire(cleaner.lockPath, wait: 0) else {
                    Issue.record("the lock was not free")
                    return
                }
                // (its reserve let go as `clean` opens the cache)
                SpaceReserve.release(root: cache.root)
                #expect(throws: MaintenanceError.lockHeld(path: cleaner.lockPath, holder: getpid(), waited: 0.2)) {
                    try cleaner.run()
                }
                withExtendedLifetime(held) {}
            }()
            // and it held the reserve back again: "nothing was changed" stays true
            let reserve = try FileManager.default.attributesOfItem(atPath: SpaceReserve.path(root: cache.root))
            #expect((reserve[.size] as? NSNumber)?.int64Value == SpaceReserve.size)
            // Once the holder lets go, the next clean runs
            #expect(throws: Never.self) { try cleaner.run() }
        }
    }

    @Test func aFreshBodyRenamedOverAnExpiredEntryIsKept() throws {
        try TemporaryDirectory.withPath { folder in
            // Given an expired entry, and a run (its own connection) that has just stored a new body over
            // it, its row still in the run's open batch
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 1)
            let old = Date().addingTimeInterval(-30 * day)
            try setClocks(cache, key: keys[0], fetched: old, modified: old, accessed: old)
            let path = cache.root + "/" + cache.relativePath(forKey: keys[0])
            let run = try DiskCache.open(at: folder, layout: .native)
            let replacement = pngLikeBody(99, length: 500)
            try run.store(data: replacement, as: NewEntry(url: keys[0], key: keys[0], setName: "main"))
            let committed = try #require(try cache.index.entry(relativePath: cache.relativePath(forKey: keys[0])))
            #expect(committed.modifiedAt < Date().addingTimeInterval(-day))

            // When a clean expires entries meanwhile (it selects the old row, then waits for the run's
            // lock) and the run commits its batch
            let finished = DispatchSemaphore(value: 0)
            let outcome = Mutex<Result<CleanReport, MaintenanceError>?>(nil)
            Thread.detachNewThread {
                let result = Result { () throws(MaintenanceError) in try CacheCleaner(cache, policy: testPolicy(maxAge: 7 * 86_400)).run() }
                outcome.withLock { $0 = result }
                finished.signal()
            }
            usleep(300_000)
            try run.flush()
            finished.wait()

            // Then the new body stays where it is, and its row too
            let report = try #require(try outcome.withLock { $0 }?.get())
            #expect(report.expired.entries == 0)
            #expect(FileManager.default.contents(atPath: path) == replacement)
            #expect(try cache.index.entryCount() == 1)
        }
    }

    @Test func aStoreRenamesItsBodyInOnlyBetweenCleanBatches() throws {
        try TemporaryDirectory.withPath { folder in
            // Given an entry, and a clean's batch transaction open on the index
            let cache = try DiskCache.open(at: folder, layout: .native)
            let keys = try fillCache(cache, count: 1)
            try cache.flush()
            let path = cache.root + "/" + cache.relativePath(forKey: keys[0])
            let original = try #require(FileManager.default.contents(atPath: path))
            let run = try DiskCache.open(at: folder, layout: .native)
            let replacement = pngLikeBody(99, length: 500)
            let stored = DispatchSemaphore(value: 0)
            try cache.index.inWriteTransaction { _ throws(CacheError) in
                // When a run stores a new body for it meanwhile
                Thread.detachNewThread {
                    _ = try? run.store(data: replacement, as: NewEntry(url: keys[0], key: keys[0], setName: "main"))
                    try? run.flush()
                    stored.signal()
                }
                usleep(300_000)
                // Then the body under the final name is still the one the clean sees the row of
                #expect(FileManager.default.contents(atPath: path) == original)
            }
            // and once the batch commits, the new body and its row go in together
            stored.wait()
            #expect(FileManager.default.contents(atPath: path) == replacement)
            #expect(try cache.index.entry(relativePath: cache.relativePath(forKey: keys[0]))?.size == Int64(replacement.count))
        }
    }
}
