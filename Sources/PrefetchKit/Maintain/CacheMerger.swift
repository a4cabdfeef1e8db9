import Foundation

/// `prefetchd merge SRC... --into DST`: folds other caches (a fleet's shard caches) into one.
///
/// The sources are read through read-only snapshots of their indexes and never written; each entry's
/// file, checked for its size, is hard-linked under its final name (copied when the file systems
/// differ, or with `copy`: `BodyPlacement`) and its row written, both under the index's write lock, in
/// the batch transaction every store uses, so a `run` beside it on the destination is ordered against
/// it and a key it stored meanwhile is seen. A key both hold goes to the
/// newer fetch (`modified_at`, the last fetch or revalidation; `fetched_at` is the first fetch, kept
/// when a key is fetched again); a tie keeps what the destination holds, so a rerun after a kill takes
/// only what is still missing. The destination's clean lock is held throughout, so no clean runs beside it.
package struct CacheMerger: Sendable {
    package struct Options: Sendable {
        package var dryRun = false
        /// Copy every file, never hard-link.
        package var copy = false
        /// How long to wait for a clean that holds the destination's lock.
        package var lockWait: TimeInterval = 10

        package init() {}
    }

    /// What happened, or would happen, to one source entry.
    package struct Action: Sendable, Equatable {
        package enum Kind: String, Sendable {
            case add, replace, skip, unreadable, strayVariant = "skip-variant"
        }

        package var kind: Kind
        package var relativePath: String
        package var bytes: Int64
        package var source: String
        /// Hard-linked (or, dry, on the destination's file system), rather than copied.
        package var linked: Bool
    }

    package let sources: [String]
    package let destination: String
    package let options: Options

    package init(sources: [String], into destination: String, options: Options = Options()) {
        self.sources = sources.map(Self.absolute)
        self.destination = Self.absolute(destination)
        self.options = options
    }

    /// Merges every source in turn; `onAction` hears each entry's action.
    package func run(onAction: @escaping (Action) -> Void = { _ in }) throws(MergeError) -> MergeReport {
        // Compared as the folders the paths resolve to: a symbolic link to the destination is the destination.
        let resolvedDestination = ResolvedPath.of(destination)
        if let source = sources.first(where: { ResolvedPath.of($0) == resolvedDestination }) {
            throw .intoItself(path: source)
        }
        if let refusal = CacheOwnedPath.enclosingCacheRefusal(naming: "--into \(destination)", path: destination) {
            throw .insideCache(refusal)
        }
        let layout = try commonLayout()
        var report = MergeReport(dryRun: options.dryRun, sources: sources.count, destination: destination)
        let target = try MergeTarget.open(destination, layout: layout, dryRun: options.dryRun)
        let lock = options.dryRun ? nil : try target.lock(wait: options.lockWait)
        defer { withExtendedLifetime(lock) {} }
        for source in sources {
            var pass = MergePass(source: source, target: target, options: options, onAction: onAction)
            try pass.run(into: &report)
        }
        try target.finish()
        return report
    }

    /// The one layout of every source and of the destination when it exists; one whose own folders
    /// include a symbolic link is refused.
    private func commonLayout() throws(MergeError) -> CacheLayout {
        var first: (path: String, layout: CacheLayout)?
        for path in sources + [destination] {
            let recorded: CacheLayout?
            do throws(CacheError) {
                try DiskCache.refuseNonFolder(path)
                recorded = try CacheMarker.recordedLayout(root: path)
                // Nothing is taken from, or put into, a cache through a link in its own folders' place.
                if let recorded { try DiskCache.refuseLinkedFolders(root: path, layout: recorded) }
            } catch {
                throw .maintenance(.cache(error), source: path == destination ? nil : path)
            }
            guard let layout = recorded else {
                if path == destination { continue }
                throw .maintenance(.noCache(path: path))
            }
            if let first, first.layout != layout {
                throw .layoutsDiffer(path: first.path, layout: first.layout, otherPath: path, otherLayout: layout)
            }
            first = first ?? (path, layout)
        }
        // At least one source was given and had a layout, or it threw.
        return first?.layout ?? .native
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
