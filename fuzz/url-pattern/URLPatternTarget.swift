import FuzzSupport
import PrefetchKit

/// `url_pattern` text -> `URLPattern` or `URLPatternError`: the glob parser (ranges, steps, padding,
/// letters, lists, escapes), the expansion count and its limit, the URL shape checks (libcurl's
/// parser included), and the first URLs of the expansion.
enum URLPatternTarget {
    static let expanded = 1_000

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        do {
            let pattern = try URLPattern(text)
            fuzzCheck((1...URLPattern.maxExpansions).contains(pattern.count), "count \(pattern.count) of \(text.debugDescription)")
            var count = 0
            for url in pattern.prefix(expanded) {
                count += 1
                let scheme = url.prefix(8).lowercased()
                fuzzCheck(scheme.hasPrefix("http://") || scheme == "https://",
                          "\(text.debugDescription) expanded to \(url.debugDescription)")
            }
            fuzzCheck(count == min(pattern.count, expanded), "\(text.debugDescription) yielded \(count) of \(pattern.count) URLs")
        } catch {
            _ = error.description
        }
    }
}

/// libFuzzer's entry point: one input, always 0 (a finding is a crash or a failed `fuzzCheck`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    URLPatternTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@main
struct URLPatternFuzzer {
    static func main() {
        #if FUZZING
        FuzzMain.libFuzzer(fuzz)
        #else
        FuzzMain.replay(URLPatternTarget.run)
        #endif
    }
}
