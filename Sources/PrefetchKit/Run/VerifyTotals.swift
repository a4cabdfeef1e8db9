/// What `verify` found in one job, or in all of them: as its line on standard error, as the JSON
/// log's `verified` event (one a job, with `job`), and as the `totals` of its `summary`.
package struct VerifyTotals: Sendable, Encodable, Equatable {
    /// URL occurrences of the jobs, as `check` counts them.
    package var urls = 0
    /// Distinct keys checked: `fresh + missing + stale` (a key missing a variant counts once, as missing).
    package var checked = 0
    package var fresh = 0
    package var missing = 0
    package var stale = 0

    package init() {}

    package init(_ result: Verifier.Result) {
        urls = result.urls
        checked = result.checked
        fresh = result.fresh
        missing = result.missing
        stale = result.stale
    }

    package static func + (lhs: VerifyTotals, rhs: VerifyTotals) -> VerifyTotals {
        var sum = lhs
        sum.urls += rhs.urls
        sum.checked += rhs.checked
        sum.fresh += rhs.fresh
        sum.missing += rhs.missing
        sum.stale += rhs.stale
        return sum
    }

    /// `4 URLs, 3 unique keys: 2 cached and fresh, 1 missing, 0 stale`: occurrences and keys as
    /// `check` says them; the rest count keys.
    package var line: String {
        "\(counted(urls, "URL")), \(counted(checked, "unique key")): \(fresh) cached and fresh, \(missing) missing, \(stale) stale"
    }

    /// `{"event":"verified","job":...,"checked":...,"fresh":...,"missing":...,"stale":...}`.
    package struct Event: Sendable, Encodable {
        let job: String
        let totals: VerifyTotals

        package init(job: String, _ totals: VerifyTotals) {
            self.job = job
            self.totals = totals
        }

        enum Key: String, CodingKey { case event, job }

        package func encode(to encoder: any Encoder) throws {
            try totals.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("verified", forKey: .event)
            try container.encode(job, forKey: .job)
        }
    }

    /// The `summary`'s own fields: the jobs and their totals.
    package struct Summary: Sendable, Encodable {
        let jobs: [String]
        let totals: VerifyTotals

        package init(jobs: [String], totals: VerifyTotals) {
            self.jobs = jobs
            self.totals = totals
        }
    }
}
