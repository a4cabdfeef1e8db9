import PrefetchKit

/// `prefetchd fsck`: index against files.
enum FsckCommand {
    static let spec = CommandSpec(
        name: "fsck",
        synopsis: "fsck [--cache DIR] [--repair]",
        summary: "Check the index against the files and decode-check every file stored as an image.",
        details: """
            Finds damage inside the index file (SQLite's quick check; then nothing else is checked
            against its rows), index rows without files, files named like cache entries but without rows (files
            with other names are not the cache's and are left alone), size or checksum mismatches,
            files that fail a full decode check (PNG, JPEG, GIF, WebP, AVIF, JPEG XL, every frame of
            an animation, under the default limits: a file over them, which a job that raised them
            stored, is held to its size and checksum, as are those a validate: none set stored), temp files older
            than an hour, symbolic links where the cache's own folders (tmp, the fan-out folders)
            belong, and running totals (what stats and the size cap read) that disagree with the
            rows, and files this user may not read (said, never removed). Prints one line per problem
            on standard output. With --repair, sets a damaged index
            aside (index.sqlite.corrupt-TIME) and makes it again from the files it may read (its URLs,
            sets, variants' links to their originals, failure ledger and run history are lost), then
            checks again; drops bad rows and files,
            indexes orphan files, deletes stale temps, replaces such a link with a real folder
            (never touching what it points at) and computes the totals again. Reads every file:
            expect it to take as long as reading the whole cache. Exit 0 when clean, 1 when problems
            were found (with --repair: and fixed), 3 when DIR holds no cache or it is unusable.
            """,
        options: [SharedOptions.cacheFolder, .flag("repair", "Fix what was found: remake a damaged index, drop bad rows and files, index orphans, delete stale temps, replace linked folders.")],
        examples: ["prefetchd fsck --cache /var/cache/prefetchd", "prefetchd fsck --cache /var/cache/prefetchd --repair"],
        execute: execute
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        guard arguments.positionals.isEmpty else {
            throw UsageError("fsck: takes no arguments besides --cache DIR and --repair")
        }
        let root = MaintenanceTarget.cacheFolder(option: arguments.value("cache"))
        do throws(CacheError) {
            try check(root, repair: arguments.has("repair"), diagnostics)
        } catch {
            CacheFailure.report("fsck", cacheAt: root, error, into: diagnostics)
        }
    }

    private static func check(_ root: String, repair: Bool, _ diagnostics: Diagnostics) throws(CacheError) {
        guard let found = try checkOnce(root, repair: repair, diagnostics) else {
            CacheFailure.noCache("fsck", at: root, into: diagnostics)
            return
        }
        var problems = found.problems
        // A damaged index is made again from the files, and a link in a folder's place made a real
        // folder: what the rows stand on changed, so the files are checked against them again.
        let said = Set(problems.map(\.description))
        if repair, case .damagedIndex(let reason)? = found.problems.first {
            _ = try DiskCache.open(at: root, layout: found.layout, damaged: reason)
            problems += try checkOnce(root, repair: true, diagnostics, besides: said)?.problems ?? []
        } else if repair, problems.contains(where: { if case .linkedFolder = $0 { true } else { false } }) {
            problems += try checkOnce(root, repair: true, diagnostics, besides: said)?.problems ?? []
        }
        let left = problems.filter { if case .forbiddenFile = $0 { true } else { false } }.count
        let repaired = !repair || problems.count == left ? "" : left == 0 ? " and repaired" : ", all but \(left) repaired"
        Console.error("prefetchd fsck: \(root): \(counted(problems.count, "problem")) found\(repaired)\n")
    }

    /// Checks the cache at `root` once, printing each problem but those `besides` says already (what a
    /// first pass left, such as a file this user may not read), and with `repair` fixes them (all but
    /// a damaged index, which only opening the cache again can). Nil when there is no cache. The cache
    /// is closed when this returns.
    private static func checkOnce(
        _ root: String, repair: Bool, _ diagnostics: Diagnostics, besides said: Set<String> = []
    ) throws(CacheError) -> (problems: [CacheProblem], layout: CacheLayout)? {
        guard let cache = try DiskCache.openExisting(at: root, for: repair ? .write : .read) else { return nil }
        let validator = ImageValidator(level: .decode, maxBytes: 0)
        let checker = CacheChecker(cache)
        let problems = try checker.check { path in
            do throws(ImageError) {
                _ = try validator.validate(fileAt: path)
                return nil
            } catch {
                // Over the default limits: stored by a job that raised them, and held, as a validate:
                // none body is, to its size and checksum (no decode past the budgets that guard fsck).
                return error.isOverALimit ? nil : error.reason
            }
        }.filter { !said.contains($0.description) }
        for problem in problems {
            Console.out("\(problem)\n")
            diagnostics.report(.failure)
        }
        if repair && !problems.isEmpty { try checker.repair(problems) }
        return (problems, cache.layout)
    }
}
