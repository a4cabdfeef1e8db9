/// Reads the duration and size spellings of DESIGN.md for `--max-age` and `--max-size`:
/// `500ms`, `15s`, `10m`, `2h`, `7d`; `512KiB`, `20MiB`, `2GiB` and KB/MB/GB/TB as powers of 10; `0`.
public enum MaintenanceValues {
    private static let secondsPerUnit: [String: Double] = ["ms": 0.001, "s": 1, "m": 60, "h": 3_600, "d": 86_400]
    private static let bytesPerUnit: [String: Int64] = [
        "": 1, "B": 1, "KB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000, "TB": 1_000_000_000_000,
        "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
    ]

    /// Seconds; `0` alone means never.
    public static func duration(_ text: String, option: String) throws(MaintenanceError) -> Double {
        let (number, unit) = try split(text, option: option)
        if unit.isEmpty && number == 0 { return 0 }
        guard let scale = secondsPerUnit[unit] else {
            throw .badValue(option: option, value: text, reason: "a duration needs a unit: ms, s, m, h or d")
        }
        return Double(number) * scale
    }

    /// Bytes; `0` means no cap.
    public static func size(_ text: String, option: String) throws(MaintenanceError) -> Int64 {
        let (number, unit) = try split(text, option: option)
        guard let scale = bytesPerUnit[unit] else {
            throw .badValue(option: option, value: text, reason: "use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: scale)
        guard !overflow else { throw .badValue(option: option, value: text, reason: "too large") }
        return bytes
    }

    private static func split(_ text: String, option: String) throws(MaintenanceError) -> (Int64, String) {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let unit = String(text.dropFirst(digits.count))
        guard !digits.isEmpty, unit.allSatisfy(\.isLetter), let number = Int64(digits) else {
            throw .badValue(option: option, value: text, reason: "expected a whole number and a unit, like 7d or 2GiB")
        }
        return (number, unit)
    }
}
