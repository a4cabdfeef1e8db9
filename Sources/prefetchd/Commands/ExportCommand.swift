import Foundation
import Synchronization
import PrefetchKit

/// `prefetchd export`: a folder of cached images an iOS app bundles for SDImageCache.
enum ExportCommand {
    static let usage = "export DST --layout sdwebimage [JOB.yaml | --cache DIR] [--variant NAME] [--dry-run]"

    static let spec = CommandSpec(
        name: "export",
        synopsis: usage,
        summary: "Write cached images to a folder an iOS app bundles as an SDImageCache read-only path.",
        details: """
            Writes DST with only image files, each named as SDWebImage's SDDiskCacheFileNameForKey
            names its cache key (the lowercase hex MD5 of the key, then `.` and the extension of the
            URL's path when it has one of at most 222 UTF-16 units), and manifest.json (layout,
            format_version, variant, and entries of key, file, bytes, width, height). With JOB.yaml,
            the job's keys (after each set's cache_key rule) from its cache (or --cache DIR), each
            one not cached listed as `missing URL` on standard output; without, every original
            entry of the cache at --cache DIR. Entries without a key (found by a rescan) or stored
            with validate: none are left out and told on stderr; partial downloads never count.
            With --variant NAME, each original's variant NAME is written under the original's key,
            so the app finds the thumbnail under the URL it asks for. Files are hard-linked from
            the cache when DST is on its file system, copied otherwise, into DST.tmp-XXXXXX beside
            DST, which then takes DST's place in one rename: a new or empty DST is renamed onto,
            a previous export (its manifest.json, and no file it does not list) is swapped in one
            step and removed; a DST holding anything else is refused. SIGINT, SIGTERM or SIGHUP
            before that rename removes DST.tmp-XXXXXX and exits 130, 143 or 129, DST as it was. Reads the cache only: no
            network, no writes to it, not counted as a use. With --dry-run, prints `FILE KEY` for
            each file and writes nothing. Exit 0 when every key was exported, 1 when some are not
            cached (the rest are exported) or, with --cache DIR alone, when no entry has the
            variant, 2 for a bad command line, job file or DST, 3 when no cache is there, the cache
            is unusable or DST cannot be written.
            """,
        options: [
            .value("layout", "LAYOUT", "How the files are named: sdwebimage (the only one).",
                   default: "none, it must be given", choices: ["sdwebimage"]),
            SharedOptions.cache,
            .value("variant", "NAME", "Export each original's variant NAME, under the original's key.",
                   default: "the originals"),
            SharedOptions.dryRun,
        ],
        examples: [
            "prefetchd export Resources/PrefetchedImages --layout sdwebimage jobs/catalog.yaml",
            "prefetchd export build/thumbs --layout sdwebimage --cache /var/cache/prefetchd --variant thumb",
        ],
        execute: execute,
        handlesStopSignals: true
    )

    private static func execute(_ arguments: ParsedArguments, _ diagnostics: Diagnostics) throws {
        guard (1...2).contains(arguments.positionals.count), let destination = arguments.positionals.first else {
            throw UsageError("export: give the destination folder and at most one job file (usage: prefetchd \(usage))")
        }
        guard arguments.value("layout") != nil else {
            throw UsageError("export: give --layout sdwebimage (usage: prefetchd \(usage))")
        }
        let job = try arguments.positionals.dropFirst().first.map {
            try JobFile.load(path: $0, environment: ProcessInfo.processInfo.environment)
        }
        if let refusal = CacheOwnedPath.enclosingCacheRefusal(naming: "DST \(destination)", path: destination) {
            throw UsageError("export: \(refusal)")
        }
        let folder: ExportFolder
        do {
            folder = try ExportFolder(path: destination)
        } catch {
            throw UsageError("export: \(error)")
        }
        let jobCache = arguments.value("cache") == nil ? job?.cache.path : nil
        let cachePath = jobCache ?? MaintenanceTarget.cacheFolder(option: arguments.value("cache"))
        let cache: DiskCache
        do throws(CacheError) {
            guard let opened = try DiskCache.openExisting(at: cachePath, for: .read) else {
                return CacheFailure.noCache("export", at: cachePath, into: diagnostics)
            }
            try opened.refuseLinkedFolders()
            cache = opened
        } catch {
            return CacheFailure.report("export", cacheAt: cachePath, error, into: diagnostics)
        }
        let variant = arguments.value("variant")
        let selection = try job.map { try ExportSelection.select($0, from: cache, variant: variant) }
            ?? ExportSelection.selectAll(from: cache, variant: variant)
        for url in selection.missing {
            Console.out("missing \(url)" + (variant.map { " variant \($0)" } ?? "") + "\n")
        }
        if !selection.missing.isEmpty { diagnostics.report(.failure) }
        // Without a job there is no key to call missing: a variant no entry has (a misspelt name, say)
        // would be an empty export that looks done.
        if job == nil, let variant, selection.items.isEmpty, selection.skipped.isEmpty, (try? cache.index.entryCount()) ?? 0 > 0 {
            diagnostics.report(.failure, "prefetchd export: no entry of the cache \(cache.root) has a variant `\(variant)`")
        }
        for skipped in selection.skipped {
            Console.error("prefetchd export: left out \(skipped.what): \(skipped.reason)\n")
        }
        if arguments.has("dry-run") {
            ProcessTuning.releaseStopSignals()
            for planned in SDWebImageExport.plan(selection) { Console.out("\(planned.file) \(planned.item.key)\n") }
            return
        }
        // A stop removes the staging folder before the command exits 130, 143 or 129 (the signals are
        // held back until now; with --dry-run nothing is written and they end it at once).
        let stopSignal = Atomic<Int32>(0)
        let signals = SignalRelay { stopSignal.store($0, ordering: .relaxed) }
        defer { signals.cancel() }
        let written = Result { () throws(ExportError) in
            try SDWebImageExport.write(selection, variant: variant, to: folder) { stopSignal.load(ordering: .relaxed) }
        }
        if case .failure(.stopped(let signal)) = written { return diagnostics.stopped(by: signal) }
        let result = try written.get()
        Console.error("prefetchd export: \(counted(result.files.count, "file")) (\(ByteFormat.human(result.bytes))), "
            + "\(result.linked) linked and \(result.copied) copied, in \(folder.path)"
            + (selection.missing.isEmpty ? "" : "; \(selection.missing.count) not cached") + "\n")
    }
}
