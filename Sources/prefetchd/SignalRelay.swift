import Dispatch
import Foundation
import PrefetchKit

/// Turns SIGINT, SIGTERM and SIGHUP into a call, so a run can clean up before it exits 130, 143 or 129.
/// The signals are held back (blocked) in every thread from the start of `main`
/// (`ProcessTuning.holdStopSignals`): a dispatch source reads them, one that came before it was made
/// among them. A signal the process was started with ignored (SIGHUP under `nohup`) stays ignored.
final class SignalRelay {
    private let sources: [DispatchSourceSignal]

    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        sources = ProcessTuning.stopSignals.filter { !ProcessTuning.isIgnored(signal: $0) }.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
    }
}
