import Foundation
@testable import PrefetchKit

/// The fixture server's own record of what it was asked and when (`/log`, `/chunks`), on its
/// monotonic clock: what rate-limit tests judge a run by.
extension FixtureServer {
    struct Request: Equatable {
        let time: Double
        let path: String
    }

    /// Every request so far, in arrival order.
    func requestLog() throws -> [Request] {
        try lines("/log").map { line in
            let parts = line.split(separator: " ", maxSplits: 1)
            return Request(time: Double(parts[0]) ?? .nan, path: String(parts[1]))
        }
    }

    /// Every write of a `/paced` body so far: when, and how many bytes.
    func chunkLog() throws -> [(time: Double, bytes: Int)] {
        try lines("/chunks").map { line in
            let parts = line.split(separator: " ")
            return (Double(parts[0]) ?? .nan, Int(parts[1]) ?? 0)
        }
    }

    private func lines(_ path: String) throws -> [Substring] {
        let body = try get(path).body
        return String(decoding: body, as: UTF8.self).split(separator: "\n")
    }
}

/// Requests whose time falls in `[start, start + seconds)`.
func requests(_ log: [FixtureServer.Request], from start: Double, seconds: Double) -> [FixtureServer.Request] {
    log.filter { $0.time >= start && $0.time < start + seconds }
}

/// The gaps between consecutive times.
func gaps(_ times: [Double]) -> [Double] {
    zip(times.dropFirst(), times).map { $0 - $1 }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}
