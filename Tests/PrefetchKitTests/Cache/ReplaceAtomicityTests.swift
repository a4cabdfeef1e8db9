import Foundation
import Glibc
import Synchronization
import Testing
@testable import PrefetchKit

/// Replacing a key's body never leaves a moment without a file under its name, nor a torn one.
@Suite(.timeLimit(.minutes(3))) struct ReplaceAtomicityTests {
    /// Body `number` of a replacement series: a PNG signature, then one byte repeated, of a length
    /// of its own, so a reader can tell which body it read and whether it read all of it.
    static func body(_ number: Int) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            + Data(repeating: UInt8(truncatingIfNeeded: number % 251 + 1), count: 20_000 + (number % 7) * 3_000)
    }

    /// Whether `data` is one of the bodies `body(_:)` makes, whole.
    static func isWholeBody(_ data: Data) -> Bool {
        let filler = data.count - 8 - 20_000
        guard filler >= 0, filler % 3_000 == 0, filler / 3_000 < 7, data.prefix(8) == body(0).prefix(8) else { return false }
        let byte = data[8]
        return data.dropFirst(8).allSatisfy { $0 == byte }
    }

    @Test func aReaderOfTheFinalPathAlwaysFindsAWholeOldOrNewBody() throws {
        try TemporaryDirectory.withPath { folder in
            // Given a key stored once, and a reader opening its final path in a loop
            let cache = try DiskCache.open(at: folder, layout: .native)
            let key = "https://replace.invalid/hero.png"
            let path = try cache.store(data: Self.body(0), as: NewEntry(url: key, key: key)).path
            let stop = Atomic<Bool>(false)
            let reads = Atomic<Int>(0)
            let problems = Mutex<[String]>([])
            let reader = Thread {
                while !stop.load(ordering: .acquiring) {
                    guard let data = FileManager.default.contents(atPath: path) else {
                        problems.withLock { $0.append("no file at \(path) (errno \(errno))") }
                        continue
                    }
                    reads.add(1, ordering: .relaxed)
                    if !Self.isWholeBody(data) {
                        problems.withLock { $0.append("a torn body of \(data.count) bytes") }
                    }
                }
            }
            reader.start()

            // When the key is replaced many times over
            for number in 1...1_500 {
                try cache.store(data: Self.body(number), as: NewEntry(url: key, key: key))
            }
            stop.store(true, ordering: .releasing)
            while !reader.isFinished { usleep(1_000) }

            // Then every read found a whole body, and the last one stays
            #expect(problems.withLock { Array($0.prefix(5)) } == [])
            #expect(reads.load(ordering: .relaxed) > 100, "the reader hardly ran")
            #expect(FileManager.default.contents(atPath: path) == Self.body(1_500))
        }
    }

    @Test func aStoreKilledWhileReplacingLosesNoKeyStoredBefore() throws {
        let executable = try Binary.executable("store-torture")
        try TemporaryDirectory.withPath { folder in
            // Few keys, replaced over and over, and many kills: each may land between the two steps of a
            // replacement that is not atomic.
            let keys = 2
            for round in 0..<150 {
                // Given a process that has stored every one of its keys and now replaces them
                let process = Process()
                process.executableURL = executable
                process.arguments = [folder, "native", String(keys)]
                try process.run()
                try Self.waitForCommittedRows(keys, in: folder + "/index.sqlite")
                usleep(UInt32.random(in: 2_000...30_000))

                // When it is killed mid-replacement
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()

                // Then every key is there, row and whole file
                let cache = try DiskCache.open(at: folder, layout: .native)
                for number in 0..<keys {
                    let key = "https://torture.invalid/img/\(number).png"
                    let entry = try #require(try cache.lookup(key: key), "round \(round): key \(number) lost")
                    #expect(FileManager.default.contents(atPath: entry.path) == StoreTortureTests.expectedBody(number))
                }
            }
        }
    }

    /// Waits until the index at `path` has committed `count` rows (at most 20 s).
    static func waitForCommittedRows(_ count: Int, in path: String) throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let database = try? IndexDatabase(path: path, access: .readOnly),
               let rows = try? database.text("SELECT count(*) FROM entries"), Int(rows) ?? 0 >= count {
                return
            }
            usleep(10_000)
        }
        Issue.record("the store-torture process did not commit \(count) rows in 20 s")
    }
}
