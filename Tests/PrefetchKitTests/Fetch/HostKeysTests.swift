import Foundation
import Testing
@testable import PrefetchKit

@Suite struct HostKeysTests {
    /// URLs whose host Foundation reads in several ways: ports, user info, IPv6, case, a query or a
    /// fragment right after the authority, an international name.
    static let urls = [
        "http://127.0.0.1:8090/images/000/000001.jpg", "https://CDN.Example.COM/a.jpg", "https://cdn.example.com",
        "http://user:pass@origin.example:8080/x.png", "http://[::1]:8090/a.jpg", "https://cdn.example.com?x=1",
        "https://cdn.example.com#top", "https://bücher.example/a.jpg", "http://cdn.example.com:443/a/b/c.gif",
    ]

    @Test func eachHostIsTheOneFoundationReadsFromTheWholeURL() {
        let keys = HostKeys()
        for url in Self.urls {
            let expected = URLComponents(string: url)?.host?.lowercased() ?? ""
            #expect(keys.hostKey(of: url) == expected, "\(url)")
            // Asked again, from the table of authorities.
            #expect(keys.hostKey(of: url) == expected, "\(url), the second time")
        }
    }

    @Test func theAuthorityEndsAtThePathTheQueryOrTheFragment() {
        #expect(HostKeys.authority(of: "http://h:1/p/q") == "http://h:1")
        #expect(HostKeys.authority(of: "https://h?x=/y") == "https://h")
        #expect(HostKeys.authority(of: "https://h#f/g") == "https://h")
        #expect(HostKeys.authority(of: "https://h") == "https://h")
        #expect(HostKeys.authority(of: "mailto:someone@example.com") == nil)
    }

    @Test func urlsOfOneAuthorityShareItsHostWhateverTheirPaths() {
        let keys = HostKeys()
        // The host comes from the authority alone, whatever the path holds.
        #expect(keys.hostKey(of: "http://cdn.example.com/a b^.jpg") == "cdn.example.com")
        #expect(keys.hostKey(of: "http://cdn.example.com/%zz/\u{0}.jpg") == "cdn.example.com")
        #expect(keys.hostKey(of: "http://cdn.example.com/ok.jpg") == "cdn.example.com")
    }

    @Test func aFullTableStartsAgainAndStillAnswers() {
        let keys = HostKeys()
        for number in 0...HostKeys.limit {
            #expect(keys.hostKey(of: "http://h\(number).example/a.jpg") == "h\(number).example")
        }
        #expect(keys.hostKey(of: "http://h0.example/b.jpg") == "h0.example")
    }
}
