import PrefetchKit

/// `prefetchd path`: where a URL's image is cached.
enum PathCommand {
    static let spec = CommandSpec(
        name: "path",
        synopsis: "path URL [--cache DIR]",
        summary: "Print the absolute path of the cached file for URL (exit 1 when not cached).",
        details: """
            Looks URL up as a cache key (no job's cache_key rule applies: pass the URL as its key
            was made) in the cache's own layout, checks the file is there with its recorded size,
            and prints its absolute path on standard output. Counts as a use of the entry (last
            access), except on a disk that cannot be written to (read-only, or full; a use that
            cannot be written is told on stderr, and the path still printed). Exit 0 when
            cached, 1 when not (also when DIR holds no cache), 3 when the cache is unusable.
            """,
        options: [SharedOptions.cacheFolder],
        examples: [
            "prefetchd path https://cdn.example.com/banners/1.jpg --cache /var/cache/prefetchd",
            "open \"$(prefetchd path http://127.0.0.1:8089/samples/testorig.jpg)\"",
        ],
        execute: execute
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        guard arguments.positionals.count == 1, let url = arguments.positionals.first else {
            throw UsageError("path: give exactly one URL (usage: prefetchd path URL [--cache DIR])")
        }
        let root = MaintenanceTarget.cacheFolder(option: arguments.value("cache"))
        guard let cache = try DiskCache.openExisting(at: root, for: .read) else {
            diagnostics.report(.failure, "prefetchd path: no cache at \(root)")
            return
        }
        guard let path = try cache.path(forKey: URLRedaction.keyed(url)) else {
            diagnostics.report(.failure, "prefetchd path: not cached: \(URLRedaction.shown(url, hiding: URLRedaction.commonSecrets))")
            return
        }
        if cache.index.isSnapshot {
            Console.error("prefetchd path: the use was not recorded: the cache's disk cannot be written to\n")
        }
        do {
            try cache.flush(waitingAtMost: .seconds(1))
        } catch {
            // The path is the answer; a use the index cannot take now (held by a stopped writer, on a
            // full disk) is only a clock that moves less.
            Console.error("prefetchd path: the use was not recorded: \(error)\n")
            cache.forgetPendingUses()
        }
        Console.out(path + "\n")
    }
}
