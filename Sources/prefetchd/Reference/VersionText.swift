import PrefetchKit

/// `prefetchd --version`: prefetchd's version, then each C library it runs on with its version.
enum VersionText {
    static func render() -> String {
        "prefetchd \(PrefetchVersion.string)\n" + LibraryVersions.all.map { "  " + $0.line + "\n" }.joined()
    }
}
