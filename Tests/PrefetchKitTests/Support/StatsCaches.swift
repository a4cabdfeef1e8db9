import Foundation
import Testing
@testable import PrefetchKit

/// The three caches the stats renderings are looked at with in real tools (chromium, promtool, the
/// dashboard's queries): an empty one, a small one made by real runs and a clean, and one of 100,000
/// entries. Each is made under a folder the caller owns, and its path is returned.
enum StatsCaches {
    /// A set name holding markup and control characters, which every rendering must escape.
    static let hostileSet = "catalog <script>alert(1)</script>\u{1}\u{7F}"
    /// A set name longer than any chart's label.
    static let longSet = "thumbnails-for-the-spring-catalogue-of-every-region-and-every-language"

    static func empty(in folder: TemporaryDirectory) throws -> String {
        let path = folder.path + "/empty"
        _ = try DiskCache.open(at: path, layout: .native)
        return path
    }

    /// Two runs of a job against the fixture server (images with ETags, a 404, a body that is no image),
    /// the second revalidating, with a clean between them; its `max_size` is below what the second run
    /// leaves, so the cache ends over its cap.
    static func small(in folder: TemporaryDirectory) throws -> String {
        let server = try FixtureServer()
        defer { server.stop() }
        let path = folder.path + "/small"
        let images = (0..<6).map { server.url("/image/shot\($0)") }
        for (number, name) in ["shot0", "shot1", "shot2"].enumerated() {
            _ = try server.get("/set-width/\(name)/\(40 + number * 30)")
        }
        let job = try folder.write("small.yaml", """
            version: 1
            name: catalog
            cache: { path: "\(path)", max_size: 1500 }
            network: { allow_private: true }
            defaults: { retries: 0, timeout: 5s }
            sets:
              - name: "\(hostileSet.replacingOccurrences(of: "\u{1}", with: "\\x01").replacingOccurrences(of: "\u{7F}", with: "\\x7F"))"
                urls: ["\(images[0])", "\(images[1])", "\(images[2])", "\(server.url("/status/404"))"]
              - name: \(longSet)
                urls: ["\(images[3])", "\(images[4])", "\(images[5])", "\(server.url("/broken-png"))", "\(server.url("/ok/a"))"]
            """).path
        try run(["run", job], allowing: [1])
        try run(["clean", "--cache", path], allowing: [])
        try run(["run", job, "--retry-failed"], allowing: [1])
        return path
    }

    /// 100,000 entries stored by two `cache-filler`s side by side (the real store path), their clocks
    /// then spread over 120 days, and one real run on top for the run history and the ledger.
    static func large(in folder: TemporaryDirectory) throws -> String {
        let path = folder.path + "/large"
        let filler = try Binary.executable("cache-filler")
        try fill(filler, path, count: 1, first: 0)
        let half = 50_000
        let fillers = try [(1, half - 1), (half, half)].map { first, count in try start(filler, path, count: count, first: first) }
        for process in fillers {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "cache-filler failed")
        }
        let cache = try DiskCache.open(at: path, layout: .native)
        let now = Date().timeIntervalSince1970
        try cache.index.withConnection { connection throws(CacheError) in
            try connection.write(
                "UPDATE entries SET fetched_at = ? - (id % 120) * 86400 - 7200, accessed_at = ? - (id % 45) * 86400 - (id % 24) * 3600",
                [.real(now), .real(now)])
        }
        try cache.flush()
        let server = try FixtureServer()
        defer { server.stop() }
        let job = try folder.write("large.yaml", """
            version: 1
            name: nightly
            cache: { path: "\(path)" }
            network: { allow_private: true }
            defaults: { retries: 0, timeout: 5s }
            sets:
              - name: set0
                urls: ["\(server.url("/ok/a"))", "\(server.url("/status/404"))", "\(server.url("/status/410"))"]
            """).path
        try run(["run", job], allowing: [1])
        return path
    }

    /// Runs prefetchd, expecting exit 0 or one of `allowing`.
    private static func run(_ arguments: [String], allowing: Set<Int32>) throws {
        let outcome = try Binary.run(arguments)
        #expect(outcome.status == 0 || allowing.contains(outcome.status), "prefetchd \(arguments): \(outcome.stderr)")
    }

    private static func start(_ filler: URL, _ path: String, count: Int, first: Int) throws -> Process {
        let process = Process()
        process.executableURL = filler
        process.arguments = [path, String(count), String(first)]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    private static func fill(_ filler: URL, _ path: String, count: Int, first: Int) throws {
        let process = try start(filler, path, count: count, first: first)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "cache-filler failed")
    }
}
