import Foundation

/// What the last clean (not a dry run) did, as `stats` shows it.
package struct CleanRecord: Sendable, Equatable, Codable {
    package var finished: Date
    package var duration: TimeInterval
    /// Entries (and temp files) the expire, trim and sweep steps removed, and their bytes of file data.
    package var removedEntries: Int
    package var freedBytes: Int64
    package var expiredEntries: Int
    package var trimmedEntries: Int
    package var bytesBefore: Int64
    package var bytesAfter: Int64

    enum CodingKeys: String, CodingKey {
        case finished = "finished_at", duration = "duration_s", removedEntries = "removed_entries",
             freedBytes = "freed_bytes", expiredEntries = "expired_entries", trimmedEntries = "trimmed_entries",
             bytesBefore = "bytes_before", bytesAfter = "bytes_after"
    }
}

/// The meta table's `last_clean` row: the last clean's `CleanRecord` as JSON (times in seconds since
/// 1970), replaced by every clean. An index no clean has run on, or written before cleans were
/// recorded, has none, and needs no upgrade for it.
extension CacheIndex {
    private static let lastCleanKey = "last_clean"

    package func recordClean(_ clean: CleanRecord) throws(CacheError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        // Numbers and dates always encode.
        let data = (try? encoder.encode(clean)) ?? Data()
        try setMeta(Self.lastCleanKey, String(decoding: data, as: UTF8.self))
    }

    /// The last recorded clean; nil when there is none or its row cannot be read.
    package func lastClean() throws(CacheError) -> CleanRecord? {
        guard let value = try meta(Self.lastCleanKey) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(CleanRecord.self, from: Data(value.utf8))
    }
}
