import Foundation

/// A fresh folder under the system's temporary directory for one test, removed when the value goes
/// away. The one temporary folder of the tests: job files, caches, fetched bodies and images all go
/// into one of these.
final class TemporaryDirectory {
    let url: URL

    /// Under `base` (a folder that exists), or the system's temporary directory.
    init(under base: String? = nil) throws {
        url = (base.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent("prefetchd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    var path: String { url.path }

    /// `name` (which may hold folders) inside this one; nothing is created.
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `text` to `name`, making the folders it names, and returns where.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        try write(name, Data(text.utf8))
    }

    /// Writes `data` to `name`, making the folders it names, and returns where.
    @discardableResult
    func write(_ name: String, _ data: Data) throws -> URL {
        let target = file(name)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: target, options: .atomic)
        return target
    }

    /// Runs `body` with the path of a fresh folder, removed when it returns (a cache test opens its
    /// cache right there).
    static func withPath<Result>(_ body: (String) throws -> Result) throws -> Result {
        let folder = try TemporaryDirectory()
        return try withExtendedLifetime(folder) { try body(folder.path) }
    }
}
