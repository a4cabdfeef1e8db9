import Foundation
import Testing
@testable import PrefetchKit

/// Kills a process that stores entries in a loop, many times, and checks that the cache it leaves
/// never holds a partial or wrong file under a final name and that fsck can repair the rest.
@Suite(.timeLimit(.minutes(3))) struct StoreTortureTests {
    /// Mirrors `body(_:)` in Tests/StoreTorture/main.swift.
    static func expectedBody(_ number: Int) -> Data {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let key = Array("https://torture.invalid/img/\(number).png\n".utf8)
        let length = 512 + (number * 977) % 24_000
        return Data(signature + key + (0..<length).map { UInt8(truncatingIfNeeded: $0 * 31 + number) })
    }

    private static let keyPool = 400
    private static let rounds = 20

    @Test(arguments: CacheLayout.allCases)
    func killedStoresLeaveARepairableCache(layout: CacheLayout) throws {
        let executable = try Binary.executable("store-torture")
        try TemporaryDirectory.withPath { folder in
            // Given a cache that a storing process was SIGKILLed in, many times over
            for _ in 0..<Self.rounds {
                let process = Process()
                process.executableURL = executable
                process.arguments = [folder, layout.rawValue]
                try process.run()
                usleep(UInt32.random(in: 30_000...250_000))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                #expect(process.terminationReason == .uncaughtSignal, "store-torture stopped by itself")
            }

            // Then the index opens, every final file is whole and right
            let cache = try DiskCache.open(at: folder, layout: layout)
            var numberByPath: [String: Int] = [:]
            for number in 0..<Self.keyPool {
                numberByPath[cache.relativePath(forKey: "https://torture.invalid/img/\(number).png")] = number
            }
            let files = try cache.finalFiles()
            #expect(files.count > 10, "the torture stored too little to test anything")
            for relativePath in files {
                let number = try #require(numberByPath[relativePath], "unexpected file \(relativePath)")
                #expect(FileManager.default.contents(atPath: cache.root + "/" + relativePath) == Self.expectedBody(number),
                        "partial or wrong body at \(relativePath)")
            }

            // and fsck finds only what a kill can leave (lost index rows, abandoned temps), and repairs it
            let checker = CacheChecker(cache, staleTempAge: 0)
            let problems = try checker.check()
            for problem in problems {
                switch problem {
                case .orphanFile, .staleTemp: break
                default: Issue.record("a kill cannot explain \(problem)")
                }
            }
            try checker.repair(problems)
            #expect(try checker.check().isEmpty)
            #expect(try cache.index.entryCount() == files.count)
        }
    }
}
