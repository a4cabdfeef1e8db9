/// Human renderings of byte counts and durations for progress lines and summaries.
package enum ByteFormat {
    /// `512 B`, `18.4 KiB`, `2.1 MiB`, `1.3 GiB`.
    package static func human(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        return "\((value * 10).rounded() / 10) \(units[unit])"
    }

    /// `0:31`, `12:05`, `1:02:03`.
    package static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, (total % 3600) / 60, total % 60)
        let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(twoDigits(secs))" }
        return "\(minutes):\(twoDigits(secs))"
    }
}
