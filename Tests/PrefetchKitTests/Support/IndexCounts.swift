import Foundation
@testable import PrefetchKit

/// Counts read straight from a cache's index file with SQLite, apart from the code `stats` answers
/// from (its running totals and its queries): what the renderings are checked against.
struct IndexCounts {
    let entries: Int
    let bytes: Int64
    let formats: Int
    let sets: [String]
    let hosts: Int
    let runs: Int
    let failures: Int
    let failureReasons: Int
    let failureHosts: Int

    init(cache: String) throws {
        let database = try IndexDatabase(path: cache + "/index.sqlite", access: .readOnly)
        func number(_ sql: String) throws -> Int { Int(try database.text(sql) ?? "") ?? -1 }
        func lines(_ sql: String) throws -> [String] {
            (try database.text(sql) ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        entries = try number("SELECT count(*) FROM entries")
        bytes = Int64(try number("SELECT coalesce(sum(byte_size), 0) FROM entries"))
        formats = try number("SELECT count(DISTINCT coalesce(format, '')) FROM entries")
        sets = entries == 0 ? []
            : try lines("SELECT group_concat(name, char(10)) FROM (SELECT DISTINCT coalesce(set_name, '') AS name FROM entries)")
        let unknownHost = try number("SELECT count(*) FROM entries WHERE url IS NULL") > 0 ? 1 : 0
        hosts = Set(try lines("SELECT group_concat(url, char(10)) FROM entries WHERE url IS NOT NULL").compactMap(Self.host)).count
            + unknownHost
        runs = try number("SELECT count(*) FROM runs")
        failures = try number("SELECT count(*) FROM failures")
        failureReasons = try number("SELECT count(DISTINCT reason) FROM failures")
        failureHosts = Set(try lines("SELECT group_concat(url, char(10)) FROM failures").compactMap(Self.host)).count
    }

    /// A URL's host and port as Foundation parses it, lower case.
    static func host(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
        return host.lowercased() + (components.port.map { ":\($0)" } ?? "")
    }
}
