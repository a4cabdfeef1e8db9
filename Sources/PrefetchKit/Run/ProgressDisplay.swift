import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// Shows a run's progress on standard error: one live line redrawn on a terminal, otherwise a
/// plain log line every few seconds (SDWebImagePrefetcher's finished/total, with rate and ETA);
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

    package init(style: Style, snapshot: @escaping @Sendable () -> Snapshot) {
        self.style = style
        self.snapshot = snapshot
    }

    package func start() {
        let interval: Double
        switch style {
        case .off: return
        case .live: interval = 0.2
        case .log(let seconds), .json(let seconds): interval = seconds
        }
        let ticker = RepeatingTimer(label: "prefetchd.progress", interval: interval) { [weak self] in self?.draw() }
        timer.withLock { $0 = ticker }
        ticker.start()
    }

    /// Stops the ticks and, on a terminal, leaves the last line complete.
    package func stop() {
        guard let ticker = timer.withLock({ $0 }), ticker.stop() else { return }
        if style == .live {
            Console.live(Self.line(snapshot(), elapsed: Date().timeIntervalSince(started)))
            Console.live(nil)
        }
    }

    private func draw() {
        let state = snapshot()
        let elapsed = Date().timeIntervalSince(started)
        switch style {
        case .live: Console.live(Self.line(state, elapsed: elapsed))
        case .log: Log.text("prefetchd: " + Self.line(state, elapsed: elapsed))
        case .json: Log.event(Event(state, elapsed: elapsed))
        case .off: break
        }
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

    /// `[#######-------]  1200/5000  24%  failed 3  18.4 MB  2.1 MB/s  ETA 0:31`
    static func line(_ state: Snapshot, elapsed: Double) -> String {
        let fraction = state.total > 0 ? min(1, Double(state.done) / Double(state.total)) : 0
        let width = 20
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let rate = elapsed > 0 ? Double(state.bytes) / elapsed : 0
        let perItem = state.done > 0 ? elapsed / Double(state.done) : 0
        let remaining = Double(max(0, state.total - state.done)) * perItem
        let eta = state.done > 0 ? ByteFormat.clock(remaining) : "--:--"
        return "[\(bar)] \(state.done)/\(state.total) \(Int(fraction * 100))%  failed \(state.failed)  "
            + "\(ByteFormat.human(state.bytes))  \(ByteFormat.human(Int64(rate)))/s  ETA \(eta)"
    }
}
