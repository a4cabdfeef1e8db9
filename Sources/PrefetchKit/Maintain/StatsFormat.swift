import Foundation

/// The renderings `prefetchd stats --format` offers.
public enum StatsFormat: String, Sendable, CaseIterable {
    case text, json, prometheus, html

    public func render(_ stats: CacheStats) -> String {
        switch self {
        case .text: StatsText.render(stats)
        case .json: StatsJSON.render(stats)
        case .prometheus: StatsPrometheus.render(stats)
        case .html: StatsHTML.render(stats)
        }
    }
}

/// Shared spellings of dates and run totals.
enum StatsSpelling {
    static func iso(_ date: Date?) -> String? {
        date.map { $0.formatted(.iso8601) }
    }

    /// The run totals shown in tables and charts, in report order.
    static let runTotals = ["fetched", "cached", "revalidated", "failed", "skipped"]
}

/// Writes `text` to `path` through a temp file in the same folder and a rename, so a reader (a
/// node_exporter textfile collector, a web server) never sees half a file.
public enum AtomicFile {
    public static func write(_ text: String, to path: String) throws(CacheError) {
        let url = URL(fileURLWithPath: path)
        let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .fromErrno("create", temp) }
        var failure: CacheError?
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                failure = .fromErrno("write", temp)
                break
            }
            offset += written
        }
        if failure == nil && fsync(fd) != 0 { failure = .fromErrno("fsync", temp) }
        close(fd)
        if failure == nil && rename(temp, path) != 0 { failure = .fromErrno("rename into", path) }
        if let failure {
            unlink(temp)
            throw failure
        }
    }
}
