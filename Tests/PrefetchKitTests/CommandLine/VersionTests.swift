import Foundation
import Testing

/// `prefetchd --version`: prefetchd's version, then every C library it runs on, each version as
/// the installed library's own package gives it.
@Suite(.timeLimit(.minutes(1)))
struct VersionTests {
    /// The text after `name ` on its line, up to a space.
    static func version(of name: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("  \(name) ") }
            .map { $0.dropFirst(name.count + 3).prefix { $0 != " " } }.map(String.init)
    }

    static func tool(_ arguments: [String]) throws -> String {
        let outcome = try Binary.tool(arguments)
        try #require(outcome.status == 0, "\(arguments): \(outcome.stderr)")
        return outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [
        ("SQLite", "sqlite3"), ("libpng", "libpng"), ("libjpeg-turbo", "libjpeg"), ("giflib", "libgif"),
        ("libwebp", "libwebp"), ("libavif", "libavif"), ("libjxl", "libjxl"), ("libvips", "vips"),
        ("libyaml", "yaml-0.1"), ("zlib", "zlib"), ("brotli", "libbrotlidec"), ("libidn2", "libidn2"),
        ("xxHash", "libxxhash"), ("libcurl", "libcurl"),
    ])
    func eachLibrarysVersionIsTheInstalledOne(library: String, package: String) throws {
        let outcome = try Binary.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("prefetchd 0."))
        let shown = try #require(Self.version(of: library, in: outcome.stdout), "\(library) missing: \(outcome.stdout)")
        #expect(shown == (try Self.tool(["pkg-config", "--modversion", package])))
    }

    @Test func libcurlSaysItsTLSLibraryAndHTTP2AndOpenSSLItsVersion() throws {
        let text = try Binary.run(["--version"]).stdout
        let curl = try #require(text.split(separator: "\n").first { $0.hasPrefix("  libcurl ") }.map(String.init))
        #expect("libcurl " + (Self.version(of: "libcurl", in: text) ?? "") == (try Self.tool(["curl-config", "--version"])))
        let features = try Self.tool(["curl-config", "--feature"]).split(separator: "\n")
        #expect(curl.contains(features.contains("HTTP2") ? "HTTP/2 yes" : "HTTP/2 no"), "\(curl)")
        // "OpenSSL v3+": the backend's name is its first word
        let ssl = try Self.tool(["curl-config", "--ssl-backends"]).split(separator: " ").first.map(String.init) ?? ""
        #expect(curl.contains("(\(ssl)/"), "\(curl) against \(ssl)")
        if features.contains("HTTP2") {
            let nghttp2 = try Self.tool(["dpkg-query", "-W", "-f", "${Version}", "libnghttp2-14"])
            #expect(curl.contains("nghttp2 " + (nghttp2.split(separator: "-").first.map(String.init) ?? "")), "\(curl) against \(nghttp2)")
        }
        let crypto = try #require(text.split(separator: "\n").first { $0.hasPrefix("  libcrypto ") })
        #expect(crypto.hasPrefix("  libcrypto OpenSSL " + (try Self.tool(["pkg-config", "--modversion", "libcrypto"])) + " "), "\(crypto)")
        // The two read from their headers say so
        #expect(text.contains("libjpeg-turbo ") && text.contains(" (built with)"))
    }
}
