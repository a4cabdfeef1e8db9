import Foundation
import Testing

/// Loads a stats page in Debian's chromium, headless, through Tests/Fixtures/stats_page.py, and hands
/// back what the browser made of it. Without chromium (which scripts/test installs) the test fails.
enum HeadlessChromium {
    struct Page: Decodable {
        struct Chart: Decodable {
            var marks: Int
            var names: [String]
            var state: String?
        }

        struct Section: Decodable {
            var title: String
            var charts: [String]
            var none: Bool
        }

        var console: [String]
        var charts: [String: Chart]
        var sections: [Section]
        var loads: [String]
    }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/stats_page.py")

    static let chromium = ["/usr/bin/chromium", "/bin/chromium"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The page at `path` as chromium read it; with `screenshot`, a 1280-pixel-wide picture of it there.
    static func load(_ path: String, screenshot: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> Page {
        let browser = try #require(chromium, "chromium is not installed (Debian package chromium; scripts/test installs it)",
                                   sourceLocation: sourceLocation)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script.path, browser, path] + (screenshot.map { [$0] } ?? [])
        let outcome = try Binary.outcome(of: process)
        try #require(outcome.status == 0, "stats_page.py failed: \(outcome.stderr)", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Page.self, from: Data(outcome.stdout.utf8))
    }
}
