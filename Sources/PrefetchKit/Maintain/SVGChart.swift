import Foundation

/// The stats page's charts, drawn as inline SVG. Every chart is an `<svg data-chart="ID">` holding one
/// `data-mark` element per group, bucket or run it shows, each with its tooltip (`<title>`).
enum SVGChart {
    /// One group, bucket or run: its label (a column's may have a second line, `detail`), a value per
    /// series, the text drawn beside it and its tooltip (plain text: all are escaped here).
    struct Mark {
        var label: String
        var detail = ""
        var values: [Double]
        var shown: String
        var tip: String
    }

    /// What a chart's largest value is drawn against: itself, or 1 when nothing is above 0.
    private static func scale(_ values: [Double]) -> Double {
        let most = values.max() ?? 0
        return most > 0 ? most : 1
    }

    /// Horizontal bars, a row per mark with a bar per series, each series scaled to its own largest value.
    static func bars(_ id: String, _ marks: [Mark], series: [String]) -> String {
        let barHeight = 12
        let rowHeight = series.count * (barHeight + 2) + 8
        let most = series.indices.map { index in scale(marks.map { $0.values[index] }) }
        let rows = marks.enumerated().map { offset, mark in
            let top = offset * rowHeight + 4
            let drawn = series.indices.map { index in
                let width = max(mark.values[index] > 0 ? 1 : 0, Int(mark.values[index] / most[index] * 260))
                return "<rect class=\"\(series[index])\" x=\"180\" y=\"\(top + index * (barHeight + 2))\" width=\"\(width)\" height=\"\(barHeight)\"/>"
            }
            let middle = top + rowHeight / 2
            return """
                <g data-mark="\(offset)" data-name="\(HTMLText.escape(mark.label))"><title>\(HTMLText.escape(mark.tip))</title>\
                <text x="0" y="\(middle)">\(HTMLText.cut(mark.label, 26))</text>\(drawn.joined())\
                <text class="value" x="448" y="\(middle)">\(HTMLText.escape(mark.shown))</text></g>
                """
        }
        return svg(id, width: 620, height: marks.count * rowHeight + 8, rows)
    }

    /// Vertical columns, one per mark, its series stacked, scaled to the tallest; each labelled below.
    static func columns(_ id: String, _ marks: [Mark], series: [String], columnWidth: Int = 70) -> String {
        let plot = 150
        let most = scale(marks.map { $0.values.reduce(0, +) })
        let items = marks.enumerated().map { offset, mark in
            let left = 10 + offset * columnWidth
            var base = plot + 20
            let drawn = series.indices.map { index in
                let height = max(mark.values[index] > 0 ? 1 : 0, Int(mark.values[index] / most * Double(plot)))
                base -= height
                return "<rect class=\"\(series[index])\" x=\"\(left + 8)\" y=\"\(base)\" width=\"\(columnWidth - 16)\" height=\"\(height)\"/>"
            }
            let center = left + columnWidth / 2
            return """
                <g data-mark="\(offset)" data-name="\(HTMLText.escape(mark.label))"><title>\(HTMLText.escape(mark.tip))</title>\
                \(drawn.joined())<text class="value" x="\(center)" y="\(base - 4)" text-anchor="middle">\(HTMLText.escape(mark.shown))</text>\
                <text x="\(center)" y="\(plot + 36)" text-anchor="middle">\(HTMLText.cut(mark.label, columnWidth / 7))</text>\
                <text class="value" x="\(center)" y="\(plot + 52)" text-anchor="middle">\(HTMLText.cut(mark.detail, columnWidth / 7))</text></g>
                """
        }
        return svg(id, width: max(20 + marks.count * columnWidth, 200), height: plot + 60,
                   ["<line class=\"axis\" x1=\"4\" y1=\"\(plot + 20)\" x2=\"\(16 + marks.count * columnWidth)\" y2=\"\(plot + 20)\"/>"] + items)
    }

    /// The cache's bytes against its cap on a half-circle dial: `state` is `none` (no cap), `ok`, `near`
    /// (over 90 %) or `over` (past the cap, the dial full and a band past its end).
    static func gauge(bytes: Int64, cap: Int64) -> (svg: String, state: String) {
        let fraction = cap > 0 ? Double(bytes) / Double(cap) : 0
        let state = cap <= 0 ? "none" : fraction > 1 ? "over" : fraction > 0.9 ? "near" : "ok"
        let shown = cap > 0 ? StatsText.percent(bytes, of: cap) : "no cap"
        let value = min(fraction, 1) > 0 ? "<path class=\"dial-\(state)\" d=\"\(arc(from: 0, to: min(fraction, 1)))\"/>" : ""
        let tip = cap > 0 ? "\(ByteFormat.human(bytes)) of \(ByteFormat.human(cap)) (\(shown))" : "\(ByteFormat.human(bytes)), no max_size"
        let mark = """
            <g data-mark="0" data-name="size"><title>\(HTMLText.escape(tip))</title>\
            <path class="dial" d="\(arc(from: 0, to: 1))"/>\(value)\
            <text class="dial-value" x="130" y="118" text-anchor="middle">\(shown)</text></g>
            """
        return (svg("size-gauge", width: 260, height: 140, [mark], state: state), state)
    }

    /// A stroke along the dial from `start` to `end` (fractions of the half circle, left to right).
    private static func arc(from start: Double, to end: Double) -> String {
        func point(_ fraction: Double) -> String {
            let angle = Double.pi * (1 - fraction)
            return String(format: "%.2f %.2f", 130 + 100 * cos(angle), 125 - 100 * sin(angle))
        }
        return "M \(point(start)) A 100 100 0 0 1 \(point(end))"
    }

    private static func svg(_ id: String, width: Int, height: Int, _ items: [String], state: String? = nil) -> String {
        """
        <svg data-chart="\(id)" id="\(id)"\(state.map { " data-state=\"\($0)\"" } ?? "") xmlns="http://www.w3.org/2000/svg" \
        width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" role="img" aria-label="\(id)">
        \(items.joined(separator: "\n"))
        </svg>
        """
    }
}
