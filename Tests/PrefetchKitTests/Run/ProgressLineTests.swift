import Testing
@testable import PrefetchKit

/// The live line's layout: never as wide as the terminal, fields given up in the documented order
/// as it narrows, the rates and the ETA from the recent window.
@Suite struct ProgressLineTests {
    /// Figures of real runs: a small one under way, a large one with failures, one finished.
    static let lines: [ProgressLine] = [
        ProgressLine(.init(done: 50, total: 200, failed: 3, bytes: 2 << 20, inFlight: 8),
                     rate: .init(urlsPerSecond: 5, bytesPerSecond: 204_800)),
        ProgressLine(.init(done: 1_234_567, total: 5_000_000, failed: 10_432, bytes: 91 << 30, inFlight: 1024),
                     rate: .init(urlsPerSecond: 2_317.46, bytesPerSecond: 187_000_000)),
        ProgressLine(.init(done: 307, total: 307, failed: 0, bytes: 1_382_484, inFlight: 0),
                     rate: .init(urlsPerSecond: 0, bytesPerSecond: 0)),
    ]

    @Test func theFullLineShowsEveryField() {
        let line = Self.lines[0].render(width: 200)
        #expect(line == "[" + String(repeating: "#", count: 7) + String(repeating: "-", count: 23) + "]"
            + "  50/200  25%  5.0 URL/s  200.0 KiB/s  8 in flight  3 failed  ETA 0:30")
    }

    @Test(arguments: 0..<lines.count)
    func everyWidthFromTenToTwoHundredFitsAndDropsFieldsInOrder(index: Int) {
        let progress = Self.lines[index]
        var shownBefore = Set<ProgressLine.Field>()
        var barBefore = 0
        for width in 10...200 {
            let line = progress.render(width: width)
            #expect(line.count <= width - 1, "width \(width): \(line.count) characters: \(line)")
            let shown = Set(ProgressLine.Field.allCases.filter { line.contains(progress.text($0)) })
            // What is gone is a prefix of the drop order, and done/total stays while it fits at all.
            let dropped = ProgressLine.dropOrder.filter { !shown.contains($0) }
            #expect(dropped == Array(ProgressLine.dropOrder.prefix(dropped.count)), "width \(width): \(line)")
            if progress.text(.count).count < width { #expect(shown.contains(.count), "width \(width): \(line)") }
            // A wider terminal never shows less, and the bar only grows.
            #expect(shownBefore.isSubset(of: shown), "width \(width): \(line)")
            let bar = line.hasPrefix("[") ? line.firstIndex(of: "]").map { line.distance(from: line.startIndex, to: $0) - 1 } ?? 0 : 0
            #expect(bar >= barBefore && (bar == 0 || bar >= 5) && bar <= 30, "width \(width): \(line)")
            if bar > 0 { #expect(shown.count == ProgressLine.Field.allCases.count, "the bar went before any field: \(line)") }
            shownBefore = shown
            barBefore = bar
        }
        #expect(barBefore == 30)
    }

    @Test func aNarrowLineKeepsTheCountAndTheFailures() {
        let line = Self.lines[1].render(width: 40)
        #expect(line == "1234567/5000000  10432 failed")
        #expect(Self.lines[1].render(width: 10) == "1234567/5")
    }

    @Test func theEtaFollowsTheRecentRate() {
        #expect(Self.lines[0].text(.eta) == "ETA 0:30")
        #expect(Self.lines[1].text(.eta) == "ETA 27:05")
        #expect(Self.lines[2].text(.eta) == "ETA 0:00")
        let stalled = ProgressLine(.init(done: 3, total: 9, failed: 0, bytes: 0), rate: .init(urlsPerSecond: 0, bytesPerSecond: 0))
        #expect(stalled.text(.eta) == "ETA --:--")
    }

    @Test func theWindowRatesTheLastFiveSeconds() {
        var window = ProgressWindow(span: 5, startedAt: 0)
        // 100 URLs a second for 10 s, then 10 a second for 6 s.
        for second in 1...10 { window.add(done: second * 100, bytes: Int64(second) * 1_000_000, at: Double(second)) }
        #expect(window.rate == .init(urlsPerSecond: 100, bytesPerSecond: 1_000_000))
        for second in 11...16 { window.add(done: 1000 + (second - 10) * 10, bytes: 10_000_000, at: Double(second)) }
        #expect(window.rate == .init(urlsPerSecond: 10, bytesPerSecond: 0))
        // Half a second in, the rate is of that half second.
        var young = ProgressWindow(span: 5, startedAt: 0)
        young.add(done: 20, bytes: 4096, at: 0.5)
        #expect(young.rate == .init(urlsPerSecond: 40, bytesPerSecond: 8192))
    }
}
