import Testing
@testable import PrefetchKit

/// `URLCheck` answers without libcurl's parser for the plain `scheme://host[:port]` shape; every
/// other authority still goes through it, with its answers.
@Suite struct URLCheckTests {
    @Test(arguments: [
        "http://127.0.0.1:8090/images/000/000001.jpg", "https://cdn.example.com/a.jpg?w=10#top",
        "HTTPS://CDN.Example.COM:443/A.JPG", "http://a-b.c-d.example/", "http://localhost:65535/x",
        "http://10.0.0.255/p%20q.png", "http://host/caf\u{e9}.png",
    ])
    func plainURLsAreAccepted(url: String) {
        #expect(URLCheck.problem(url) == nil)
    }

    @Test(arguments: [
        "https://x.example:99999/port.png", "https://x.example:65536/port.png", "http://x.example:8o/a.png",
        "https://bob:sec@ret@x.example/at.png",
    ])
    func authoritiesLibcurlRefusesAreStillRefused(url: String) throws {
        let problem = try #require(URLCheck.problem(url))
        #expect(problem.contains("is not a URL libcurl can fetch"))
    }

    /// A line that is no URL at all (a binary file given as the URL list) is quoted as far as it tells
    /// what it is, so that one such line is one short line of message.
    @Test func aLongRefusedTextIsShortenedInTheMessage() throws {
        let garbage = String(repeating: "\u{FFFD}\u{1}PK", count: 100)
        for text in [garbage, "ftp://" + String(repeating: "a", count: 300)] {
            let problem = try #require(URLCheck.problem(text))
            #expect(problem.count < URLCheck.shownCharacters + 80, "\(problem)")
            #expect(problem.contains("...`"), "\(problem)")
        }
        let short = try #require(URLCheck.problem("ftp://x.example/a.png"))
        #expect(short == "`ftp://x.example/a.png` is not an absolute http or https URL")
    }

    /// Characters past ASCII are percent-encoded by libcurl, but a space of another kind or a byte
    /// that was not UTF-8 (read as U+FFFD) is refused, with where it is.
    @Test func spacesPastASCIIAndBytesThatWereNotUTF8AreRefused() throws {
        let nbsp = try #require(URLCheck.problem("http://h.example/a.png\u{A0}sha256:00"))
        #expect(nbsp == "`http://h.example/a.png\u{A0}sha256:00` contains the space or invisible character U+00A0 at character 23")
        let joiner = try #require(URLCheck.problem("http://h.example/caf\u{e9}\u{200B}.png"))
        #expect(joiner.contains("U+200B at character 22"), "\(joiner)")
        let replaced = try #require(URLCheck.problem("http://h.example/\u{FFFD}\u{FFFD}.jpg"))
        #expect(replaced.contains("holds bytes that are not UTF-8 text at character 18"), "\(replaced)")
        let control = try #require(URLCheck.problem("http://h.example/caf\u{e9}/a\u{1}b.png"))
        #expect(control.contains("contains a space or control character"), "\(control)")
    }

    @Test(arguments: [
        "http://user@x.example/a.png", "http://[::1]:8080/a.png", "http://x.example:/a.png", "http://xn--caf-dma.example/",
    ])
    func otherAuthoritiesGoToLibcurlAndPassAsBefore(url: String) {
        #expect(URLCheck.problem(url) == nil)
    }
}
