import Foundation
import Synchronization

#if canImport(Glibc)
internal import Glibc
#endif

/// Shows a run's progress on standard error: one live line redrawn on a terminal, otherwise a
/// plain log line every few seconds (SDWebImagePrefetcher's finished/total, with rate and ETA).
public final class ProgressDisplay: Sendable {
    public enum Style: Sendable, Equatable {
        /// A line redrawn in place (`\r`), for a terminal.
        case live
        /// A full line every `interval` seconds, for logs.
        case log(interval: Double)
        case off
    }

    /// What the display needs to know at each tick.
    public struct Snapshot: Sendable {
        public var done: Int
        public var total: Int
        public var failed: Int
        public var bytes: Int64

        public init(done: Int, total: Int, failed: Int, bytes: Int64) {
            self.done = done
            self.total = total
            self.failed = failed
            self.bytes = bytes
        }
    }

    /// `--progress`: `auto` draws the live line on a terminal and logs a line every 5 s otherwise;
    /// `always` draws the live line even when standard error is not a terminal; `never` shows nothing.
    public static func style(for setting: String, quiet: Bool, isTerminal: Bool = isatty(STDERR_FILENO) == 1) -> Style {
        if quiet || setting == "never" { return .off }
        if setting == "always" || isTerminal { return .live }
        return .log(interval: 5)
    }

    private let style: Style
    private let snapshot: @Sendable () -> Snapshot
    private let started = Date()
    /// Made by `start()` and taken by `stop()`, so each happens once. Made only when it will be
    /// resumed: libdispatch traps when a suspended source is released (the `.off` style never starts).
    private let timer = Mutex<DispatchSourceTimer?>(nil)

    public init(style: Style, snapshot: @escaping @Sendable () -> Snapshot) {
        self.style = style
        self.snapshot = snapshot
    }

    public func start() {
        let interval: Double
        switch style {
        case .off: return
        case .live: interval = 0.2
        case .log(let seconds): interval = seconds
        }
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "prefetchd.progress"))
            source.schedule(deadline: .now() + interval, repeating: interval)
            source.setEventHandler { [weak self] in self?.draw() }
            source.resume()
            timer = source
        }
    }

    /// Stops the ticks and, on a terminal, leaves the last line complete.
    public func stop() {
        guard let source = timer.withLock({ $0.take() }) else { return }
        source.cancel()
        if style == .live {
            Console.error("\r\u{1B}[2K" + Self.line(snapshot(), elapsed: Date().timeIntervalSince(started)) + "\n")
        }
    }

    private func draw() {
        let line = Self.line(snapshot(), elapsed: Date().timeIntervalSince(started))
        switch style {
        case .live: Console.error("\r\u{1B}[2K" + line)
        case .log: Console.error("prefetchd: " + line + "\n")
        case .off: break
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
