/// The live progress line, laid out for a terminal `width` columns wide: always shorter than the
/// width (a line as wide as the terminal wraps on some terminals), so a redraw never leaves a wrapped
/// piece behind.
///
/// The full line is `[#####-----]  1200/5000 24%  41.2 URL/s  2.1 MiB/s  8 in flight  3 failed  ETA 0:31`.
/// Narrower, the bar shrinks (to 5 cells), then goes, and stays gone; then the fields go in `dropOrder`: in flight,
/// bytes/s, URLs/s, percent, ETA, failed. What is left, `done/total`, is cut at the width.
/// Rates are over the recent window (`ProgressWindow`), the ETA from the URL rate.
package struct ProgressLine: Sendable {
    package enum Field: CaseIterable, Sendable {
        case count, percent, urlRate, byteRate, inFlight, failed, eta
    }

    /// The fields a narrowing line gives up, first to last; `count` is never dropped.
    package static let dropOrder: [Field] = [.inFlight, .byteRate, .urlRate, .percent, .eta, .failed]
    static let widestBar = 30
    static let narrowestBar = 5

    package let snapshot: ProgressDisplay.Snapshot
    package let rate: ProgressWindow.Rate

    package init(_ snapshot: ProgressDisplay.Snapshot, rate: ProgressWindow.Rate) {
        self.snapshot = snapshot
        self.rate = rate
    }

    /// The line for a terminal `width` columns wide: at most `width - 1` characters.
    package func render(width: Int) -> String {
        let room = max(0, width - 1)
        var fields = Field.allCases
        for field in [nil] + Self.dropOrder {
            if let field { fields.removeAll { $0 == field } }
            let text = fields.map(self.text).joined(separator: "  ")
            guard text.count <= room else { continue }
            let cells = min(Self.widestBar, room - text.count - 4)
            guard field == nil, cells >= Self.narrowestBar else { return text }
            return bar(cells) + "  " + text
        }
        return String(text(.count).prefix(room))
    }

    /// The text of one field.
    package func text(_ field: Field) -> String {
        switch field {
        case .count: return "\(snapshot.done)/\(snapshot.total)"
        case .percent: return "\(Int(fraction * 100))%"
        case .urlRate: return "\(Self.oneDecimal(rate.urlsPerSecond)) URL/s"
        case .byteRate: return "\(ByteFormat.human(Int64(rate.bytesPerSecond)))/s"
        case .inFlight: return "\(snapshot.inFlight) in flight"
        case .failed: return "\(snapshot.failed) failed"
        case .eta: return "ETA " + (eta.map(ByteFormat.clock) ?? "--:--")
        }
    }

    /// Seconds left at the recent URL rate; nil before any rate is known.
    var eta: Double? {
        guard rate.urlsPerSecond > 0 else { return snapshot.done >= snapshot.total && snapshot.total > 0 ? 0 : nil }
        return Double(max(0, snapshot.total - snapshot.done)) / rate.urlsPerSecond
    }

    private var fraction: Double {
        snapshot.total > 0 ? min(1, Double(snapshot.done) / Double(snapshot.total)) : 0
    }

    private func bar(_ cells: Int) -> String {
        let filled = Int(fraction * Double(cells))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "]"
    }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
