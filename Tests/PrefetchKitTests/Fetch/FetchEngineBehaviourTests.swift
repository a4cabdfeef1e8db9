import Foundation
import Testing
@testable import PrefetchKit

@Suite(.timeLimit(.minutes(3)))
struct FetchEngineBehaviourTests {
    @Test func validatorsTurnIntoA304() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let first = await harness.engine.fetch(harness.request("/etag/a"))
        let stored = try #require(first.response)
        let etag = try #require(stored.headers.etag)
        let lastModified = try #require(stored.headers.lastModified)

        for validators in [Validators(etag: etag), Validators(lastModified: lastModified)] {
            var request = harness.request("/etag/a")
            request.validators = validators

            let result = await harness.engine.fetch(request)

            #expect(result.response?.kind == .notModified)
            #expect(result.response?.status == 304)
            #expect(!harness.exists(request.destination))
        }
    }

    /// Bodies of many receive buffers arrive byte for byte, with the checksum of what is in the file,
    /// four transfers at once (their writes interleaved on the network thread).
    @Test func largeBodiesAreWrittenWhole() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let sizes = [1_000_003, 262_144, 131_071, 0]
        let requests = sizes.enumerated().map { seed, size in
            var request = harness.request("/bytes/\(size)/\(seed)")
            request.computesChecksum = true
            return request
        }

        let results = await harness.fetchAll(requests)

        #expect(results.allSatisfy { $0.response?.kind == .ok })
        for (seed, (size, request)) in zip(sizes, requests).enumerated() {
            let body = try Data(contentsOf: URL(fileURLWithPath: request.destination))
            #expect(body == Self.bytesBody(size: size, seed: seed), "body of \(size) bytes")
            let result = try #require(results.first { $0.response?.bytes == Int64(size) })
            #expect(result.response?.checksum == (try ContentHasher.checksum(ofFileAt: request.destination)), "checksum of \(size) bytes")
        }
    }

    /// A body goes into a file the caller holds open: from offset 0 over what an earlier attempt left,
    /// the descriptor still open after; a failure leaves the file for the caller to drop.
    @Test func writesIntoADescriptorTheCallerOwns() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/bytes/300000/7")
        let descriptor = open(request.destination, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let leftover = [UInt8](repeating: 0xAB, count: 400_000)
        try #require(write(descriptor, leftover, leftover.count) == leftover.count)
        request.destinationDescriptor = descriptor

        let result = await harness.engine.fetch(request)

        #expect(result.response?.kind == .ok)
        #expect(try Data(contentsOf: URL(fileURLWithPath: request.destination)) == Self.bytesBody(size: 300_000, seed: 7))
        #expect(fcntl(descriptor, F_GETFD) != -1)

        var missing = harness.request("/status/404")
        missing.destination = request.destination
        missing.destinationDescriptor = descriptor
        let failed = await harness.engine.fetch(missing)

        #expect(failed.error?.reason == "http_404")
        #expect(harness.exists(request.destination))
        #expect(fcntl(descriptor, F_GETFD) != -1)
    }

    /// What the fixture's `/bytes/<size>/<seed>` serves.
    private static func bytesBody(size: Int, seed: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 ^ $0 >> 8 ^ $0 >> 16 ^ seed) })
    }

    /// The limits count every network thread's transfers: one thread, as many as the machine has
    /// cores here, and more.
    @Test(arguments: [1, 2, 3])
    func keepsAtMostConcurrencyTransfersInFlight(lanes: Int) async throws {
        let harness = try FetchHarness(concurrency: 3, perHost: 3, lanes: lanes)
        defer { harness.close() }
        let requests = (0..<12).map { _ in harness.request("/slow/150") }

        let results = await harness.fetchAll(requests)

        #expect(results.count == 12)
        #expect(results.allSatisfy { $0.response?.kind == .ok })
        #expect(requests.allSatisfy { harness.exists($0.destination) })
        let most = try #require(Int(try await harness.text("/max-inflight")))
        #expect(most <= 3)
        #expect(most >= 1)
    }

    @Test(arguments: [1, 2, 3])
    func perHostLimitsTransfersToOneHost(lanes: Int) async throws {
        let harness = try FetchHarness(concurrency: 8, perHost: 2, lanes: lanes)
        defer { harness.close() }
        let requests = (0..<8).map { _ in harness.request("/slow/100") }

        let results = await harness.fetchAll(requests)

        #expect(results.allSatisfy { $0.response?.kind == .ok })
        let most = try #require(Int(try await harness.text("/max-inflight")))
        #expect(most <= 2)
    }

    @Test(arguments: [1, 2, 3])
    func aRequestsOwnLimitsHoldBesideTheEngines(lanes: Int) async throws {
        let harness = try FetchHarness(concurrency: 8, perHost: 8, lanes: lanes)
        defer { harness.close() }
        let requests = (0..<12).map { index in
            var request = harness.request(index < 6 ? "/slow/150/narrow" : "/slow/150/polite")
            if index < 6 { request.concurrency = 2 } else { request.perHost = 1 }
            return request
        }

        let results = await harness.fetchAll(requests)

        #expect(results.allSatisfy { $0.response?.kind == .ok })
        #expect(try await harness.text("/max-inflight/narrow") == "2")
        #expect(try await harness.text("/max-inflight/polite") == "1")
    }

    /// One queue for every network thread: with one transfer at a time, requests start in the order
    /// they came, whichever thread runs them.
    @Test func requestsStartOldestFirstAcrossLanes() async throws {
        let harness = try FetchHarness(concurrency: 1, perHost: 1, lanes: 2)
        defer { harness.close() }
        let requests = (0..<6).map { harness.request("/slow/30/\($0)") }
        let finished = AsyncStream<FetchResult>.makeStream()
        for request in requests {
            harness.engine.submit(request) { finished.continuation.yield($0) }
        }

        var results: [FetchResult] = []
        for await result in finished.stream {
            results.append(result)
            if results.count == requests.count { break }
        }

        #expect(results.allSatisfy { $0.response?.kind == .ok })
        let started = harness.events.all.compactMap { event -> String? in
            guard case .started(_, let url, _) = event else { return nil }
            return url
        }
        #expect(started == requests.map(\.shownURL))
    }

    @Test func sendsBasicCredentials() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/auth/shop/s3cret")
        request.credentials = Credentials(username: "shop", password: "s3cret")

        let result = await harness.engine.fetch(request)

        #expect(result.response?.kind == .ok)
    }

    @Test func passwordsNeverAppearInFailures() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let port = harness.server.port
        harness.server.stop()
        let withCredentials = FetchRequest(
            url: "http://127.0.0.1:\(port)/ok/a", destination: harness.destination(),
            credentials: Credentials(username: "shop", password: "hunter2"), retry: RetryPolicy(retries: 0))
        let withPasswordInURL = FetchRequest(
            url: "http://shop:hunter2@127.0.0.1:\(port)/ok/a", destination: harness.destination(),
            retry: RetryPolicy(retries: 0))

        let results = [await harness.engine.fetch(withCredentials), await harness.engine.fetch(withPasswordInURL)]
        harness.engine.shutdown()

        for result in results {
            let error = try #require(result.error)
            #expect(error.reason == "connect_failed")
            #expect(!"\(error)".contains("hunter2"))
            #expect(!result.url.contains("hunter2"))
        }
        #expect(results[1].url == "http://shop:***@127.0.0.1:\(port)/ok/a")
        let logged = harness.events.all.map { "\($0)" }.joined()
        #expect(logged.contains("shop:***@"))
        #expect(!logged.contains("hunter2"))
    }

    @Test func aWrongPasswordIsA401WithoutThePassword() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/auth/shop/s3cret")
        request.credentials = Credentials(username: "shop", password: "hunter2")

        let result = await harness.engine.fetch(request)

        let error = try #require(result.error)
        #expect(error == .http(status: 401))
        #expect(!"\(error)".contains("hunter2"))
        #expect(!harness.exists(request.destination))
    }

    @Test func cookiesStayInTheJarOnlyWhenAsked() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var set = harness.request("/cookie/set/vanilla")
        set.cookies = true
        var get = harness.request("/cookie/get")
        get.cookies = true
        let plain = harness.request("/cookie/get")

        _ = try await harness.engine.fetch(set).outcome.get()
        _ = try await harness.engine.fetch(get).outcome.get()
        _ = try await harness.engine.fetch(plain).outcome.get()

        #expect(try String(contentsOfFile: get.destination, encoding: .utf8) == "flavour=vanilla")
        #expect(try String(contentsOfFile: plain.destination, encoding: .utf8) == "")
    }

    @Test(arguments: [1, 2, 3])
    func cancelAllAbortsTransfersAndRemovesTheirFiles(lanes: Int) async throws {
        let harness = try FetchHarness(concurrency: 2, lanes: lanes)
        defer { harness.close() }
        // Three endless trickles (two in flight, one waiting): none ends on its own before the cancel,
        // however long a busy test run keeps this task from running (a stalled /hang would be aborted
        // by the low-speed limit after 10 s, and /huge by a short timeout, taking its file with it).
        var requests = [harness.request("/huge"), harness.request("/huge"), harness.request("/huge")]
        for index in requests.indices {
            requests[index].maxBytes = 100_000_000_000
            requests[index].timeout = .seconds(600)
        }
        let started = AsyncStream<FetchResult>.makeStream()
        for request in requests {
            harness.engine.submit(request) { started.continuation.yield($0) }
        }
        // Wait until the first transfer has written into its file before cancelling.
        while !harness.exists(requests[0].destination) {
            try await Task.sleep(for: .milliseconds(20))
        }

        harness.engine.cancelAll()

        var results: [FetchResult] = []
        for await result in started.stream {
            results.append(result)
            if results.count == requests.count { break }
        }
        #expect(results.allSatisfy { $0.error == .cancelled })
        #expect(requests.allSatisfy { !harness.exists($0.destination) })
        #expect(await harness.engine.fetch(harness.request("/ok/after")).response?.kind == .ok)
    }

    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        let request = harness.request("/hang")

        let engine = harness.engine
        let task = Task { await engine.fetch(request) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let result = await task.value

        #expect(result.error == .cancelled)
        #expect(!harness.exists(request.destination))
    }

    @Test func afterShutdownRequestsFailAsStopped() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        harness.engine.shutdown()
        let request = harness.request("/ok/late")

        let result = await harness.engine.fetch(request)

        #expect(result.error == .engineStopped)
        #expect(!harness.exists(request.destination))
    }

    @Test func aMissingDestinationFolderIsReported() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }
        var request = harness.request("/ok/a")
        request.destination = harness.folder.file("missing/a.part").path

        let result = await harness.engine.fetch(request)

        #expect(result.error?.reason == "destination")
    }

    @Test func eventsFollowEachTransfer() async throws {
        let harness = try FetchHarness()
        defer { harness.close() }

        let result = await harness.engine.fetch(harness.request("/etag/e"))
        harness.engine.shutdown()

        let kinds = harness.events.all.map { event -> String in
            switch event {
            case .started(let id, _, let attempt): "started \(id == result.id) \(attempt)"
            case .response(_, let status, let headers, _): "response \(status) \(headers.etag ?? "-")"
            case .retrying: "retrying"
            case .finished(let finished): "finished \(finished.id == result.id)"
            }
        }
        #expect(kinds == ["started true 1", "response 200 \"e-v1\"", "finished true"])
    }
}
