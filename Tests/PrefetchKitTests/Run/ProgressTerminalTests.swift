import Foundation
import Testing

/// The live progress line in a real terminal (a tmux pane 60 and 120 columns wide) while a paced run
/// goes on: it fits the pane, so every redraw replaces the last one and no wrapped piece stays behind.
@Suite(.timeLimit(.minutes(3)), .serialized)
struct ProgressTerminalTests {
    static let urls = 40

    @Test(arguments: [60, 120])
    func theLiveLineFitsThePaneAndLeavesNothingBehind(width: Int) throws {
        // Given a job of 40 URLs, two of them failing, paced at 10 requests a second (about 4 s)
        let harness = try RunHarness()
        let paths = (0..<Self.urls - 2).map { "/ok/\(width)-\($0)" } + ["/status/404", "/status/500"]
        let job = try harness.job(sets: [harness.set("images", paths, ["rate_limit: { requests_per_second: 10 }"])])

        // When it runs in a pane of that width, its progress shown as on any terminal
        let marker = "RUN-ENDED"
        let pane = try Tmux(width: width, height: 10,
                            command: "'\(Binary.url.path)' run '\(job)'; echo \(marker) $?; sleep 30", in: harness.folder)
        defer { pane.stop() }
        let captures = try pane.captures(until: "\(marker) 1")

        // Then every progress line seen, while it ran and after, is shorter than the pane, and there
        // is never more than one: a line that wrapped would leave its first row behind on each redraw
        let progress = try Regex("[0-9]+/\(Self.urls)")
        var seen = 0
        for lines in captures {
            let shown = lines.filter { $0.contains(progress) }
            #expect(shown.count <= 1, "\(lines)")
            for line in shown {
                #expect(line.count < width, "\(line.count) columns: \(line)")
            }
            seen += shown.count
        }
        #expect(seen > 3, "the progress line was seen in \(seen) of \(captures.count) captures")
        // And the last line drawn is the whole run's, with the failures, over the summary
        let last = try #require(captures.last)
        let final = try #require(last.first { $0.contains(progress) })
        #expect(final.contains("\(Self.urls)/\(Self.urls)"), "\(last)")
        #expect(final.contains("2 failed"), "\(last)")
        #expect(last.contains { $0.hasPrefix("prefetchd: job: \(Self.urls) requested") }, "\(last)")
        if width >= 120 {
            #expect(final.hasPrefix("[##"), "\(final)")
            #expect(final.contains("URL/s") && final.contains("in flight") && final.contains("ETA"), "\(final)")
        }
    }

    @Test func aResizeNarrowsTheLineAtTheNextRedraw() throws {
        // Given a paced run of 60 URLs (about 6 s) drawing its full line in a 120-column pane
        let harness = try RunHarness()
        let paths = (0..<60).map { "/ok/resize-\($0)" }
        let job = try harness.job(sets: [harness.set("images", paths, ["rate_limit: { requests_per_second: 10 }"])])
        let marker = "RUN-ENDED"
        let pane = try Tmux(width: 120, height: 10,
                            command: "'\(Binary.url.path)' run '\(job)'; echo \(marker) $?; sleep 30", in: harness.folder)
        defer { pane.stop() }
        let progress = try Regex("[0-9]+/60")
        Thread.sleep(forTimeInterval: 2)
        let before = try #require(try pane.capture().first { $0.contains(progress) })
        #expect(before.hasPrefix("[") && before.count > 60, "\(before)")

        // When the pane is made 50 columns wide while it runs
        try pane.resize(width: 50)
        Thread.sleep(forTimeInterval: 0.5)
        let captures = try pane.captures(until: "\(marker) 0")

        // Then the line drawn now (the last one) fits the 50 columns, the bar gone. (The pane re-flowed
        // the line drawn before the resize onto two rows; the redraw replaces the lower one only.)
        for lines in captures {
            let line = try #require(lines.last { $0.contains(progress) }, "\(lines)")
            #expect(line.count < 50 && !line.hasPrefix("["), "\(line.count) columns: \(line)")
        }
        #expect(captures.last?.contains { $0.contains("60/60") } == true, "\(captures.last ?? [])")
    }
}
