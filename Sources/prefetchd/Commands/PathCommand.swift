/// `prefetchd path`: where a URL's image is cached.
enum PathCommand {
    static let spec = CommandSpec(
        name: "path",
        synopsis: "path URL [--cache DIR]",
        summary: "Print the absolute path of the cached file for URL (exit 1 when not cached).",
        details: """
            The URL goes through no job's cache_key rule: pass the URL as the cache key was made.
            Counts as a use of the entry (last access).
            """,
        options: [SharedOptions.cache],
        examples: ["prefetchd path https://cdn.example.com/banners/1.jpg --cache /var/cache/prefetchd"],
        execute: { _ in throw NotAvailable(command: "path", engine: "the disk cache") }
    )
}
