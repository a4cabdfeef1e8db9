/// Which of a run's per-URL events make a line on standard error (`Log`): JSON lines for tools, or
/// text for people.
package struct RunLog: Sendable {
    package typealias Format = Log.Format
    package enum Verbosity: Sendable { case quiet, normal, verbose }

    package var format: Format
    package var verbosity: Verbosity

    package init(format: Format = .text, verbosity: Verbosity = .normal) {
        self.format = format
        self.verbosity = verbosity
    }

    func record(_ event: RunEvent) {
        guard shows(event) else { return }
        switch format {
        case .json: Log.event(event, at: event.time)
        case .text: if let text = Self.text(event, verbose: verbosity == .verbose) { Log.text("prefetchd: " + text) }
        }
    }

    /// What `record` writes for `event`, if anything (text unstamped). JSON: every event, only
    /// failures (`failed`, `ledgered`) when quiet. Text: failures, also when quiet; every outcome when verbose.
    func line(for event: RunEvent) -> String? {
        guard shows(event) else { return nil }
        switch format {
        case .json: return event.jsonLine()
        case .text: return Self.text(event, verbose: verbosity == .verbose).map { "prefetchd: " + $0 + "\n" }
        }
    }

    /// Quiet keeps failures only.
    private func shows(_ event: RunEvent) -> Bool {
        verbosity != .quiet || event.event.isFailure
    }

    /// Whether any engine event (`response`, `retrying`) can become a line: JSON unless quiet, or
    /// verbose text.
    var showsTransferEvents: Bool {
        (format == .json && verbosity != .quiet) || verbosity == .verbose
    }

    /// A warning not about one URL's outcome (a limit, a header ignored): a line, or a `message`
    /// event; not when quiet.
    func warn(_ text: String) {
        guard verbosity != .quiet else { return }
        Log.message(.warning, "prefetchd: " + text)
    }

    static func text(_ event: RunEvent, verbose: Bool) -> String? {
        // Most events make no line: decided before anything is formatted.
        guard verbose || event.event.isFailure else { return nil }
        let where_ = "\(event.url) [\(event.set)]"
        switch event.event {
        case .failed:
            // A status refused says it all; another failure's words say what was wrong or which limit.
            let status = event.status.map { " (HTTP \($0))" } ?? ""
            let isStatus = event.reason?.hasPrefix("http_") ?? false
            let detail = isStatus ? status : event.message.map { ": \(oneLine($0))" } ?? status
            return "failed \(where_): \(event.reason ?? "error")\(detail)"
        case .ledgered:
            // The failure the ledger holds, and until when it keeps the URL away.
            return "ledgered \(where_): \(event.message.map(oneLine) ?? event.reason ?? "error")"
        case .retrying where verbose:
            return "retrying \(where_) after attempt \(event.attempt ?? 0): \(event.reason ?? "error")"
        case .finished where verbose:
            return "fetched \(where_) \(ByteFormat.human(event.bytes ?? 0)) in \(Int(event.elapsedMs ?? 0)) ms"
        case .cached where verbose, .revalidated where verbose:
            return "\(event.event.rawValue) \(where_)"
        case .skipped where verbose:
            return "skipped \(where_): \(event.reason ?? "")"
        default:
            return nil
        }
    }
}
