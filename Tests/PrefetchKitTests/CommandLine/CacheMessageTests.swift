import Foundation
import Testing

/// One wording and one exit status for a cache a command cannot use, whichever command meets it
/// (docs/MESSAGES.md): a folder with no cache, and a file where the cache folder should be.
@Suite(.timeLimit(.minutes(2)))
struct CacheMessageTests {
    static let url = "https://img.example.com/a.png"

    /// Each command that needs an existing cache, pointed at `cache` (a job file names it for verify; it is
    /// the source of the merge).
    static func commandLines(cache: String, job: String) -> [String: [String]] {
        [
            "path": ["path", url, "--cache", cache],
            "fsck": ["fsck", "--cache", cache],
            "stats": ["stats", "--cache", cache],
            "verify": ["verify", job, "--cache", cache],
            "clean": ["clean", "--cache", cache],
            "remove": ["remove", url, "--cache", cache],
            "export": ["export", "bundle", "--layout", "sdwebimage", "--cache", cache],
            "merge": ["merge", cache, "--into", "merged"],
        ]
    }

    static func job(in folder: TemporaryDirectory) throws -> String {
        try folder.write("job.yaml", "version: 1\nsets:\n  - name: s\n    urls: [\"\(url)\"]\n").path
    }

    @Test func aFolderWithoutACacheIsSaidOneWayWithExit3() throws {
        let folder = try TemporaryDirectory()
        let job = try Self.job(in: folder)
        let missing = folder.path + "/nowhere"
        for (command, arguments) in Self.commandLines(cache: missing, job: job) {
            let outcome = try Binary.run(arguments, in: folder.url)
            #expect(outcome.status == 3, "\(command): \(outcome.stderr)")
            #expect(outcome.unstampedStderr.hasPrefix("prefetchd \(command): no cache at \(missing)\n"), "\(command): \(outcome.stderr)")
            #expect(!FileManager.default.fileExists(atPath: missing), "\(command) made the folder")
        }
    }

    @Test func aFileGivenAsTheCacheIsSaidOneWayWithExit3() throws {
        let folder = try TemporaryDirectory()
        let job = try Self.job(in: folder)
        let file = try folder.write("afile", "x").path
        for (command, arguments) in Self.commandLines(cache: file, job: job) {
            let outcome = try Binary.run(arguments, in: folder.url)
            #expect(outcome.status == 3, "\(command): \(outcome.stderr)")
            #expect(outcome.unstampedStderr.hasPrefix("prefetchd \(command): is a file, not a cache folder: \(file)\n"),
                    "\(command): \(outcome.stderr)")
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "x")
    }
}
