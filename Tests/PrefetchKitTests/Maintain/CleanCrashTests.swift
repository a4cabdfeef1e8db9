import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd clean` SIGKILLed at random points, and a clean running beside a storing process.
@Suite(.timeLimit(.minutes(5))) struct CleanCrashTests {
    private static let rounds = 12

    /// On the system's temporary folder and on /dev/shm, a tmpfs: a clean on the first holds its files
    /// open until each commit where that is a disk mounted with discard (the project's machines), and
    /// on the tmpfs it unlinks them in place (`FileRemoval`), so both ways are killed.
    @Test(arguments: [nil, "/dev/shm"])
    func aKilledCleanLeavesOnlyWhatTheNextCleanRepairs(under base: String?) throws {
        let prefetchd = try Binary.executable("prefetchd")
        let filler = try Binary.executable("cache-filler")
        let temporary = try TemporaryDirectory(under: base)
        // Which way this case tests, said in its result: held on the temporary folder, in place on the tmpfs.
        let holds = MountTable.mayWaitToFree(at: temporary.path)
        #expect(holds == (base == nil), "files held open: \(holds) under \(temporary.path)")
        try withExtendedLifetime(temporary) {
            let folder = temporary.path
            var killedMidway = 0
            for round in 0..<Self.rounds {
                // Given 1,500 entries unused for a month (enough that a clean of them takes longer than
                // the kill delay below; with a few hundred, the faster clean finished before every kill)
                try run(filler, [folder, "1500", String(round * 1500)])
                let cache = try DiskCache.open(at: folder, layout: .native)
                try cache.index.withConnection { connection throws(CacheError) in
                    try connection.write("UPDATE entries SET accessed_at = accessed_at - 30 * 86400", [])
                }
                try cache.flush()

                // When a clean that expires them is killed at a random moment
                let process = Process()
                process.executableURL = prefetchd
                process.arguments = ["clean", "--cache", folder, "--max-age", "7d"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                usleep(UInt32.random(in: 5_000...80_000))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal { killedMidway += 1 }

                // Then the only damage is rows whose files it had unlinked, each named in a journal, and
                // no file is left under another name
                var named: Set<String> = []
                for name in try DiskCache.names(in: cache.tempFolder) where CleanPass.isJournal(name) {
                    let journal = (try? String(contentsOfFile: cache.tempFolder + "/" + name, encoding: .utf8)) ?? ""
                    named.formUnion(journal.split(separator: "\n").map(String.init))
                }
                #expect(try asideFiles(cache).isEmpty, "a killed clean left files aside")
                for problem in try CacheChecker(cache).check() {
                    guard case .missingFile(let path) = problem, named.contains(path) else {
                        Issue.record("a killed clean cannot explain \(problem)")
                        continue
                    }
                }
            }
            #expect(killedMidway > 0, "every clean finished before the kill; nothing was tested")

            // and the next clean repairs all of it: index and files agree, totals equal a scan
            let cache = try DiskCache.open(at: folder, layout: .native)
            _ = try CacheCleaner(cache, policy: testPolicy(maxAge: 7 * 86_400)).run()
            #expect(try CacheChecker(cache, staleTempAge: 0).check().isEmpty)
            #expect(try tempLeftovers(root: cache.root).isEmpty)
            #expect(try asideFiles(cache).isEmpty)
            let files = try scanFiles(cache)
            let stats = try CacheStats.collect(from: cache)
            #expect(stats.entries == files.count)
            #expect(stats.bytes == files.values.reduce(0, +))
        }
    }

    /// The entries (by relative path) whose files are set aside under `FileRemoval.asideName` in a native cache.
    private func asideFiles(_ cache: DiskCache) throws -> [String] {
        var entries: [String] = []
        for folder in try DiskCache.names(in: cache.root) where folder.count == 2 && DiskCache.isLowerHex(folder) {
            for name in try DiskCache.names(in: cache.root + "/" + folder) where name.hasPrefix(FileRemoval.asidePrefix) {
                entries.append(folder + "/" + name.dropFirst(FileRemoval.asidePrefix.count))
            }
        }
        return entries
    }

    @Test func aCleanBesideAStoringProcessLosesNothingItStored() throws {
        let torture = try Binary.executable("store-torture")
        try TemporaryDirectory.withPath { folder in
            // Given a process storing entries into the cache as fast as it can, over 4,000 keys (with
            // fewer, it stores each one again within the time a clean waits for the index's write lock,
            // and every row a clean lists has been used meanwhile: the trim rightly removes none)
            let cache = try DiskCache.open(at: folder, layout: .native)
            let process = Process()
            process.executableURL = torture
            process.arguments = [folder, "native", "4000"]
            try process.run()
            defer {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            usleep(200_000)

            // When cleans trim the cache hard, over and over, meanwhile: for 2 s, and on until one has
            // trimmed something, for 30 s at most
            var trimmed = 0
            let policy = testPolicy(maxSize: 300_000, trimTo: 0.3)
            let until = Date().addingTimeInterval(2)
            let atMost = Date().addingTimeInterval(30)
            while Date() < until || (trimmed == 0 && Date() < atMost) {
                trimmed += try CacheCleaner(cache, policy: policy).run().trimmed.entries
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "store-torture stopped by itself")
            #expect(trimmed > 0, "nothing was trimmed; the test tested nothing")

            // Then every row has its whole file: only the kill's own traces (a lost row, a temp) remain
            let reopened = try DiskCache.open(at: folder, layout: .native)
            for problem in try CacheChecker(reopened, staleTempAge: 0).check() {
                switch problem {
                case .orphanFile, .staleTemp: break
                default: Issue.record("a clean beside a run left \(problem)")
                }
            }
        }
    }

    @Test func aCleanUnderALowOpenFileLimitRemovesEverythingDue() throws {
        let prefetchd = try Binary.executable("prefetchd")
        let filler = try Binary.executable("cache-filler")
        try TemporaryDirectory.withPath { folder in
            // Given 1,500 entries unused for a month
            try run(filler, [folder, "1500", "0"])
            let cache = try DiskCache.open(at: folder, layout: .native)
            try cache.index.withConnection { connection throws(CacheError) in
                try connection.write("UPDATE entries SET accessed_at = accessed_at - 30 * 86400", [])
            }
            try cache.flush()

            // When a clean that expires them runs with at most 300 open files (where it holds each file
            // it removes open until its batch commits: the system's temporary folder, where it is on a
            // disk mounted with discard, as on the project's machines)
            try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -n 300 && exec \"$0\" clean --cache \"$1\" --max-age 7d",
                                                      prefetchd.path, folder])

            // Then every entry and file is gone
            let reopened = try DiskCache.open(at: folder, layout: .native)
            #expect(try reopened.index.entryCount() == 0)
            #expect(try scanFiles(reopened).isEmpty)
            #expect(try CacheChecker(reopened, staleTempAge: 0).check().isEmpty)
        }
    }

    private func run(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
