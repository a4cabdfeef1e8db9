import Testing
@testable import PrefetchKit

@Suite struct RedactionTests {
    @Test func hidesThePasswordOfAURL() {
        #expect(redacted("https://shop:s3cret@cdn.example.com/a.jpg") == "https://shop:***@cdn.example.com/a.jpg")
        #expect(redacted("http://u:p%40ss@h:8080/x?y=1") == "http://u:***@h:8080/x?y=1")
    }

    @Test func hidesThePasswordOfTextThatIsNotQuiteAURL() {
        #expect(redacted("http//bob:s3cret@x.example/1.png") == "http//bob:***@x.example/1.png")
        #expect(redacted("ftp://bob:s3cret@x.example/1.png") == "ftp://bob:***@x.example/1.png")
        #expect(redacted("bob:s3cret@x.example/1.png") == "bob:***@x.example/1.png")
    }

    @Test func leavesURLsWithoutAPasswordAlone() {
        for url in ["https://cdn.example.com/a.jpg", "https://shop@cdn.example.com/a.jpg",
                    "https://cdn.example.com/a@b:c.jpg", "not a url"] {
            #expect(redacted(url) == url)
        }
    }

    @Test func credentialsNeverPrintTheirPassword() {
        let credentials = Credentials(username: "shop", password: "s3cret")
        #expect(!"\(credentials)".contains("s3cret"))
        #expect(!String(reflecting: credentials).contains("s3cret"))
        let request = FetchRequest(url: "https://a:b4d@x.example/1.png", destination: "/tmp/1", credentials: credentials)
        #expect(!"\(request)".contains("s3cret"))
        #expect(!"\(request)".contains("b4d"))
    }

    @Test func scrubsEverySecretOfARequest() {
        let request = FetchRequest(
            url: "https://a:b4d@x.example/1.png", destination: "/tmp/1",
            credentials: Credentials(username: "shop", password: "s3cret"))
        #expect(scrubbed("s3cret and b4d", hiding: secrets(of: request)) == "*** and ***")
    }

    @Test func reasonsAreStableNames() {
        #expect(FetchError.http(status: 404).reason == "http_404")
        #expect(FetchError.http(status: 410).reason == "http_410")
        #expect(FetchError.http(status: 503).reason == "http_status")
        #expect(FetchError.http(status: 503).httpStatus == 503)
        #expect(FetchError.tooLarge(limit: 5).reason == "too_large")
        #expect(FetchError.truncatedBody("x").reason == "truncated_body")
        #expect(FetchError.timeout("x").httpStatus == nil)
    }

    @Test func defaultHeadersGiveWayToTheRequestsOwn() {
        let plain = FetchRequest(url: "http://h/x", destination: "/tmp/x")
        #expect(plain.headerLines == ["Accept: image/*,*/*;q=0.8", "Accept-Encoding: identity",
                                      "User-Agent: prefetchd/\(PrefetchVersion.string)"])
        let custom = FetchRequest(
            url: "http://h/x", destination: "/tmp/x", headers: ["accept": "image/webp", "accept-encoding": "gzip"],
            validators: Validators(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"))
        #expect(custom.headerLines == [
            "If-Modified-Since: Wed, 21 Oct 2015 07:28:00 GMT", "If-None-Match: \"v1\"",
            "User-Agent: prefetchd/\(PrefetchVersion.string)", "accept: image/webp", "accept-encoding: gzip",
        ])
    }
}
