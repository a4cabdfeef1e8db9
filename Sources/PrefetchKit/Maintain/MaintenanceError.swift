import Foundation

/// Everything that stops `clean` or `stats`; each case prints as one plain sentence.
package enum MaintenanceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The cache itself failed (files or index).
    case cache(CacheError)
    /// The folder holds no prefetchd cache (no CACHEDIR.TAG with a layout). Every command that needs
    /// an existing cache says it in these words, and exits 3.
    case noCache(path: String)
    /// Another `clean`, `remove` or `merge` holds the cache's lock file past the wait.
    case lockHeld(path: String, holder: Int32?, waited: TimeInterval)
    /// Other processes kept the index's write lock past the wait.
    case indexBusy(path: String, waited: TimeInterval)
    /// A report file (or standard output) could not be written: why, as the system said it
    /// (`cannot write standard output: No space left on device`, the words of every command).
    case output(String)

    package var description: String {
        switch self {
        case .cache(let error):
            error.description
        case .noCache(let path):
            "no cache at \(path)"
        case .lockHeld(let path, let holder, let waited):
            "Another clean, remove or merge\(holder.map { " (pid \($0))" } ?? "") holds \(path); gave up after \(Int(waited)) s, nothing was changed."
        case .indexBusy(let path, let waited):
            "The index \(path) stayed locked by other processes for \(Int(waited)) s; stopped, the cache is consistent."
        case .output(let message):
            message
        }
    }

}
