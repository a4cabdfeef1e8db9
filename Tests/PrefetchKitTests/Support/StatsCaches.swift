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
            cache: { path: "\(path)", max_size: 300 }
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
        try run(["run", job], allowing: [1])
        return path
    }

    /// 100,000 entries: the first 10,000 stored by `cache-filler` (the real store path: files and rows),
    /// the other 90,000 rows of the same shape (8 hosts, 5 sets, JPEG, 204 to 2,203 bytes) written
    /// straight into the index without files (each at its path's row id), its totals then recomputed by the index's own code (as
    /// `fsck --repair` does), so the 100,000 are made in seconds: stats reads only the index. The clocks
    /// are then spread over 120 days, and three real runs on top give the run history and the ledger.
    static func large(in folder: TemporaryDirectory) throws -> String {
        let path = folder.path + "/large"
        let stored = 10_000
        let filler = Process()
        filler.executableURL = try Binary.executable("cache-filler")
        filler.arguments = [path, String(stored)]
        let filled = try Binary.outcome(of: filler)
        try #require(filled.status == 0, "cache-filler: \(filled.stderr)")
        let cache = try DiskCache.open(at: path, layout: .native)
        let now = Date().timeIntervalSince1970
        try cache.index.withConnection { connection throws(CacheError) in
            try connection.write(
                """
                INSERT INTO entries(id, url, cache_key, set_name, relative_path, byte_size, format, fetched_at, modified_at, accessed_at)
                SELECT path_id('rows/' || i || '.jpg'), url, url, 'set' || (i % 5), 'rows/' || i || '.jpg', 204 + (i * 7919) % 2000, 'jpeg', ?, ?, ?
                FROM (WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
                      SELECT i, 'https://img' || (i % 8) || '.example.com/catalog/' || i || '.jpg' AS url FROM n)
                """, [.real(now), .real(now), .real(now), .int(stored)])
        }
        try cache.index.recomputeTotals()
        try cache.index.withConnection { connection throws(CacheError) in
            try connection.write(
                "UPDATE entries SET fetched_at = ? - (id / 4 % 120) * 86400 - 7200, accessed_at = ? - (id / 4 % 45) * 86400 - (id / 4 % 24) * 3600",
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
        for _ in 0..<3 { try run(["run", job], allowing: [1]) }
        return path
    }

    /// Runs prefetchd, expecting exit 0 or one of `allowing`.
    private static func run(_ arguments: [String], allowing: Set<Int32>) throws {
        let outcome = try Binary.run(arguments)
        #expect(outcome.status == 0 || allowing.contains(outcome.status), "prefetchd \(arguments): \(outcome.stderr)")
    }
}
