/// Running totals of the entries table, so that stats read a few hundred rows instead of scanning a
/// million: one row per (dimension, value) with its entry count and bytes. Updates keep them by
/// trigger; inserts by `IndexConnection.insertEntry(_:)` and deletes by
/// `IndexConnection.deleteEntries(where:)`, one upsert per group for a batch's inserts or a delete's
/// rows: a delete or insert trigger would run its sub-program for every row, a large share of a
/// clean's deletes and of each store's insert (bench/maintain/RESULTS.md, "Design figures").
/// Dimensions: `all`, `format`, `set`, `host` (derived from the URL), and the hour (seconds / 3600)
/// of the first fetch and of the last access, from which the age histograms are drawn.
/// Bytes are the files' data sizes (`byte_size`), the measure the size cap uses too; frames are the
/// images' frames, an entry whose frames no check counted (an older row, `validate: none`) as 1.
enum IndexTotals {
    static let dimensions = ["all", "format", "set", "host", "fetched_hour", "accessed_hour"]

    /// An entry's frames as the totals count them.
    static let framesColumn = "coalesce(frames, 1)"

    /// The value of `dimension` for the row named `row` (`new`, `old`, or a table's columns with `row` empty).
    static func value(_ dimension: String, of row: String) -> String {
        let column = { (name: String) in row.isEmpty ? name : "\(row).\(name)" }
        switch dimension {
        case "format": return "coalesce(\(column("format")), '')"
        case "set": return "coalesce(\(column("set_name")), '')"
        case "host": return host(of: column("url"))
        case "fetched_hour": return "CAST(\(column("fetched_at")) / 3600 AS INTEGER)"
        case "accessed_hour": return "CAST(\(column("accessed_at")) / 3600 AS INTEGER)"
        default: return "''"
        }
    }

    /// The lowercased host (with any port) of a URL column: the text between `://` and the next `/`;
    /// empty when the URL is unknown (a rescanned file) or has no scheme.
    static func host(of url: String) -> String {
        let rest = "substr(\(url), instr(\(url), '://') + 3)"
        return """
            CASE WHEN \(url) IS NULL OR instr(\(url), '://') = 0 THEN '' \
            ELSE lower(substr(\(rest), 1, CASE WHEN instr(\(rest), '/') > 0 THEN instr(\(rest), '/') - 1 \
            ELSE length(\(rest)) END)) END
            """
    }

    /// The values of every dimension of a row of the entries table, in `dimensions` order: the select list
    /// whose answers `IndexTotalsChange.count` takes. The host's column is the URL itself, whose host
    /// `IndexTotalsChange` works out with `hostBytes(inURL:)`: the SQL of `host(of:)` cost about 1.3 µs
    /// for each row a clean or a store counts (bench/maintain/RESULTS.md, "Fifteenth pass").
    static let valueColumns = dimensions.map { $0 == "host" ? "url" : value($0, of: "") }.joined(separator: ", ")

    /// The place of `host` in `dimensions`.
    static let hostDimension = dimensions.firstIndex(of: "host")!

    /// What `host(of:)` gives for a URL of these UTF-8 bytes, before lowercasing: the bytes between the
    /// first `://` and the next `/`, or none when there is no `://`. SQLite's `lower` folds ASCII
    /// letters only (no ICU), which `IndexTotalsChange` does on these bytes.
    static func hostBytes(inURL url: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let slash = UInt8(ascii: "/")
        var from = url.startIndex
        while let colon = url[from...].firstIndex(of: UInt8(ascii: ":")) {
            if colon + 2 < url.endIndex, url[colon + 1] == slash, url[colon + 2] == slash {
                let rest = url[(colon + 3)...]
                return rest[..<(rest.firstIndex(of: slash) ?? rest.endIndex)]
            }
            from = colon + 1
        }
        return url[url.endIndex...]
    }

