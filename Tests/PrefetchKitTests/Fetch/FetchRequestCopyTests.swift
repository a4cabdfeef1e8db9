import Foundation
import Testing
@testable import PrefetchKit

/// `FetchRequest` keeps its set-wide settings behind one shared reference, copied on write: a copy
/// of a request (a set's template, filled in for each URL) must still behave as a value.
@Suite struct FetchRequestCopyTests {
    static func template() -> FetchRequest {
        var request = FetchRequest(url: "", destination: "", headers: ["Accept": "image/webp"], timeout: .seconds(40),
                                   maxBytes: 1 << 20)
        request.stall = StallLimit(bytesPerSecond: 100, time: .seconds(10))
        request.hiddenParams = ["token"]
        request.concurrency = 8
        return request
    }

    @Test func aCopyChangedLeavesTheOriginalAsItWas() {
        let original = Self.template()
        var copy = original
        copy.url = "http://h/a.jpg?token=1"
        copy.headers = ["Accept": "image/png", "X-Trace": "1"]
        copy.timeout = .seconds(5)
        copy.maxBytes = 7
        copy.stall = StallLimit(bytesPerSecond: 0, time: .seconds(10))
        copy.hiddenParams = []
        copy.concurrency = 2
        copy.route.caFile = "/etc/ca.pem"

        #expect(original.url == "")
        #expect(original.headerLines == ["Accept: image/webp", "Accept-Encoding: identity",
                                         "User-Agent: prefetchd/\(PrefetchVersion.string)"])
        #expect(original.timeout == .seconds(40))
        #expect(original.maxBytes == 1 << 20)
        #expect(original.stall == StallLimit(bytesPerSecond: 100, time: .seconds(10)))
        #expect(original.hiddenParams == ["token"])
        #expect(original.concurrency == 8)
        #expect(original.route.caFile == nil)

        #expect(copy.headerLines == ["Accept: image/png", "Accept-Encoding: identity",
                                     "User-Agent: prefetchd/\(PrefetchVersion.string)", "X-Trace: 1"])
        #expect(copy.timeout == .seconds(5))
        #expect(copy.maxBytes == 7)
        #expect(copy.stall.isOff)
        #expect(copy.shownURL == "http://h/a.jpg?token=1")
        #expect(copy.concurrency == 2)
        #expect(copy.route.caFile == "/etc/ca.pem")
    }

    @Test func theOriginalChangedLeavesItsCopiesAsTheyWere() {
        var original = Self.template()
        let copies = (0..<3).map { index in
            var copy = original
            copy.url = "http://h/\(index).jpg"
            return copy
        }
        original.headers = [:]
        original.perHost = 1

        for (index, copy) in copies.enumerated() {
            #expect(copy.url == "http://h/\(index).jpg")
            #expect(copy.headers == ["Accept": "image/webp"])
            #expect(copy.perHost == Int.max)
        }
        #expect(original.headerLines.first == "Accept: image/*,*/*;q=0.8")
    }
}
