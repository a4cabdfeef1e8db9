import Foundation

/// This machine's name as `gethostname(2)` gives it (no DNS lookup), or "localhost" when it cannot.
func localHostName() -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
    return String(cBuffer: buffer)
}
