import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// Shows a run's progress on standard error: one live line redrawn on a terminal, as wide as the
/// terminal allows (`ProgressLine`, `TerminalWidth`), otherwise a plain log line every few seconds
/// (SDWebImagePrefetcher's finished/total, with the recent rates and an ETA);
/// with `--log-format json`, a `progress` event line every few seconds instead, so that standard
/// error stays one JSON object a line.
package final class ProgressDisplay: Sendable {
    package enum Style: Sendable, Equatable {
        /// A line redrawn in place (`\r`), for a terminal.
        case live
        /// A full line every `interval` seconds, for logs.
        case log(interval: Double)
        /// A `progress` JSON event every `interval` seconds.
        case json(interval: Double)
        case off
    }

    /// What the display needs to know at each tick.
    package struct Snapshot: Sendable {
        package var done: Int
        package var total: Int
        package var failed: Int
        package var bytes: Int64
        /// Keys claimed and not settled yet: being decided, transferred or stored.
        package var inFlight: Int

        package init(done: Int, total: Int, failed: Int, bytes: Int64, inFlight: Int = 0) {
            self.done = done
            self.total = total
            self.failed = failed
            self.bytes = bytes
            self.inFlight = inFlight
        }
    }

    /// `--progress`: `auto` draws the live line on a terminal and logs a line every 5 s otherwise;
    /// `always` draws the live line even when standard error is not a terminal; `never` shows nothing.
    /// With JSON logs, `auto` and `always` both give progress events.
    package static func style(
        for setting: String, quiet: Bool, json: Bool = false, isTerminal: Bool = isatty(STDERR_FILENO) == 1
    ) -> Style {
        if quiet || setting == "never" { return .off }
        if json { return .json(interval: 5) }
        if setting == "always" || isTerminal { return .live }
        return .log(interval: 5)
    }

    private let style: Style
    private let snapshot: @Sendable () -> Snapshot
    private let started = Date()
    private let timer = Locked<RepeatingTimer?>(nil)
    private let window: Locked<ProgressWindow>
    private let width = Locked<TerminalWidth?>(nil)
    /// The width a log line is laid out for (it is not redrawn, so it may be as wide as it likes).
    static let logWidth = 200

    package init(style: Style, snapshot: @escaping @Sendable () -> Snapshot) {
        self.style = style
        self.snapshot = snapshot
        window = Locked(ProgressWindow(startedAt: 0))
    }

    package func start() {
        let interval: Double
        switch style {
        case .off: return
        case .live: interval = 0.2
        case .log(let seconds), .json(let seconds): interval = seconds
        }
        if style == .live {
            let terminal = TerminalWidth()
            terminal.follow()
            width.withLock { $0 = terminal }
        }
        let ticker = RepeatingTimer(label: "prefetchd.progress", interval: interval) { [weak self] in self?.draw() }
        timer.withLock { $0 = ticker }
        ticker.start()
    }

    /// Stops the ticks and, on a terminal, leaves the last line complete.
    package func stop() {
        guard let ticker = timer.withLock({ $0 }), ticker.stop() else { return }
        if style == .live {
            Console.live(liveLine(snapshot(), elapsed: Date().timeIntervalSince(started)))
            Console.live(nil)
        }
        width.withLock { $0?.stop() }
    }

    private func draw() {
        let state = snapshot()
        let elapsed = Date().timeIntervalSince(started)
        switch style {
        case .live: Console.live(liveLine(state, elapsed: elapsed))
        case .log: Log.text("prefetchd: " + line(state, elapsed: elapsed).render(width: Self.logWidth))
        case .json: Log.event(Event(state, elapsed: elapsed))
        case .off: break
        }
    }

    private func liveLine(_ state: Snapshot, elapsed: Double) -> String {
        line(state, elapsed: elapsed).render(width: width.withLock { $0?.current } ?? TerminalWidth.fallback)
    }

    /// The line of `state`, with the rates of the last few seconds.
    private func line(_ state: Snapshot, elapsed: Double) -> ProgressLine {
        let rate = window.withLock { window in
            window.add(done: state.done, bytes: state.bytes, at: elapsed)
            return window.rate
        }
        return ProgressLine(state, rate: rate)
    }

    /// `{"bytes":...,"done":...,"elapsed_ms":...,"event":"progress","failed":...,"total":...}`, with
    /// `time` and `format_version` as in every event.
    struct Event: Encodable {
        let event = "progress"
        let done: Int
        let total: Int
        let failed: Int
        let bytes: Int64
        let elapsedMs: Int64

        init(_ state: Snapshot, elapsed: Double) {
            done = state.done
            total = state.total
            failed = state.failed
            bytes = state.bytes
            elapsedMs = Milliseconds.of(elapsed)
        }

        enum CodingKeys: String, CodingKey {
            case event, done, total, failed, bytes
            case elapsedMs = "elapsed_ms"
        }
    }
}
