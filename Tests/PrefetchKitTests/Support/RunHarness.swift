import Foundation
import Testing
@testable import PrefetchKit

/// One run test's world: the misbehaving server, a fresh folder, job files in it whose cache is
/// `<folder>/cache`, in-process runs, and checks of what the cache holds afterwards.
final class RunHarness {
    let server: FixtureServer
    let folder: TemporaryDirectory
    /// The 1x1 PNG the server sends from /ok, /count, /ordered, /slow and /flaky.
    let png: Data

    var cachePath: String { folder.path + "/cache" }

    /// What every job file of the harness says under `defaults:` unless a test overrides it:
    /// no retries and short timeouts, so a failing case fails fast.
    static let baseDefaults = ["concurrency": "4", "per_host": "4", "timeout": "5s", "retries": "0"]

    init() throws {
        folder = try TemporaryDirectory()
        server = try FixtureServer()
        png = try server.get("/ok/reference").body
    }

    func url(_ path: String) -> String {
        server.url(path)
    }

    /// One entry of `sets:`: the fixture URLs of `paths` and option lines such as `priority: high`.
    func set(_ name: String, _ paths: [String], _ options: [String] = []) -> String {
        var lines = ["  - name: \(name)"]
        lines += options.map { "    " + $0 }
        lines.append("    urls:")
        lines += paths.map { "      - \"\(url($0))\"" }
        return lines.joined(separator: "\n")
    }

    /// Writes `<name>.yaml` with the harness's cache, its defaults (`defaults` overriding them) and `sets`.
    @discardableResult
    func job(_ name: String = "job", defaults: [String: String] = [:], sets: [String]) throws -> String {
        let merged = Self.baseDefaults.merging(defaults) { $1 }
        let text = """
            version: 1
            name: \(name)
            cache:
              path: "\(cachePath)"
            defaults:
            \(merged.keys.sorted().map { "  \($0): \(merged[$0]!)" }.joined(separator: "\n"))
            sets:
            \(sets.joined(separator: "\n"))

            """
        return try folder.write("\(name).yaml", text).path
    }

    /// Writes `job.yaml` with one set, `set` (the inside of its flow mapping, such as
    /// `name: s, validate: none, urls: [...]`), whose cache is at `cache` rather than the harness's own.
    func job(cache: String, set: String) throws -> String {
        try folder.write("job.yaml", """
            version: 1
            cache: { path: "\(cache)" }
            network: { allow_private: true }
            sets:
              - { \(set) }
            """).path
    }

    /// Runs job files in-process, quietly, with retry waits of milliseconds.
    @discardableResult
    func run(_ jobPaths: [String], _ adjust: (inout JobRunner.Options) -> Void = { _ in }) throws -> JobRunner.Result {
        var options = JobRunner.Options()
        options.log = RunLog(format: .text, verbosity: .quiet)
        options.settings.retryBaseDelay = .milliseconds(10)
        options.settings.retryMaxDelay = .milliseconds(50)
        adjust(&options)
        return try JobRunner(options: options).run(jobPaths: jobPaths)
    }

    /// Where the native layout stores `key`.
    func finalPath(forKey key: String) -> String {
        cachePath + "/" + CacheFileNaming.relativePath(forKey: key, layout: .native)
    }

    /// Every `*.part` file anywhere in the cache.
    func partFiles() -> [String] {
        regularFiles(under: cachePath).filter { $0.hasSuffix(".part") }
    }

    /// The cache's own record of `key` in the failure ledger.
    func ledger(forKey key: String) throws -> FailureRecord? {
        try DiskCache.open(at: cachePath, layout: .native).index.failure(forKey: key)
    }

    /// Checks the cache holds exactly `expected` (key -> body): each body under its final name,
    /// recorded in the index, decoding as an image; nothing for the keys of `missing`; no partial
    /// file anywhere, and no file under a final name that the index does not list.
    func expectCache(holds expected: [String: Data], without missing: [String] = [],
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(partFiles().isEmpty, "partial files left: \(partFiles())", sourceLocation: sourceLocation)
        let cache = try DiskCache.open(at: cachePath, layout: .native)
        let entries = try cache.index.allEntries()
        #expect(Set(entries.map { $0.key ?? "(no key)" }) == Set(expected.keys), sourceLocation: sourceLocation)
        let validator = ImageValidator(level: .decode, formats: Set(ImageFormat.allCases),
                                       maxPixels: 89_478_485, maxBytes: 20 << 20)
        for entry in entries {
            let key = entry.key ?? "(no key)"
            #expect(entry.path == finalPath(forKey: key), sourceLocation: sourceLocation)
            let body = FileManager.default.contents(atPath: entry.path)
            #expect(body != nil && body == expected[key], "\(key) holds other bytes", sourceLocation: sourceLocation)
            #expect(throws: Never.self, "\(key) does not decode", sourceLocation: sourceLocation) {
                _ = try validator.validate(fileAt: entry.path)
            }
        }
        for key in missing {
            #expect(!FileManager.default.fileExists(atPath: finalPath(forKey: key)),
                    "a file exists under the final name of \(key)", sourceLocation: sourceLocation)
            #expect(try cache.lookup(key: key) == nil, sourceLocation: sourceLocation)
        }
        let stored = regularFiles(under: cachePath).filter {
            let relative = $0.dropFirst(cachePath.count + 1)
            return relative.contains("/") && !relative.hasPrefix("tmp/")
        }
        #expect(Set(stored) == Set(entries.map(\.path)), "files outside the index", sourceLocation: sourceLocation)
    }

    private func regularFiles(under root: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(path)
            }
        }
        return files
    }
}

extension RunTotals {
    /// Totals spelled out in one call, zero unless given.
    static func expected(requested: Int, unique: Int, fetched: Int = 0, cached: Int = 0, revalidated: Int = 0,
                         failed: Int = 0, ledgered: Int = 0, skipped: Int = 0, bytes: Int = 0) -> RunTotals {
        var totals = RunTotals()
        totals.requested = requested
        totals.unique = unique
        totals.fetched = fetched
        totals.cached = cached
        totals.revalidated = revalidated
        totals.failed = failed
        totals.ledgered = ledgered
        totals.skipped = skipped
        totals.bytes = Int64(bytes)
        return totals
    }
}

/// The report a run wrote to `path`.
func readReport(_ path: String) throws -> RunReport {
    try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
}
