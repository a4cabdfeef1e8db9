import Foundation
import Testing
@testable import PrefetchKit

/// deploy/grafana/prefetchd-dashboard.json against the real export: every panel queries the dashboard's
/// data source, every PromQL expression parses (`promtool check rules`) and names only metrics that
/// `prefetchd stats --format prometheus` writes for a cache of real runs and a clean.
@Suite(.timeLimit(.minutes(3))) struct GrafanaDashboardTests {
    static let dashboard = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/grafana/prefetchd-dashboard.json")

    /// The panels, those inside rows too.
    private func panels(_ list: [[String: Any]]) -> [[String: Any]] {
        list.flatMap { [$0] + panels($0["panels"] as? [[String: Any]] ?? []) }
    }

    @Test func everyQueryNamesMetricsTheExportHas() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.dashboard)) as? [String: Any])
        let shown = panels(object["panels"] as? [[String: Any]] ?? []).filter { $0["type"] as? String != "row" }
        let titles = shown.compactMap { $0["title"] as? String }
        for needed in ["Size against the cap", "Run outcomes", "Failures by reason", "Clean activity", "Entries by format"] {
            #expect(titles.contains(needed), "no panel \(needed) in \(titles)")
        }
        var expressions: [String] = []
        for panel in shown {
            let title = panel["title"] as? String ?? "?"
            #expect((panel["datasource"] as? [String: Any])?["uid"] as? String == "${datasource}", "\(title)")
            let targets = panel["targets"] as? [[String: Any]] ?? []
            #expect(!targets.isEmpty, "\(title) has no query")
            expressions += targets.compactMap { $0["expr"] as? String }
        }
        #expect(expressions.count >= shown.count)
        let variables = (object["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        let variableQueries = variables.compactMap { $0["definition"] as? String }

        let folder = try TemporaryDirectory()
        let cache = try StatsCaches.small(in: folder)
        let export = try Binary.run(["stats", "--cache", cache, "--format", "prometheus"])
        try #require(export.status == 0, "\(export.stderr)")
        let written = PrometheusSamples(export.stdout).names
        let named = Set((expressions + variableQueries).flatMap { $0.matches(of: /prefetchd_[a-z0-9_]+/).map { String($0.output) } })
        #expect(named.count >= 15, "\(named)")
        for name in named.sorted() {
            #expect(written.contains(name), "the dashboard queries \(name), which the export does not write")
        }
        try expectParses(expressions, in: folder)
    }

    /// Each expression as a recording rule, for promtool's PromQL parser (Grafana's `$cache` stands
    /// inside a label matcher's string, which PromQL takes as it is).
    private func expectParses(_ expressions: [String], in folder: TemporaryDirectory) throws {
        let rules = expressions.enumerated().map { ["record": "dashboard:query_\($0.offset)", "expr": $0.element] }
        let file = ["groups": [["name": "dashboard", "rules": rules]]]
        // JSON is YAML: promtool reads it as a rules file (without `\/`, an escape YAML 1.1 lacks).
        let path = try folder.write("dashboard-rules.yaml", try JSONSerialization.data(withJSONObject: file, options: .withoutEscapingSlashes)).path
        let tool = try #require(Promtool.promtool, "promtool is not installed (Debian package prometheus; scripts/test installs it)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["check", "rules", path]
        let outcome = try Binary.outcome(of: process)
        #expect(outcome.status == 0, "promtool check rules: \(outcome.stdout)\(outcome.stderr)")
    }
}
