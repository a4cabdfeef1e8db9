import Foundation

/// The rates of the last few seconds of a run (URLs settled and bytes fetched a second), from the
/// progress samples of that span: a sliding window, so the rate and the ETA follow what the run does
/// now, not its average since the start.
package struct ProgressWindow: Sendable {
    package struct Rate: Sendable, Equatable {
        package var urlsPerSecond: Double
        package var bytesPerSecond: Double

        package init(urlsPerSecond: Double, bytesPerSecond: Double) {
            self.urlsPerSecond = urlsPerSecond
            self.bytesPerSecond = bytesPerSecond
        }
    }

    private struct Sample {
        let time: Double
        let done: Int
        let bytes: Int64
    }

    package let span: Double
    /// Oldest first; the first is at or before the window's start once the run is older than it.
    private var samples: [Sample]

    /// A window of `span` seconds over a run that started at `time` with nothing done.
    package init(span: Double = 5, startedAt time: Double) {
        self.span = span
        samples = [Sample(time: time, done: 0, bytes: 0)]
    }

    /// Adds the figures at `time` (seconds, any monotonic origin) and forgets those older than the
    /// window needs.
    package mutating func add(done: Int, bytes: Int64, at time: Double) {
        samples.append(Sample(time: time, done: done, bytes: bytes))
        while samples.count > 2 && samples[1].time <= time - span {
            samples.removeFirst()
        }
    }

    /// The rates between the oldest sample kept and the newest.
    package var rate: Rate {
        guard let first = samples.first, let last = samples.last, last.time > first.time else {
            return Rate(urlsPerSecond: 0, bytesPerSecond: 0)
        }
        let seconds = last.time - first.time
        return Rate(urlsPerSecond: Double(last.done - first.done) / seconds,
                    bytesPerSecond: Double(last.bytes - first.bytes) / seconds)
    }
}
