import Foundation
import Synchronization
@testable import PrefetchKit

/// A fixture server, an engine recording its events, and a fresh temporary folder, for one test;
/// `close()` shuts the engine down and stops the server; the folder goes with the harness.
final class FetchHarness {
    let server: FixtureServer
    let engine: FetchEngine
    let folder: TemporaryDirectory
    let events: EventLog

    /// `lanes`: the engine's network threads; the machine's default when nil.
    init(concurrency: Int = 4, perHost: Int = 4, lanes: Int? = nil) throws {
        folder = try TemporaryDirectory()
        server = try FixtureServer()
        let events = EventLog()
        self.events = events
        var configuration = EngineConfiguration(concurrency: concurrency, perHost: perHost, onEvent: { events.append($0) })
        configuration.lanes = lanes ?? configuration.lanes
        engine = try FetchEngine(configuration: configuration)
    }

    func close() {
        engine.shutdown()
        server.stop()
    }

    /// A request for a fixture path into a new file of the folder; no retries unless asked.
    func request(_ path: String, retry: RetryPolicy = RetryPolicy(retries: 0)) -> FetchRequest {
        FetchRequest(url: server.url(path), destination: destination(), timeout: .seconds(10), retry: retry)
    }

    func destination() -> String {
        folder.file("\(UUID().uuidString).part").path
    }

    func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// Fetches every request at once; the results in the order they came.
    func fetchAll(_ requests: [FetchRequest]) async -> [FetchResult] {
        let engine = engine
        return await withTaskGroup(of: FetchResult.self) { group in
            for request in requests {
                group.addTask { await engine.fetch(request) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// The body of a fixture path, fetched through the engine, as text.
    func text(_ path: String) async throws -> String {
        let request = request(path)
        let result = await engine.fetch(request)
        _ = try result.outcome.get()
        defer { try? FileManager.default.removeItem(atPath: request.destination) }
        return try String(contentsOfFile: request.destination, encoding: .utf8)
    }
}

/// Every event the engine reported, in order.
final class EventLog: Sendable {
    private let events = Mutex<[FetchEvent]>([])

    func append(_ event: FetchEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [FetchEvent] {
        events.withLock { $0 }
    }

    func retryDelays(of id: FetchID) -> [Duration] {
        all.compactMap { event in
            if case .retrying(id, _, _, let delay, _) = event { delay } else { nil }
        }
    }
}

extension FetchResult {
    var error: FetchError? {
        if case .failure(let error) = outcome { error } else { nil }
    }

    var response: FetchResponse? {
        try? outcome.get()
    }
}
