import Foundation

/// A line a command says at a level (a warning, an error, a note), as a JSON event:
/// `{"event":"message","level":"warning","message":"..."}`.
struct MessageEvent: Encodable {
    let event = "message"
    let level: Log.Level
    let message: String
}

extension Log {
    /// The last line of a JSON log (nothing in text, where each command prints its own summary):
    /// `{"event":"summary","command":"run","outcome":"completed","exit_status":1,"duration_ms":2440,...}`
    /// with the command's own fields (`totals` and the like) beside them. `duration_ms` counts from
    /// `configure`.
    package static func summary(command: String, outcome: String, exitStatus: Int32, fields: (any Encodable & Sendable)?) {
        let now = Date()
        event(Summary(command: command, outcome: outcome, exitStatus: exitStatus,
                      durationMs: Milliseconds.between(started, now), fields: fields), at: now)
    }

    private struct Summary: Encodable {
        let command: String
        let outcome: String
        let exitStatus: Int32
        let durationMs: Int64
        let fields: (any Encodable & Sendable)?

        enum Key: String, CodingKey {
            case event, command, outcome
            case exitStatus = "exit_status"
            case durationMs = "duration_ms"
        }

        func encode(to encoder: any Encoder) throws {
            try fields?.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("summary", forKey: .event)
            try container.encode(command, forKey: .command)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(exitStatus, forKey: .exitStatus)
            try container.encode(durationMs, forKey: .durationMs)
        }
    }
}

/// Durations in the JSON log: whole milliseconds, in fields named `..._ms`.
package enum Milliseconds {
    package static func of(_ seconds: Double) -> Int64 {
        Int64((seconds * 1000).rounded())
    }

    /// Seconds to the millisecond, as the report's `duration_s` and `stats` give a run's duration.
    package static func rounded(_ seconds: Double) -> Double {
        (seconds * 1000).rounded() / 1000
    }

    static func between(_ start: Date, _ end: Date) -> Int64 {
        of(end.timeIntervalSince(start))
    }
}
