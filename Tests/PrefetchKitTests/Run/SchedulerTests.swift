import Foundation
import Synchronization
import Testing
@testable import PrefetchKit

/// A transport that answers from a script instead of the network: it writes the scripted body into
/// the file the scheduler hands over, on a thread of its own after `delay`, and records the order
/// of requests.
final class ScriptedTransport: Transport {
    enum Reply: Sendable {
        case body([UInt8])
        case status(Int)
    }

    private let replies: @Sendable (String) -> Reply
    private let delay: DispatchTimeInterval
    private let queue = DispatchQueue(label: "scripted-transport")
    private let nextID = Atomic<UInt64>(1)
    /// The URLs submitted, in order.
    let submitted = Mutex<[String]>([])

    /// Set on `queue`, so `shutdown` can tell it is called from a completion (the prefetcher's last
    /// reference may go with one) and must not wait for the queue it runs on.
    private static let onQueue = DispatchSpecificKey<Bool>()

    init(delay: DispatchTimeInterval = .never, _ replies: @escaping @Sendable (String) -> Reply) {
        self.delay = delay
        self.replies = replies
        queue.setSpecific(key: Self.onQueue, value: true)
    }

    @discardableResult
    func submit(_ request: FetchRequest, register: (FetchID) -> Void,
                completion: @escaping @Sendable (FetchResult) -> Void) -> FetchID {
        let id = FetchID(rawValue: nextID.add(1, ordering: .relaxed).oldValue)
        register(id)
        submitted.withLock { $0.append(request.url) }
        let reply = replies(request.url)
        let descriptor = request.destinationDescriptor
        let answer = { @Sendable in
            let outcome: Result<FetchResponse, FetchError>
            switch reply {
            case .body(let bytes):
                if let descriptor { _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } }
                outcome = .success(FetchResponse(kind: .ok, status: 200, finalURL: request.url, headers: ResponseHeaders(),
                                                 bytes: Int64(bytes.count), head: bytes))
            case .status(let status):
                outcome = .failure(.http(status: status))
            }
            completion(FetchResult(id: id, url: request.url, outcome: outcome, attempts: 1, timings: .zero,
                                   elapsed: .milliseconds(1)))
        }
        if delay == .never {
            queue.async(execute: answer)
        } else {
            queue.asyncAfter(deadline: .now() + delay, execute: answer)
        }
        return id
    }

    /// Waits until every answer given so far has run and let go of what it held.
    func drain() {
        queue.sync {}
    }

    func cancelAll() {}

    func cancel(group: Int) {}

    func rateWait(group: Int?) -> Duration { .zero }

    func shutdown() {
        guard DispatchQueue.getSpecific(key: Self.onQueue) != true else { return }
        queue.sync {}
    }
}

@Suite(.timeLimit(.minutes(1))) struct SchedulerTests {
    static let png = ImageFixtures.png(width: 4, height: 3)

    /// Runs `sets` (YAML list items) through a prefetcher whose transport is `transport`.
    static func run(_ folder: TemporaryDirectory, layout: String = "native", sets: String, concurrency: Int = 4,
                    transport: ScriptedTransport) throws -> RunOutcome {
        let file = try folder.write("job.yaml", """
            version: 1
            cache: { path: "\(folder.path)/cache", layout: \(layout) }
            defaults: { concurrency: \(concurrency), per_host: \(concurrency), retries: 0, validate: header }
            sets:
            \(sets)
            """)
        let job = try JobFile.load(path: file.path, environment: [:], workingDirectory: folder.path)
        let cache = try DiskCache.open(at: job.cache.path, layout: job.cache.layout, durable: false)
        let prefetcher = try Prefetcher(job: job, cache: cache, settings: RunSettings(),
                                        log: RunLog(format: .text, verbosity: .quiet)) { _ in transport }
        let outcome = try prefetcher.run()
        // The run's last references go with the transport's answers: let them go before the caller
        // looks at the cache, so the prefetcher (and its index connection) closes here.
        transport.drain()
        return withExtendedLifetime(prefetcher) { outcome }
    }

    @Test func aKeyAskedByThreeSetsIsFetchedOnceAndToldToEach() throws {
        let folder = try TemporaryDirectory()
        // Every transfer is still in flight when the later occurrences are scheduled.
        let transport = ScriptedTransport(delay: .milliseconds(300)) { _ in .body(Self.png) }
        let outcome = try Self.run(folder, sets: """
              - { name: hero, priority: high, urls: ["http://img.test/a.png", "http://img.test/b.png"] }
              - { name: catalog, urls: ["http://img.test/a.png"] }
              - { name: thumbs, priority: low, urls: ["http://img.test/a.png", "http://img.test/a.png"] }
            """, transport: transport)
        #expect(transport.submitted.withLock { $0 } == ["http://img.test/a.png", "http://img.test/b.png"])
        #expect(outcome.report.totals.requested == 5)
        #expect(outcome.report.totals.unique == 2)
        #expect(outcome.report.totals.fetched == 2)
        #expect(outcome.sets.map(\.succeeded) == [2, 1, 2])
    }

    @Test func higherPrioritiesAreSubmittedFirstAndLifoReversesASet() throws {
        let folder = try TemporaryDirectory()
        let transport = ScriptedTransport { _ in .body(Self.png) }
        _ = try Self.run(folder, sets: """
              - { name: late, priority: low, urls: ["http://img.test/low"] }
              - { name: normal, order: lifo, urls: ["http://img.test/n1", "http://img.test/n2"] }
              - { name: first, priority: high, urls: ["http://img.test/high"] }
            """, concurrency: 1, transport: transport)
        #expect(transport.submitted.withLock { $0 }
            == ["http://img.test/high", "http://img.test/n2", "http://img.test/n1", "http://img.test/low"])
    }

    @Test func aPermanentFailureIsLedgeredAndTheNextRunCountsItLedgered() throws {
        let folder = try TemporaryDirectory()
        let sets = """
              - { name: s, urls: ["http://img.test/gone", "http://img.test/ok"] }
            """
        let first = ScriptedTransport { $0.hasSuffix("gone") ? .status(404) : .body(Self.png) }
        let outcome = try Self.run(folder, sets: sets, transport: first)
        #expect(outcome.report.totals.failed == 1)
        #expect(outcome.report.failures.map(\.reason) == ["http_404"])

        let second = ScriptedTransport { _ in .body(Self.png) }
        let rerun = try Self.run(folder, sets: sets, transport: second)
        #expect(second.submitted.withLock { $0 }.isEmpty)
        #expect(rerun.report.totals.ledgered == 1 && rerun.report.totals.skipped == 0)
        #expect(rerun.report.totals.cached == 1)
        #expect(rerun.report.failures.map { [$0.url, $0.reason] } == [["http://img.test/gone", "http_404"]])
        #expect(rerun.report.failures.first?.ledgered == true && rerun.report.failures.first?.nextRetry != nil)
    }
}
