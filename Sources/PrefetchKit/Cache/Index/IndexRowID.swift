internal import CSQLite
internal import CXXHash

/// An entry's row id is made from its relative path, so that the path needs no index of its own: the
/// table's own B-tree finds a row by path (schema 14; before, a unique index on the 71-byte text path
/// cost every store, lookup and removed row a second B-tree, and a clean's batches rewrote its pages
/// in every commit: bench/maintain/RESULTS.md, "Thirteenth pass").
///
/// The id's bits, high to low: 0; 8 bits of the path's slice (its first two characters read as hex:
/// the fan-out folder of the native layout, the name's first byte of SDWebImage's, 0 for any other
/// path); 53 bits of the path's XXH3-64; and 2 bits of slot. A path's row takes the first free slot of
/// its four (`base(of:)` to `base + 3`), so two paths whose 61 bits agree both have a row, and a lookup
/// reads those four ids and compares the path (`matches(_:)`). The slice keeps each fan-out folder's
/// rows in one range of ids (`slice(ofPrefix:)`), which the orphan sweep reads folder by folder.
///
/// SQL reaches the same function as `path_id(text)`, registered on every connection prefetchd opens
/// (`register(on:)`); nothing stored depends on it (no trigger, index or default calls it), so other
/// SQLite clients can still read and write an index, as long as they give a new row its id.
enum IndexRowID {
    /// The slots a path's row may take.
    static let slots: Int64 = 4

    /// The lowest id a row of `relativePath` may take (`slotIDs(of:)` for all four).
    static func base(of relativePath: String) -> Int64 {
        var path = relativePath
        return path.withUTF8 { base(of: $0) }
    }

    static func base(of bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
        let slice = bytes.count >= 2 ? slice(bytes[0], bytes[1]) : 0
        let hash = XXH3_64bits(bytes.baseAddress, bytes.count)
        return Int64(slice) << 55 | Int64(hash >> 11) << 2
    }

    /// The ids a row of `relativePath` may take: its four slots, the highest at most `Int64.max`.
    static func slotIDs(of relativePath: String) -> ClosedRange<Int64> {
        let base = base(of: relativePath)
        return base...base + (slots - 1)
    }

    /// The ids of the rows whose paths start with the two characters of `prefix` (a fan-out folder).
    static func slice(ofPrefix prefix: String) -> ClosedRange<Int64> {
        let bytes = Array(prefix.utf8.prefix(2))
        let slice = Int64(bytes.count == 2 ? slice(bytes[0], bytes[1]) : 0)
        return (slice << 55)...(slice << 55 | (1 << 55 - 1))
    }

    /// An SQL condition on `entries` that holds for the row of the path `path` (an SQL expression: a
    /// parameter such as `?1`, or a column of a joined table): one of its slots, and its path.
    static func matches(_ path: String) -> String {
        "entries.id BETWEEN path_id(\(path)) AND path_id(\(path)) + \(slots - 1) AND entries.relative_path = \(path)"
    }

    /// Makes `path_id(text)` callable on the connection `handle`.
    static func register(on handle: OpaquePointer) {
        sqlite3_create_function_v2(
            handle, "path_id", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
            { context, _, arguments in
                guard let argument = arguments?[0], let text = sqlite3_value_text(argument) else {
                    sqlite3_result_null(context)
                    return
                }
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(argument)))
                sqlite3_result_int64(context, IndexRowID.base(of: bytes))
            }, nil, nil, nil)
    }

    private static func slice(_ high: UInt8, _ low: UInt8) -> UInt8 {
        guard let high = high.hexDigitValue, let low = low.hexDigitValue else { return 0 }
        return high << 4 | low
    }
}
