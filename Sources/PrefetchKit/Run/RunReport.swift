import Foundation

/// The run report of DESIGN.md, written by `--report FILE.json`.
package struct RunReport: Sendable, Equatable, Codable {
    /// `PrefetchVersion.machineFormat` of the prefetchd that wrote it.
    package var formatVersion = PrefetchVersion.machineFormat
    package var job: String
    /// ISO 8601 in UTC with milliseconds (`Timestamp`).
    package var started: String
    package var durationSeconds: Double
    package var totals: RunTotals
    package var failures: [RunFailure]
    /// How the run ended: `completed`, `interrupted` (SIGINT), `terminated` (SIGTERM or SIGHUP), or `incomplete`
    /// when a URL source could not be read to its end.
    package var outcome: String
    /// Benign decoder warnings of the bodies stored, by kind (`png_trns_out_of_range`,
    /// `png_ancillary_crc`): the images were accepted, as browsers show them.
    package var warnings: [String: Int]
    /// Seconds during which the run's transfers waited on rate limits (`rate_limit`, and hosts slowed
    /// by 429s, 503s and `Retry-After`): wall time in which at least one transfer that had room to
    /// start was held by a limit, or one was paused for its bytes.
    package var rateWaitSeconds = 0.0
    /// The shard the run handled (`K/N`); null for the whole job.
    package var shard = ShardLabel(nil)

    package init(job: String, started: Date, durationSeconds: Double, totals: RunTotals,
                failures: [RunFailure], outcome: String, warnings: [String: Int] = [:]) {
        self.job = job
        self.started = Timestamp.iso8601(started)
        self.durationSeconds = Milliseconds.rounded(durationSeconds)
        self.totals = totals
        self.failures = failures
        self.outcome = outcome
        self.warnings = warnings
    }

    enum CodingKeys: String, CodingKey {
        case job, started, totals, failures, outcome, warnings, shard
        case formatVersion = "format_version"
        case durationSeconds = "duration_s"
        case rateWaitSeconds = "rate_wait_s"
    }

    /// The `outcome` of a run that a signal stopped (or not), and that was or was not cut short
    /// otherwise: a URL file that could not be read to its end, or a cache that stopped taking writes.
    static func outcome(stoppedBy signal: Int32?, cutShort: Bool) -> String {
        switch signal {
        case SIGINT: "interrupted"
        case SIGTERM, SIGHUP: "terminated"
        default: cutShort ? "incomplete" : "completed"
        }
    }

    /// Pretty, key-sorted JSON with a final newline.
    package func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers and arrays of them always encode.
        return (try? encoder.encode(self)).map { $0 + Data("\n".utf8) } ?? Data()
    }
}

/// A report's `shard`: `"K/N"`, or null (not left out) for the whole job.
package struct ShardLabel: Sendable, Equatable, Codable {
    package let text: String?

    package init(_ shard: Shard?) {
        text = shard?.label
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        text = container.decodeNil() ? nil : try container.decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let text { try container.encode(text) } else { try container.encodeNil() }
    }
}

extension RunReport {
    /// The short human summary printed on standard error at the end of a run.
    package var summary: String {
        let t = totals
        let rate = durationSeconds > 0 ? Double(t.bytes) / durationSeconds : 0
        return "\(oneLine(job)): \(t.requested) requested, \(t.unique) unique: \(t.fetched) fetched, \(t.cached) cached, "
            + "\(t.revalidated) revalidated, \(t.failed) failed, \(t.ledgered) ledgered, \(t.skipped) skipped; "
            + "\(ByteFormat.human(t.bytes)) in \(String(format: "%.3f", durationSeconds)) s (\(ByteFormat.human(Int64(rate)))/s)"
            + (warnings.isEmpty ? "" : "; \(warnings.values.reduce(0, +)) accepted with decoder warnings")
            + (rateWaitSeconds < 0.005 ? "" : "; waited \((rateWaitSeconds * 100).rounded() / 100) s on rate limits")
            + (outcome == "completed" ? "" : " — \(outcome)")
    }
}
