import Foundation
import Testing
@testable import PrefetchKit

/// `prefetchd run` beside another process that holds the index's write lock and does not let go (a
/// stopped or hung writer): the run gives up after a bounded wait, as `clean` does, and a stop signal
/// ends it at once instead of after a busy timeout for every body it still holds. And `fsck` beside a
/// running run: the bodies the run has placed and not yet recorded are not orphans.
@Suite(.timeLimit(.minutes(3)))
struct RunIndexLockTests {
    /// A cache made by a run of one URL, and a job of `count` more URLs into it.
    private func cacheAndJob(_ harness: RunHarness, count: Int) throws -> String {
        let first = try harness.job("first", sets: [harness.set("s", ["/ok/first"])])
        #expect(try Binary.run(["run", first, "--progress", "never", "--quiet"]).status == 0)
        return try harness.job("many", sets: [harness.set("s", (1...count).map { "/ok/\($0)" })])
    }

    /// Another process (Python's sqlite3) holding the index's write lock until it is killed.
    private func holdWriteLock(_ cache: String) throws -> Process {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-c", """
            import sqlite3, sys, time
            connection = sqlite3.connect(sys.argv[1], isolation_level=None)
            connection.execute("BEGIN IMMEDIATE")
            print("held", flush=True)
            time.sleep(600)
            """, cache + "/index.sqlite"]
        let output = Pipe()
        holder.standardOutput = output
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        // Read as its 5 bytes: `availableData` waited for the end of the pipe here.
        let said = try output.fileHandleForReading.read(upToCount: 5) ?? Data()
        #expect(String(decoding: said, as: UTF8.self) == "held\n")
        return holder
    }

    /// SIGKILL: the test process's children inherit its stop signals blocked.
    private func stop(_ holder: Process) {
        guard holder.isRunning else { return }
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
    }

    private func startRun(_ job: String, stderr: URL) throws -> Process {
        FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=TERM", Binary.url.path, "run", job, "--progress", "never"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: stderr)
        try process.run()
        return process
    }

    /// A cache and a job of 40 more URLs into it, another process holding the index's write lock
    /// while `body` runs, and a file for the run's standard error.
    private func withHeldLock(_ body: (RunHarness, _ job: String, _ holder: Process, _ log: URL) throws -> Void) throws {
        let harness = try RunHarness()
        let job = try cacheAndJob(harness, count: 40)
        let holder = try holdWriteLock(harness.cachePath)
        defer { stop(holder) }
        try body(harness, job, holder, harness.folder.file("run.log"))
    }

    @Test func aStopSignalEndsARunWaitingOnAHeldLockAtOnce() throws {
        try withHeldLock { harness, job, holder, log in
            // Given a run whose first store has met the lock and failed after the busy timeout
            let run = try startRun(job, stderr: log)
            let deadline = Date().addingTimeInterval(30)
            while run.isRunning, Date() < deadline,
                  !((try? String(contentsOf: log, encoding: .utf8))?.contains("database is locked") ?? false) {
                usleep(50_000)
            }
            #expect(run.isRunning)

            // When SIGTERM comes, it ends within a second or two, as terminated
            let signalled = Date()
            kill(run.processIdentifier, SIGTERM)
            run.waitUntilExit()
            #expect(Date().timeIntervalSince(signalled) < 3, "\(Date().timeIntervalSince(signalled)) s")
            let text = try String(contentsOf: log, encoding: .utf8)
            #expect(run.terminationStatus == 143, "\(text)")

            // and, the lock let go, the cache is whole and a rerun stores everything
            stop(holder)
            #expect(try Binary.run(["fsck", "--cache", harness.cachePath]).status == 0)
            #expect(try Binary.run(["run", job, "--progress", "never", "--quiet"]).status == 0)
            #expect(try DiskCache.open(at: harness.cachePath, layout: .native).index.entryCount() == 41)
        }
    }

    @Test func fsckBesideARunTakesNoneOfItsBodiesForOrphans() throws {
        let harness = try RunHarness()
        let paths = (1...60).map { "/slow/200?n=\($0)" }
        let job = try harness.job(defaults: ["concurrency": "6", "per_host": "6"], sets: [harness.set("slow", paths)])
        let run = try startRun(job, stderr: harness.folder.file("run.log"))
        // While the run places a body about every 30 ms and records them a quarter of a second later
        var checks: [Binary.Outcome] = []
        usleep(800_000)
        while run.isRunning, checks.count < 5 {
            checks.append(try Binary.run(["fsck", "--cache", harness.cachePath]))
        }
        run.waitUntilExit()
        #expect(run.terminationStatus == 0)
        #expect(checks.count >= 2)
        for check in checks {
            #expect(check.status == 0 && check.stderr.contains(": 0 problems found"), "\(check.stdout)\(check.stderr)")
        }
    }

    @Test func aRunGivesUpOnALockHeldAMinute() throws {
        try withHeldLock { _, job, _, log in
            // Given a run that meets the lock at every store, when it has stayed held a minute
            let started = Date()
            let run = try startRun(job, stderr: log)
            run.waitUntilExit()

            // Then the run stops by itself, exit 3, saying why
            let elapsed = Date().timeIntervalSince(started)
            let text = try String(contentsOf: log, encoding: .utf8)
            #expect(run.terminationStatus == 3, "\(text)")
            #expect(text.contains("the index stayed locked by other processes for 60 s; stopped, the cache is consistent"), "\(text)")
            #expect(elapsed >= 60 && elapsed < 100, "\(elapsed) s")
        }
    }
}
