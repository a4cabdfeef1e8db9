/// What rows added to or took from each (dimension, value) group of the running totals
/// (`IndexTotals`), gathered in memory and written as one upsert per group.
///
/// Rows are counted in row order, where neighbours mostly share a format, a set and a host: each
/// dimension keeps its latest value's amount aside and adds it to its group only when another value
/// comes, so such a run of rows costs one dictionary lookup, not one a row (a clean's batch of 16,000
/// rows looked its groups up 288,000 times before).
struct IndexTotalsChange {
    struct Group: Hashable {
        var dimension: Int
        var value: IndexValue
    }

    /// Entries, bytes and frames added (or, negative, taken).
    struct Amount {
        var entries: Int64 = 0
        var bytes: Int64 = 0
        var frames: Int64 = 0

        mutating func add(_ other: Amount) {
            entries += other.entries
            bytes += other.bytes
            frames += other.frames
        }
    }

    /// Every group's amount but the latest value's of each dimension (in `latest`).
    private var counted: [Group: Amount] = [:]
    /// By dimension: the value of the last row counted and the amount of the rows that had it since
    /// the last row that did not.
    private var latest: [(value: IndexValue, amount: Amount)?] = Array(repeating: nil, count: IndexTotals.dimensions.count)
    private(set) var rows = 0

    /// Every group touched and its amount.
    var groups: [Group: Amount] {
        var groups = counted
        for (dimension, last) in latest.enumerated() {
            guard let last else { continue }
            groups[Group(dimension: dimension, value: last.value), default: Amount()].add(last.amount)
        }
        return groups
    }

    /// Counts the row `row` is on, `sign` times: its size in column `sizeColumn`, its frames
    /// (`IndexTotals.framesColumn`) in the next, its dimension values (`IndexTotals.valueColumns`) in
    /// the columns after those (the host's, the URL). A text value the same as the last row's is
    /// compared as SQLite's bytes, not made into a string.
    mutating func count(_ row: IndexStatement, sizeColumn: Int32, sign: Int64) {
        let amount = Amount(entries: sign, bytes: sign * row.int64(sizeColumn), frames: sign * row.int64(sizeColumn + 1))
        rows += 1
        for dimension in latest.indices {
            let column = sizeColumn + 2 + Int32(dimension)
            let isHost = dimension == IndexTotals.hostDimension
            // Text up to its first NUL, as `IndexStatement.text` reads it and SQLite's text functions stop.
            let text = row.textBytes(column).map { bytes in
                let upToNUL = bytes[..<(bytes.firstIndex(of: 0) ?? bytes.endIndex)]
                return isHost ? IndexTotals.hostBytes(inURL: upToNUL) : upToNUL
            }
            if let last = latest[dimension] {
                let same = if let text { Self.holds(last.value, text, lowercased: isHost) } else { last.value == Self.value(of: row, column, isHost: isHost) }
                if same {
                    latest[dimension]?.amount.add(amount)
                    continue
                }
                counted[Group(dimension: dimension, value: last.value), default: Amount()].add(last.amount)
            }
            let value = if let text { IndexValue.text(Self.string(text, lowercased: isHost)) } else { Self.value(of: row, column, isHost: isHost) }
            latest[dimension] = (value, amount)
        }
    }

    /// The value of a column that holds no text: a number, or NULL (for the host, a URL unknown: '').
    private static func value(of row: IndexStatement, _ column: Int32, isHost: Bool) -> IndexValue {
        isHost ? .text("") : row.value(column)
    }

    /// Whether `value` is the text of `bytes` (ASCII letters lowercased first, with `lowercased`).
    private static func holds(_ value: IndexValue, _ bytes: UnsafeBufferPointer<UInt8>.SubSequence, lowercased: Bool) -> Bool {
        guard case .text(let text?) = value else { return false }
        return text.utf8.elementsEqual(bytes.lazy.map { lowercased ? lowercase($0) : $0 })
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>.SubSequence, lowercased: Bool) -> String {
        lowercased ? String(decoding: bytes.map(lowercase), as: UTF8.self) : String(decoding: bytes, as: UTF8.self)
    }

    /// SQLite's `lower` without ICU: A-Z only.
    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Adds what `other` counted.
    mutating func add(_ other: IndexTotalsChange) {
        rows += other.rows
        for (group, amount) in other.groups { counted[group, default: Amount()].add(amount) }
    }

    /// Adds the change to the kept totals, inside the transaction open on `connection`.
    func write(on connection: IndexConnection) throws(CacheError) {
        let groups = groups
        guard !groups.isEmpty else { return }
        let upsert = try connection.statement(
            """
            INSERT INTO entry_totals(dimension, value, entries, bytes, frames) VALUES(?, ?, ?, ?, ?)
            ON CONFLICT(dimension, value) DO UPDATE SET entries = entries + excluded.entries, bytes = bytes + excluded.bytes,
                frames = frames + excluded.frames
            """)
        for (group, amount) in groups {
            try upsert.run([.text(IndexTotals.dimensions[group.dimension]), group.value, .integer(amount.entries),
                            .integer(amount.bytes), .integer(amount.frames)])
        }
    }
}
