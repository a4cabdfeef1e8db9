import Foundation

/// `--format html`: one self-contained page (inline CSS and SVG, no script, no external asset, and a
/// content security policy that would refuse one): the
/// size against the cap, the breakdowns by format, set and host, the age histograms, the run history,
/// the failure ledger, the largest entries and the last clean. An empty section says "(none)", as the
/// text format does; a long name is cut with an ellipsis and shown whole in its tooltip.
enum StatsHTML {
    /// Groups drawn per breakdown; the rest are summed in a line below the chart.
    static let shownGroups = 20

    static func render(_ stats: CacheStats) -> String {
        let title = HTMLText.escape(stats.cache)
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <title>prefetchd cache: \(title)</title>
            <style>\(StatsHTMLStyle.css)</style></head><body>
            <header><h1>prefetchd cache</h1><p class="path" title="\(title)">\(HTMLText.cut(stats.cache, 120))</p>
            <p class="sub">\(stats.layout.rawValue) layout · generated \(StatsSpelling.iso(stats.generated) ?? "")</p></header>
            \(overview(stats))
            <div class="grid">
            \(section("By format", groups("by-format", stats.byFormat)))
            \(section("By set", groups("by-set", stats.bySet)))
            \(section("By host", groups("by-host", stats.byHost)))
            \(section("Variants", variants(stats)))
            \(section("Age by last access", ages("age-by-access", stats.accessAges)))
            \(section("Age by first fetch", ages("age-by-fetch", stats.fetchAges)))
            </div>
            \(section("Run history", StatsHTMLRuns.history(stats.runs), wide: true))
            <div class="grid">
            \(section("Failure ledger by reason", counts("failures-by-reason", stats.failures)))
            \(section("Failure ledger by host", counts("failures-by-host", stats.failuresByHost)))
            </div>
            \(section("Largest entries", largest(stats.largest), wide: true))
            \(section("Last clean", lastClean(stats.lastClean), wide: true))
            </body></html>

            """
    }

    /// The dial and the headline figures; past the cap, a warning says by how much.
    private static func overview(_ stats: CacheStats) -> String {
        let gauge = SVGChart.gauge(bytes: stats.bytes, cap: stats.maxSize)
        let capLine = stats.maxSize > 0
            ? "\(ByteFormat.human(stats.bytes)) of \(ByteFormat.human(stats.maxSize)) max_size"
            : "\(ByteFormat.human(stats.bytes)); no max_size"
        let warning = gauge.state == "over"
            ? "<p class=\"warning\" role=\"alert\">Over the cap: \(StatsText.percent(stats.bytes, of: stats.maxSize)) of max_size, "
                + "\(ByteFormat.human(stats.bytes - stats.maxSize)) above it. The next clean trims it.</p>"
            : ""
        let facts: [(String, String)] = [
            ("entries", HTMLText.grouped(stats.entries)),
            ("bytes", "\(ByteFormat.human(stats.bytes)) of file data"),
            ("variants", "\(HTMLText.grouped(stats.variants.entries)) of the entries, \(ByteFormat.human(stats.variants.bytes))"),
            ("oldest", StatsSpelling.iso(stats.oldest) ?? "-"), ("newest", StatsSpelling.iso(stats.newest) ?? "-"),
            ("least recently used", StatsSpelling.iso(stats.leastRecentlyUsed) ?? "-"),
            ("limits", stats.limits.summary),
        ]
        return """
            <div class="overview"><section class="card gauge \(gauge.state)"><h2>Size against the cap</h2>\(gauge.svg)
            <p class="cap">\(capLine)</p>\(warning)</section>
            <section class="card"><h2>Summary</h2><dl>\(facts.map { "<dt>\($0.0)</dt><dd>\(HTMLText.escape($0.1))</dd>" }.joined())</dl>
            </section></div>
            """
    }

    private static func section(_ title: String, _ body: String, wide: Bool = false) -> String {
        "<section class=\"card\(wide ? " wide" : "")\"><h2>\(title)</h2>\n\(body)\n</section>"
    }

    static let none = "<p class=\"none\">(none)</p>"

    /// Entries and bytes of each group, the first `shownGroups` drawn and the rest summed.
    private static func groups(_ id: String, _ groups: [CacheGroupTotal]) -> String {
        guard !groups.isEmpty else { return none }
        let marks = groups.prefix(shownGroups).map { group in
            let figures = "\(entries(group.entries)), \(ByteFormat.human(group.bytes))"
            return SVGChart.Mark(label: group.name, values: [Double(group.entries), Double(group.bytes)],
                                 shown: figures, tip: "\(group.name): \(figures)")
        }
        return SVGChart.bars(id, Array(marks), series: ["entries", "bytes"]) + legend(["entries", "bytes"]) + rest(groups)
    }

    /// The line under a breakdown cut at `shownGroups`.
    private static func rest(_ groups: [CacheGroupTotal]) -> String {
        let left = groups.dropFirst(shownGroups)
        guard !left.isEmpty else { return "" }
        return "<p class=\"more\">and \(counted(left.count, "more group")): "
            + "\(entries(left.reduce(0) { $0 + $1.entries })), "
            + "\(ByteFormat.human(left.reduce(0) { $0 + $1.bytes }))</p>"
    }

    /// Ledger rows counted by a key.
    private static func counts(_ id: String, _ groups: [CacheGroupTotal]) -> String {
        guard !groups.isEmpty else { return none }
        let marks = groups.prefix(shownGroups).map { group in
            SVGChart.Mark(label: group.name, values: [Double(group.entries)], shown: HTMLText.grouped(group.entries),
                          tip: "\(group.name): \(counted(group.entries, "URL"))")
        }
        return SVGChart.bars(id, Array(marks), series: ["failed"]) + rest(groups)
    }

    private static func variants(_ stats: CacheStats) -> String {
        guard stats.variants.entries > 0 else { return none }
        let originals = stats.entries - stats.variants.entries
        return """
            <p>\(counted(stats.variants.entries, "variant")) (\(ByteFormat.human(stats.variants.bytes))), counted apart from \
            \(counted(originals, "original")) (\(ByteFormat.human(stats.bytes - stats.variants.bytes))).</p>
            """
    }

    private static func ages(_ id: String, _ buckets: [CacheStats.AgeBucket]) -> String {
        guard buckets.contains(where: { $0.entries > 0 }) else { return none }
        let marks = buckets.map { bucket in
            let figures = "\(entries(bucket.entries)), \(ByteFormat.human(bucket.bytes))"
            return SVGChart.Mark(label: bucket.label, values: [Double(bucket.entries)], shown: HTMLText.grouped(bucket.entries),
                                 tip: "\(bucket.label): \(figures)")
        }
        return SVGChart.columns(id, marks, series: ["entries"], columnWidth: 88)
    }

    private static func largest(_ entries: [CacheEntry]) -> String {
        guard !entries.isEmpty else { return none }
        let rows = entries.map { entry in
            let name = entry.url ?? entry.relativePath
            return "<tr><td class=\"n\">\(ByteFormat.human(entry.size))</td><td>\(entry.format?.rawValue ?? "-")</td>"
                + "<td class=\"name\" title=\"\(HTMLText.escape(name))\">\(HTMLText.escape(name))</td></tr>"
        }
        return "<table><tr><th>size</th><th>format</th><th>URL or path</th></tr>\(rows.joined())</table>"
    }

    private static func lastClean(_ clean: CleanRecord?) -> String {
        guard let clean else { return none }
        let facts = [
            ("finished", StatsSpelling.iso(clean.finished) ?? ""), ("duration", StatsSpelling.seconds(clean.duration)),
            ("removed", "\(entries(clean.removedEntries)), \(ByteFormat.human(clean.freedBytes))"),
            ("expired", HTMLText.grouped(clean.expiredEntries)), ("trimmed", HTMLText.grouped(clean.trimmedEntries)),
            ("cache", "\(ByteFormat.human(clean.bytesBefore)) → \(ByteFormat.human(clean.bytesAfter))"),
        ]
        return "<dl id=\"last-clean\">\(facts.map { "<dt>\($0.0)</dt><dd>\(HTMLText.escape($0.1))</dd>" }.joined())</dl>"
    }

    /// "1 entry", "12,500 entries".
    private static func entries(_ count: Int) -> String {
        "\(HTMLText.grouped(count)) \(count == 1 ? "entry" : "entries")"
    }

    /// Swatches naming a chart's series.
    static func legend(_ series: [String]) -> String {
        "<p class=\"legend\">" + series.map { "<span class=\"swatch \($0)\"></span>\($0)" }.joined(separator: " ") + "</p>"
    }
}
