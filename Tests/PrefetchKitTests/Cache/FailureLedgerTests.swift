import Foundation
import Testing
@testable import PrefetchKit

@Suite struct FailureLedgerTests {
    @Test func recordsLooksUpReplacesAndRemovesFailures() throws {
        try TemporaryDirectory.withPath { folder in
            let cache = try DiskCache.open(at: folder, layout: .native)
            let at = Date(timeIntervalSince1970: 1_700_000_000)
            let first = FailureRecord(url: "https://c.example/404.png", key: "k1", reason: "HTTP 404", httpStatus: 404,
                                      attempts: 1, nextRetryAt: at.addingTimeInterval(86_400), lastErrorAt: at)
            try cache.index.recordFailure(first)
            #expect(try cache.index.failure(forKey: "k1") == first)
            #expect(try cache.index.failure(forKey: "k2") == nil)

            var again = first
            again.attempts = 2
            again.lastErrorAt = at.addingTimeInterval(10)
            try cache.index.recordFailure(again)
            let other = FailureRecord(url: "https://c.example/bad.png", key: "k2", reason: "not an image", lastErrorAt: at)
            try cache.index.recordFailure(other)
            #expect(try cache.index.failures() == [again, other])

            try cache.index.removeFailure(forKey: "k1")
            #expect(try cache.index.failures() == [other])
        }
    }

    @Test func theLedgerSurvivesReopening() throws {
        try TemporaryDirectory.withPath { folder in
            let record = FailureRecord(url: "u", key: "k", reason: "r", lastErrorAt: Date(timeIntervalSince1970: 5))
            do {
                let cache = try DiskCache.open(at: folder, layout: .native)
                try cache.index.recordFailure(record)
            }
            let cache = try DiskCache.open(at: folder, layout: .native)
            #expect(try cache.index.failure(forKey: "k") == record)
        }
    }
}
