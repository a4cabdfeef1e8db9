import Foundation
import Testing

/// The built binary against bodies in a content coding and digest headers, where what matters is seen
/// from outside: the peak memory of a run fed a gzip bomb, and the warning for a malformed digest.
@Suite(.timeLimit(.minutes(3)))
struct RunEncodedBodyTests {
    /// 4 GiB of zeros gzipped (about 4 MB on the wire) against a max_bytes of 8 MiB: the run fails the
    /// URL as too_large, and its peak resident memory stays far below the body's size.
    @Test func aGzipBombIsCutWithSmallPeakMemory() throws {
        let server = try FixtureServer()
        let folder = try TemporaryDirectory()
        let bomb = server.url("/gzip-bomb/4096")
        try folder.write("job.yaml", """
            version: 1
            cache: { path: cache }
            defaults: { retries: 0, max_bytes: 8MiB, timeout: 30s }
            sets: [{ name: a, urls: ["\(bomb)"] }]
            """)
        let report = folder.file("report.json").path
        // A Python parent of its own, whose only child is prefetchd, reads its peak RSS (KiB) with wait4.
        let measure = """
            import os, subprocess, sys
            child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", measure, Binary.url.path, "run", "job.yaml", "--report", report, "--progress", "never"]
        process.currentDirectoryURL = folder.url
        let outcome = try Binary.outcome(of: process)

        let fields = outcome.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(fields.count == 2, "\(outcome.stdout) \(outcome.stderr)")
        #expect(fields[0] == 1)
        let peakMiB = fields[1] / 1024
        #expect(peakMiB < 96, "peak RSS \(peakMiB) MiB")
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        let failures = written?["failures"] as? [[String: Any]]
        #expect(failures?.compactMap { $0["reason"] as? String } == ["too_large"], "\(String(describing: written))")
    }

    @Test func aMalformedDigestHeaderIsAWarningAndTheBodyIsStored() throws {
        let server = try FixtureServer()
        let folder = try TemporaryDirectory()
        let url = server.url("/digest/repr-sha256/malformed")
        try folder.write("job.yaml", "version: 1\ncache: { path: cache }\nsets: [{ name: a, urls: [\"\(url)\"] }]\n")

        let outcome = try Binary.run(["run", "job.yaml", "--progress", "never"], in: folder.url)

        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("prefetchd: \(url) [a]: ignored the Repr-Digest header's sha256 value: "
                                        + "it is not the base64 of 32 bytes\n"), "\(outcome.stderr)")
        let path = try Binary.run(["path", url, "--cache", "cache"], in: folder.url)
        #expect(path.status == 0)
    }
}
