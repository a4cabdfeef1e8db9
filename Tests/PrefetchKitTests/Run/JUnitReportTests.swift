import Foundation
import Testing
@testable import PrefetchKit

/// The JUnit file as CI tools read it: XML 1.0 whatever the names, URLs and messages hold, valid
/// against the published JUnit schema, with a time on every case and the suite's timestamp and host.
@Suite(.timeLimit(.minutes(1)))
struct JUnitReportTests {
    static let suite = JUnitReport.Suite(job: "job \u{1}<&>\"'", started: Date(timeIntervalSince1970: 1_764_597_600),
                                         durationSeconds: 1.25, hostname: "ci-7")

    @Test func markupAndCharactersXMLForbidsAreEscapedOrReplaced() {
        #expect(XMLText.attribute("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&apos;f")
        // control characters other than tab, line feed and carriage return, and U+FFFE / U+FFFF
        #expect(XMLText.content("\u{0}\u{1}\u{8}\u{B}\u{C}\u{E}\u{1B}\u{1F}\u{FFFE}\u{FFFF}") == String(repeating: "\u{FFFD}", count: 10))
        #expect(XMLText.content("tab\tline\nreturn\r") == "tab\tline\nreturn&#13;")
        #expect(XMLText.attribute("tab\tline\nreturn\r") == "tab&#9;line&#10;return&#13;")
        // a quote with a combining mark is one Swift Character, and still escaped
        #expect(XMLText.attribute("\"\u{301}") == "&quot;\u{301}")
        #expect(XMLText.content("é 日本 🙂 \u{7F}") == "é 日本 🙂 \u{7F}")
    }

    @Test func aSetNameWithControlCharactersGivesValidJUnit() throws {
        var nasty = SetTally(name: "thumbs\u{1}\u{1B}[31m\u{B}\"\u{301} & <b>\u{FFFE}\ttab\r\n")
        nasty.requested = 2
        let start = ContinuousClock.now
        nasty.noteAsked(at: start)
        nasty.apply(.failed(RunFailure(url: "https://h.test/a?x=1&y=<2>\u{0}", set: nasty.name, reason: "http_404",
                                       httpStatus: 404, attempts: 1, message: "gone\u{7}")), at: start + .milliseconds(250))
        nasty.apply(.succeeded, at: start + .milliseconds(1500))
        let folder = try TemporaryDirectory()
        let file = try folder.write("junit.xml", JUnitReport.xml(Self.suite, sets: [("job", nasty)], problems: ["cut\u{2} short"]))

        try JUnitSchema.expectValid(file.path)
        let xml = try String(contentsOf: file, encoding: .utf8)
        #expect(xml.contains(#"name="thumbs\#u{FFFD}\#u{FFFD}[31m\#u{FFFD}&quot;\#u{301} &amp; &lt;b&gt;\#u{FFFD}&#9;tab&#13;&#10;" time="1.5">"#), "\(xml)")
        #expect(xml.contains("https://h.test/a?x=1&amp;y=&lt;2&gt;\u{FFFD}: http_404 (HTTP 404)"), "\(xml)")
        #expect(xml.contains("<system-out>2 URLs: 1 ok, 1 failed, 0 ledgered, 0 skipped</system-out>"), "\(xml)")
        #expect(xml.contains(#"<testsuite name="job \#u{FFFD}&lt;&amp;&gt;&quot;&apos;""#), "\(xml)")
        #expect(xml.contains(#"time="1.25" timestamp="2025-12-01T14:00:00" hostname="ci-7">"#), "\(xml)")
        #expect(xml.contains(#"<testcase classname="job \#u{FFFD}&lt;&amp;&gt;&quot;&apos;" name="run" time="1.25">"#), "\(xml)")
        #expect(xml.contains("cut\u{FFFD} short</error>"))
    }

    @Test func ledgeredURLsFailTheirSetsCase() throws {
        var set = SetTally(name: "catalog")
        set.requested = 3
        set.apply(.succeeded)
        set.apply(.ledgered(RunFailure(url: "https://h.test/gone", set: "catalog", reason: "http_410", httpStatus: 410, attempts: 0,
                                       message: "", ledgered: true, nextRetry: "2026-12-02T14:00:00Z")))
        set.apply(.skipped)
        let folder = try TemporaryDirectory()
        let file = try folder.write("junit.xml", JUnitReport.xml(Self.suite, sets: [("job", set)]))

        try JUnitSchema.expectValid(file.path)
        let xml = try String(contentsOf: file, encoding: .utf8)
        #expect(xml.contains(#"failures="1" errors="0" skipped="0""#), "\(xml)")
        #expect(xml.contains(#"<failure message="1 of 3 URLs failed (1 ledgered: failed in an earlier run, not due again yet)" type="prefetch">"#
                             + "https://h.test/gone: http_410 (HTTP 410), ledgered until 2026-12-02T14:00:00Z</failure>"), "\(xml)")
        #expect(xml.contains("<system-out>3 URLs: 1 ok, 0 failed, 1 ledgered, 1 skipped</system-out>"), "\(xml)")
    }
}
