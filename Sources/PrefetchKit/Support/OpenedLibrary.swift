/// A C library prefetchd opens on first use instead of linking it (CShims' `pf_*_library`): the table of
/// its functions, or why the loader could not open it.
enum OpenedLibrary {
    struct Failure: Error {
        /// The loader's reason (dlerror).
        let reason: String
    }

    /// The table `open` fills, opening its library the first time.
    static func table<Table>(_ open: (UnsafeMutablePointer<CChar>, Int) -> UnsafePointer<Table>?) throws(Failure) -> Table {
        var reason = [CChar](repeating: 0, count: 384)
        guard let table = open(&reason, reason.count) else { throw Failure(reason: String(cBuffer: reason)) }
        return table.pointee
    }
}
