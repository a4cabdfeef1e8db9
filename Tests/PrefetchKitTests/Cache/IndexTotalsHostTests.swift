import Foundation
import Testing
@testable import PrefetchKit

/// The running totals' host worked out in Swift from each row's URL (`IndexTotals.hostBytes`,
/// `IndexTotalsChange.count`) is the host the SQL of the triggers and of the totals' rebuild
/// (`IndexTotals.host(of:)`) gives: otherwise a clean's or a store's counts would drift from them.
@Suite struct IndexTotalsHostTests {
    /// In this order, so that neighbours with one host (told apart by case only, too) take the
    /// same-as-the-last-row path.
    static let urls: [String?] = [
        "https://Example.COM/a", "https://example.com/b", "HTTPS://example.com", "https://example.com:8443/x",
        "http://user@Host.example/", "http://user@host.example/?", "no-scheme/path", "", nil, nil,
        "https://host.example?q=/a", "https://ünï.example/p", "https://ÄB.example/", "https://äb.example/",
        "a://b://c/d", "://x/y", "https://x.example", "https://x.example/", "file:///etc/passwd",
        "https://[::1]:80/x", "https://:/", "https://Z@/", "https://nul\u{0}after.example/", "https://a.example/\u{0}",
    ]

    @Test func theHostOfEveryURLIsTheHostSQLWorksOut() throws {
        let folder = try TemporaryDirectory()
        let database = try IndexDatabase(path: folder.file("hosts.sqlite").path)
        try database.execute("CREATE TABLE t(n INTEGER PRIMARY KEY, url TEXT)")
        let insert = try IndexStatement(database, "INSERT INTO t(n, url) VALUES(?, ?)")
        for (number, url) in Self.urls.enumerated() { try insert.run([.int(number), .text(url)]) }

        var bySQL: [String: Int64] = [:]
        let grouped = try IndexStatement(database, "SELECT \(IndexTotals.host(of: "url")), count(*) FROM t GROUP BY 1")
        while try grouped.step() { bySQL[grouped.text(0) ?? "NULL", default: 0] += grouped.int64(1) }

        // The columns `count` reads: size, frames, then every dimension's (the host's is the URL).
        let rows = try IndexStatement(database, "SELECT 1, 1, '', '', '', url, 0, 0 FROM t ORDER BY n")
        var change = IndexTotalsChange()
        while try rows.step() { change.count(rows, sizeColumn: 0, sign: 1) }
        var counted: [String: Int64] = [:]
        for (group, amount) in change.groups where group.dimension == IndexTotals.hostDimension {
            guard case .text(let host?) = group.value else { Issue.record("host \(group.value) is not text"); continue }
            counted[host, default: 0] += amount.entries
        }

        #expect(counted == bySQL)
        #expect(bySQL["example.com"] == 3 && bySQL["example.com:8443"] == 1 && bySQL[""] == 5, "\(bySQL)")
    }
}
