internal import Glibc

/// `stall:`: a transfer whose body comes slower than `bytesPerSecond`, averaged over the last `time`,
/// is aborted as a timeout. Judged by prefetchd itself (`StallWatch`), not by libcurl's
/// CURLOPT_LOW_SPEED_*, whose speed is an average over the last five seconds: with it, a body that
/// stops dead was aborted six to seven seconds after the limit's time (17 s for 10 s).
package struct StallLimit: Sendable, Equatable {
    /// 0 turns the check off (the whole-transfer `timeout` still applies).
    package var bytesPerSecond: Int64
    /// At least a second.
    package var time: Duration

    /// 1 byte/s over 10 s: a server that sends nothing for 10 s is given up on.
    package static let `default` = StallLimit(bytesPerSecond: 1, time: .seconds(10))

    package init(bytesPerSecond: Int64, time: Duration) {
        self.bytesPerSecond = bytesPerSecond
        self.time = time
    }

    var isOff: Bool { bytesPerSecond == 0 }

    /// The timeout's message when the limit fires.
    func message(received: Int64) -> String {
        "under \(counted(Int(clamping: bytesPerSecond), "byte"))/s for \(StallLimit.seconds(time)) s (stall.low_speed_limit and low_speed_time), after \(counted(Int(clamping: received), "body byte"))"
    }

    static func seconds(_ duration: Duration) -> String {
        let milliseconds = Int64((duration / .milliseconds(1)).rounded())
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : String(format: "%.3f", Double(milliseconds) / 1000)
    }
}

/// The body bytes of one attempt over time, sampled at libcurl's progress callbacks (several a second
/// while data flows, about one a second while it does not): stalled once the bytes of the last
/// `limit.time` are fewer than that time allows. The window starts with the attempt, so a server that
/// sends nothing at all, headers included, is given up on after `limit.time` too. A counter that goes back (a redirect's new body)
/// starts the window again.
struct StallWatch {
    let limit: StallLimit
    /// Oldest first; the first is the latest one at least `limit.time` old once the attempt is that old.
    private var samples: [(time: ContinuousClock.Instant, bytes: Int64)]
    private let spacing: Duration

    /// The least time between two judgements of one transfer, in nanoseconds: a judgement may come that
    /// much after the limit's time, which is small beside the second between libcurl's progress
    /// callbacks while nothing arrives.
    static let judgingGap: Int64 = 20_000_000

    /// CLOCK_MONOTONIC_COARSE in nanoseconds: read from memory the kernel updates at each tick (a few
    /// milliseconds), without reading the hardware clock.
    static func coarseNow() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    init(limit: StallLimit, now: ContinuousClock.Instant) {
        self.limit = limit
        samples = [(now, 0)]
        spacing = max(limit.time / 20, .milliseconds(50))
    }

    /// Whether the transfer is stalled, given its body bytes so far.
    mutating func stalled(bytes: Int64, at now: ContinuousClock.Instant) -> Bool {
        guard let last = samples.last else { return false }
        if bytes < last.bytes {
            samples = [(now, bytes)]
            return false
        }
        // A sample says the bytes had come by then; one newer than `spacing` takes the latest count,
        // which may judge up to `spacing` early, never late.
        if now - last.time >= spacing {
            samples.append((now, bytes))
        } else {
            samples[samples.count - 1].bytes = bytes
        }
        let horizon = now - limit.time
        while samples.count > 1, samples[1].time <= horizon {
            samples.removeFirst()
        }
        let base = samples[0]
        guard base.time <= horizon else { return false }
        let span = Double((now - base.time) / .milliseconds(1)) / 1000
        return Double(bytes - base.bytes) < Double(limit.bytesPerSecond) * span
    }
}
