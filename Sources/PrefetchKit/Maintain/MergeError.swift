/// Why `merge` did nothing, or stopped; each case prints as one plain sentence.
package enum MergeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The caches were made with different layouts, whose files are named differently.
    case layoutsDiffer(path: String, layout: CacheLayout, otherPath: String, otherLayout: CacheLayout)
    /// A source is the destination itself.
    case intoItself(path: String)
    /// The destination is one of another cache's own places (`CacheOwnedPath`): why.
    case insideCache(String)
    /// A cache, its lock or its index failed: the destination's, or the source at `source` when given.
    case maintenance(MaintenanceError, source: String? = nil)

    package var description: String {
        switch self {
        case .layoutsDiffer(let path, let layout, let otherPath, let otherLayout):
            "\(path) has the \(layout.rawValue) layout but \(otherPath) has the \(otherLayout.rawValue) layout; "
                + "caches of different layouts cannot be merged, nothing was changed."
        case .intoItself(let path):
            "\(path) is both a source and the destination; nothing was changed."
        case .insideCache(let refusal):
            "\(refusal); nothing was changed."
        case .maintenance(let error, _):
            error.description
        }
    }
}

/// Runs `body`, turning a cache error into a merge error.
func merging<Result>(_ body: () throws(CacheError) -> Result) throws(MergeError) -> Result {
    do {
        return try body()
    } catch {
        throw .maintenance(.cache(error))
    }
}
