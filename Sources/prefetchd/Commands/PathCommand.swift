import Foundation
import PrefetchKit

/// `prefetchd path`: where a URL's image is cached.
enum PathCommand {
    static let spec = CommandSpec(
        name: "path",
        synopsis: "path URL [--variant NAME] [--job JOB.yaml] [--cache DIR]",
        summary: "Print the absolute path of the cached file for URL (exit 1 when not cached).",
        details: """
            Finds URL's entry by its cache key, and else by the URL the run stored with it (the one
            `stats` lists, password and redact_params values as ***: give that form, or the URL
            itself). With --job the key is made as a run of JOB.yaml makes it: the cache_key rule
            of the first set that lists URL (else of the job's defaults), and that set's
            redact_params; its cache is the job's cache.path unless --cache is given. Without
            --job the URL itself is the key. When the stored URL matches several entries (URLs
            that differ only in a hidden value) none is printed: give the URL with --job.
            Checks the file is there with its recorded size, and prints its absolute path on
            standard output. Counts as a use of the entry (last access), except in a cache that
            cannot be written to (a read-only or full disk, a folder this user may not write; a
            use that cannot be written is told on stderr, and the path still printed). Exit 0 when
            cached, 1 when not, 2 when URL is not an absolute http or https URL or JOB.yaml is bad,
            3 when DIR holds no cache or the cache is unusable. With --variant, prints the path of
            that variant of URL's image instead (a `variants:` item's name), found through the link the index keeps
            from the variant to its original, also when the set did not keep the original; with
            --job, the variant that job's set makes under that name (not another job's), else the
            newest of that name.
            """,
        options: [
            SharedOptions.cacheFolder,
            .value("job", "JOB.yaml", "Make URL's key with this job's cache_key rule, and use its cache.", default: "none: URL itself is the key"),
            .value("variant", "NAME", "The path of URL's variant NAME rather than of the original.", default: "none: the original"),
        ],
        examples: [
            "prefetchd path https://cdn.example.com/banners/1.jpg --cache /var/cache/prefetchd",
            "prefetchd path 'https://cdn.example.com/banners/1.jpg?sig=a1b2' --job jobs/catalog.yaml",
            "prefetchd path https://cdn.example.com/banners/1.jpg --variant thumb --cache /var/cache/prefetchd",
            "file \"$(prefetchd path https://cdn.example.com/banners/1.jpg --cache /var/cache/prefetchd)\"",
            "xdg-open \"$(prefetchd path http://127.0.0.1:8089/samples/testorig.jpg)\"",
        ],
        execute: execute
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        guard arguments.positionals.count == 1, let url = arguments.positionals.first else {
            throw UsageError("path: give exactly one URL (usage: prefetchd path URL [--variant NAME] [--job JOB.yaml] [--cache DIR])")
        }
        if let problem = URLCheck.problem(url) { throw UsageError("path: \(problem)") }
        let job = try arguments.value("job").map { try JobFile.load(path: $0, environment: ProcessInfo.processInfo.environment) }
        let options = job?.options(for: url) ?? JobOptions()
        let shown = URLRedaction.shown(url, hiding: options.redactParams)
        let root = arguments.value("cache") == nil ? job?.cache.path : nil
        let folder = root ?? MaintenanceTarget.cacheFolder(option: arguments.value("cache"))
        do throws(CacheError) {
            guard let cache = try DiskCache.openExisting(at: folder, for: .read) else {
                return CacheFailure.noCache("path", at: folder, into: diagnostics)
            }
            try cache.refuseLinkedFolders()
            try find(url, shown: shown, options: options, variant: arguments.value("variant"), in: cache, diagnostics)
        } catch {
            CacheFailure.report("path", cacheAt: folder, error, into: diagnostics)
        }
    }

    /// Prints the path of `url`'s entry (or of its variant) in `cache`; reports a failure when none is found.
    private static func find(_ url: String, shown: String, options: JobOptions, variant: String?, in cache: DiskCache,
                             _ diagnostics: Diagnostics) throws(CacheError) {
        if let variant {
            let key = options.cacheKey.key(for: URLRedaction.keyed(url))
            // With a job whose set makes that variant, the one it makes; else the newest of the name.
            let found = if let spec = options.variants.first(where: { $0.name == variant }) {
                try cache.variantPath(of: spec, originalKey: key)
            } else {
                try cache.variantPath(named: variant, ofOriginalAt: cache.relativePath(forKey: key))
            }
            guard let path = found else {
                diagnostics.report(.failure, "prefetchd path: no variant `\(variant)` cached for \(shown)")
                return
            }
            try? cache.flush(waitingAtMost: .seconds(1))
            Console.out(path + "\n")
            return
        }
        let paths: [String]
        if let keyed = try cache.path(forKey: options.cacheKey.key(for: URLRedaction.keyed(url))) {
            paths = [keyed]
        } else {
            paths = try cache.paths(forStoredURLs: Array(Set([url, shown])))
        }
        guard paths.count == 1, let path = paths.first else {
            diagnostics.report(.failure, paths.isEmpty
                ? "prefetchd path: not cached: \(shown)"
                : "prefetchd path: \(paths.count) entries have the stored URL \(shown); give the URL with --job JOB.yaml")
            return
        }
        if cache.index.isSnapshot {
            Console.error("prefetchd path: the use was not recorded: the cache cannot be written to "
                + "(a read-only or full disk, or a folder this user may not write)\n")
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
