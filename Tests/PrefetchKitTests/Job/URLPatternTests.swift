import Testing
@testable import PrefetchKit

@Suite struct URLPatternTests {
    @Test func numberRangesCountAndPad() throws {
        let plain = try URLPattern("https://x.example/[1-3].jpg")
        #expect(Array(plain) == ["https://x.example/1.jpg", "https://x.example/2.jpg", "https://x.example/3.jpg"])
        let padded = try URLPattern("https://x.example/[008-011].jpg")
        #expect(Array(padded) == ["https://x.example/008.jpg", "https://x.example/009.jpg", "https://x.example/010.jpg", "https://x.example/011.jpg"])
        let stepped = try URLPattern("https://x.example/[0-10:5]")
        #expect(Array(stepped) == ["https://x.example/0", "https://x.example/5", "https://x.example/10"])
        #expect(try URLPattern("https://x.example/[1-50000].jpg").count == 50_000)
    }

    @Test func lettersListsAndSeveralGlobsExpandLeftmostSlowest() throws {
        let pattern = try URLPattern("https://{img,cdn}.example/[a-b]/[1-2].png")
        #expect(pattern.count == 8)
        #expect(Array(pattern) == [
            "https://img.example/a/1.png", "https://img.example/a/2.png",
            "https://img.example/b/1.png", "https://img.example/b/2.png",
            "https://cdn.example/a/1.png", "https://cdn.example/a/2.png",
            "https://cdn.example/b/1.png", "https://cdn.example/b/2.png",
        ])
        #expect(Array(try URLPattern("https://x.example/[X-Z]")) == ["https://x.example/X", "https://x.example/Y", "https://x.example/Z"])
    }

    @Test func backslashEscapesGlobCharacters() throws {
        let pattern = try URLPattern(#"https://x.example/\[raw\]/{a,b}"#)
        #expect(Array(pattern) == ["https://x.example/[raw]/a", "https://x.example/[raw]/b"])
    }

    @Test func malformedPatternsNameTheirProblem() {
        #expect(throws: URLPatternError.unclosed("[", position: 19)) { try URLPattern("https://x.example/[1-2") }
        #expect(throws: URLPatternError.unopened("}", position: 20)) { try URLPattern("https://x.example/a}") }
        #expect(throws: URLPatternError.nested(position: 21)) { try URLPattern("https://x.example/{a[1-2]}") }
        #expect(throws: URLPatternError.reversedRange("z-a")) { try URLPattern("https://x.example/[z-a]") }
        #expect(throws: URLPatternError.mixedRange("a-9")) { try URLPattern("https://x.example/[a-9]") }
        #expect(throws: URLPatternError.mixedRange("a-Z")) { try URLPattern("https://x.example/[a-Z]") }
        #expect(throws: URLPatternError.badRange("1-")) { try URLPattern("https://x.example/[1-]") }
        #expect(throws: URLPatternError.badRange("1-5:0")) { try URLPattern("https://x.example/[1-5:0]") }
        #expect(throws: URLPatternError.tooManyURLs(limit: 100_000_000)) { try URLPattern("https://x.example/[0-100000000]") }
        // One more value than an Int counts (found by fuzz-url-pattern).
        #expect(throws: URLPatternError.tooManyURLs(limit: 100_000_000)) { try URLPattern("https://x.example/[0-9223372036854775807]") }
        #expect(throws: URLPatternError.notHTTP) { try URLPattern("{http,ftp}://x.example/a") }
        #expect(throws: URLPatternError.badListItem("a b", reason: "contains a space")) { try URLPattern("https://x.example/{a b,c}") }
        #expect(throws: URLPatternError.badListItem("a/b", reason: "is not a host name part")) { try URLPattern("https://{a/b,c}.example/") }
    }

    /// A step longer than its range yields the first value only, whatever its size (found by fuzz-url-pattern).
    @Test func stepsPastTheRangeYieldTheFirstValue() throws {
        #expect(Array(try URLPattern("https://x.example/[a-z:4294967296]")) == ["https://x.example/a"])
        #expect(Array(try URLPattern("https://x.example/[a-c:9942949672969]")) == ["https://x.example/a"])
        #expect(Array(try URLPattern("https://x.example/[1-9:4294967296]")) == ["https://x.example/1"])
    }

    @Test func exactlyTheLimitIsAccepted() throws {
        #expect(try URLPattern("https://x.example/[1-10000]/[1-10000]").count == 100_000_000)
    }
}

@Suite struct JobValuesTests {
    @Test func durations() throws {
        #expect(try JobValues.duration("500ms") == .milliseconds(500))
        #expect(try JobValues.duration("15s") == .seconds(15))
        #expect(try JobValues.duration("10m") == .seconds(600))
        #expect(try JobValues.duration("2h") == .seconds(7_200))
        #expect(try JobValues.duration("7d") == .seconds(604_800))
        #expect(try JobValues.duration("0") == .zero)
        #expect(throws: ValueProblem(message: "duration `-5s` is negative")) { try JobValues.duration("-5s") }
        #expect(throws: ValueProblem(message: "duration `15` needs a unit: ms, s, m, h or d")) { try JobValues.duration("15") }
        #expect(throws: ValueProblem(message: "`1.5s` is not a duration")) { try JobValues.duration("1.5s") }
        #expect(throws: ValueProblem(message: "`s` is not a duration")) { try JobValues.duration("s") }
        #expect(throws: ValueProblem(message: "duration `3y` has unknown unit `y`; use ms, s, m, h or d")) { try JobValues.duration("3y") }
    }

    @Test func sizes() throws {
        #expect(try JobValues.size("512KiB") == 524_288)
        #expect(try JobValues.size("20MiB") == 20_971_520)
        #expect(try JobValues.size("2GiB") == 2_147_483_648)
        #expect(try JobValues.size("3KB") == 3_000)
        #expect(try JobValues.size("4MB") == 4_000_000)
        #expect(try JobValues.size("5GB") == 5_000_000_000)
        #expect(try JobValues.size("1234") == 1_234)
        #expect(try JobValues.size("0") == 0)
        #expect(throws: ValueProblem(message: "size `-1KiB` is negative")) { try JobValues.size("-1KiB") }
        #expect(throws: ValueProblem(message: "`lots` is not a size")) { try JobValues.size("lots") }
        #expect(throws: ValueProblem(message: "size `99999999999TiB` is too large")) { try JobValues.size("99999999999TiB") }
    }

    @Test func environmentExpansion() throws {
        let expansion = EnvironmentExpansion(environment: ["HOME": "/home/u", "EMPTY": ""])
        #expect(try expansion.expand("${HOME}/cache") == "/home/u/cache")
        #expect(try expansion.expand("${MISSING:-/tmp}/c") == "/tmp/c")
        #expect(try expansion.expand("${EMPTY:-fallback}") == "fallback")
        #expect(try expansion.expand("${EMPTY}") == "")
        #expect(try expansion.expand("a ${HOME} b ${HOME}") == "a /home/u b /home/u")
        #expect(try expansion.expand("cost $5") == "cost $5")
        #expect(throws: ValueProblem(message: "environment variable `MISSING` is not set and `${MISSING}` has no `:-default`")) {
            try expansion.expand("${MISSING}")
        }
        #expect(throws: ValueProblem(message: "`${` without a closing `}` in `${HOME`")) { try expansion.expand("${HOME") }
        #expect(throws: ValueProblem(message: "`${1X}` does not name an environment variable")) { try expansion.expand("${1X}") }
    }
}