    /// An upsert adding `sign` × (1 entry, its bytes, its frames) of `row` to each of `dimensions`.
    private static func add(_ row: String, sign: String, to dimensions: [String] = dimensions) -> String {
        let values = dimensions.map {
            "('\($0)', \(value($0, of: row)), \(sign)1, \(sign)\(row).byte_size, \(sign)coalesce(\(row).frames, 1))"
        }
        return """
            INSERT INTO entry_totals(dimension, value, entries, bytes, frames) VALUES \(values.joined(separator: ", "))
            ON CONFLICT(dimension, value) DO UPDATE SET entries = entries + excluded.entries, bytes = bytes + excluded.bytes,
                frames = frames + excluded.frames;
            """
    }

    /// An update moves the row between every total when a counted value other than the last use
    /// changes (the body, its set or URL, the first fetch's hour).
    private static var updateCondition: String {
        let changed = ["byte_size", "format", "set_name", "url", "frames"].map { "old.\($0) IS NOT new.\($0)" }
            + ["\(value("fetched_hour", of: "old")) != \(value("fetched_hour", of: "new"))"]
        return changed.joined(separator: " OR ")
    }

    /// A use that moves the last access into another hour, and changes nothing else counted, moves
    /// the row between the two `accessed_hour` totals only: two upserts, not the twelve of a full move.
    private static var accessCondition: String {
        "\(value("accessed_hour", of: "old")) != \(value("accessed_hour", of: "new")) AND NOT (\(updateCondition))"
    }

    static let create = """
        CREATE TABLE IF NOT EXISTS entry_totals (
            dimension TEXT NOT NULL,
            value NOT NULL,
            entries INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            frames INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY(dimension, value)
        );
        \(updateTrigger)
        """

    /// Moves an updated row between totals: `entries_totals_update` for a change of what it counts
    /// (the last access moved with it), `entries_totals_access` for a use alone. A fold of the runs'
    /// uses (`IndexRecentUses.fold`) sets only `accessed_at`, so SQLite leaves the first trigger out of
    /// its statement altogether; the second runs for a use in another hour than the last one (before
    /// the split, when runs wrote their uses into the rows, every such use ran the full move, half again
    /// a warm rerun's time; bench/RESULTS.md).
    static let updateTrigger = """
        CREATE TRIGGER IF NOT EXISTS entries_totals_update
        AFTER UPDATE OF byte_size, format, set_name, url, fetched_at, frames ON entries
        WHEN \(updateCondition) BEGIN
            \(add("old", sign: "-"))
            \(add("new", sign: ""))
        END;
        CREATE TRIGGER IF NOT EXISTS entries_totals_access
        AFTER UPDATE OF accessed_at ON entries
        WHEN \(accessCondition) BEGIN
            \(add("old", sign: "-", to: ["accessed_hour"]))
            \(add("new", sign: "", to: ["accessed_hour"]))
        END;
        """

    /// Every total computed from the entries themselves: (dimension, value, entries, bytes) rows.
    static let computed = dimensions.map { dimension in
        """
        SELECT '\(dimension)', \(value(dimension, of: "")), count(*), coalesce(sum(byte_size), 0),
               coalesce(sum(\(framesColumn)), 0) FROM entries
        GROUP BY 2 HAVING count(*) > 0
        """
    }.joined(separator: "\nUNION ALL\n")

    /// The totals kept, leaving out groups that emptied.
    static let kept = "SELECT dimension, value, entries, bytes, frames FROM entry_totals WHERE entries != 0 OR bytes != 0"

    /// How many kept and computed totals differ; not zero once rows were written around the code that
    /// keeps the totals, such as deleted by hand with the sqlite3 tool (`fsck` checks it).
    static let differences = """
        SELECT (SELECT count(*) FROM (\(kept) EXCEPT SELECT * FROM (\(computed))))
             + (SELECT count(*) FROM (SELECT * FROM (\(computed)) EXCEPT \(kept)))
        """

    /// Recomputes every total from the entries (`fsck --repair`).
    static let backfill = """
        DELETE FROM entry_totals;
        INSERT INTO entry_totals(dimension, value, entries, bytes, frames) \(computed);
        """
}
