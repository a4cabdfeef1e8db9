internal import CShims
import Dispatch
import Foundation
import Synchronization
internal import Glibc

/// The width of the terminal standard error is drawn on: read at start and again on each SIGWINCH
/// (a resize), which `ProcessTuning.holdWindowSignal` holds back from the start of `main` so that
/// the dispatch source reading it gets every one. Off a terminal (`--progress always` into a file
/// or a pipe), `$COLUMNS` when it is a number, else 80.
package final class TerminalWidth: Sendable {
    package static let fallback = 80
    private let columns: Atomic<Int>
    private let source: Locked<DispatchSourceSignal?>

    package init() {
        columns = Atomic(Self.read())
        source = Locked(nil)
    }

    package var current: Int { columns.load(ordering: .relaxed) }

    /// Follows resizes until `stop`.
    package func follow() {
        let signal = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        signal.setEventHandler { [weak self] in self?.columns.store(Self.read(), ordering: .relaxed) }
        signal.resume()
        source.withLock { $0 = signal }
    }

    package func stop() {
        source.withLock {
            $0?.cancel()
            $0 = nil
        }
    }

    /// The columns of standard error's terminal, else `$COLUMNS`, else 80.
    package static func read(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        if let columns = columns(of: STDERR_FILENO) { return columns }
        if let text = environment["COLUMNS"], let given = Int(text), given > 0 { return given }
        return fallback
    }

    /// The columns of the terminal on `descriptor`; nil when it is not a terminal.
    package static func columns(of descriptor: Int32) -> Int? {
        let columns = Int(pf_terminal_columns(descriptor))
        return columns > 0 ? columns : nil
    }
}
