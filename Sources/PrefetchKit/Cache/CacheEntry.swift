import Foundation

/// One cached file as the index knows it.
package struct CacheEntry: Sendable, Equatable {
    /// The URL it was fetched from; nil for a file found by a rescan.
    package var url: String?
    /// The cache key; nil for a file found by a rescan.
    package var key: String?
    /// The job set that first asked for it.
    package var setName: String?
    /// Path inside the cache folder.
    package var relativePath: String
    /// Absolute path of the file.
    package var path: String
    package var size: Int64
    package var format: ImageFormat?
    package var width: Int?
    package var height: Int?
    package var etag: String?
    package var lastModified: String?
    /// `xxh3:<hex>` of the body (XXH3-128).
    package var checksum: String?
    /// First fetch (creation).
    package var fetchedAt: Date
    /// Last fetch or revalidation.
    package var modifiedAt: Date
    /// Last use (flushed in batches). Read from a whole row (`CacheIndex.allEntries`, a clean's, a
    /// merge's), the uses recorded since the last fold included; from a lookup by path
    /// (`DiskCache.lookup`), the row's own, which the next fold may move later (`IndexRecentUses`).
    package var accessedAt: Date
    /// Last time the origin confirmed it (200 or 304).
    package var validatedAt: Date?
    /// Frames of the image, when a check counted them (a still has 1); nil when unknown.
    package var frames: Int? = nil
    /// For a variant: the relative path of the original it was made from; nil for an original.
    package var variantOf: String? = nil
    /// For a variant: its name in the set's `variants:`.
    package var variant: String? = nil

    /// The date `clock` measures this entry's age from.
    package func date(by clock: ExpiryClock) -> Date {
        switch clock {
        case .access: accessedAt
        case .modification: modifiedAt
        case .creation: fetchedAt
        }
    }

}

extension CacheEntry {
    init(row: IndexStatement, root: String) {
        url = row.text(0)
        key = row.text(1)
        setName = row.text(2)
        relativePath = row.text(3) ?? ""
        path = root + "/" + relativePath
        size = row.int64(4)
        format = row.text(5).flatMap(ImageFormat.init(rawValue:))
        width = row.int(6)
        height = row.int(7)
        etag = row.text(8)
        lastModified = row.text(9)
        checksum = row.text(10)
        fetchedAt = row.date(11) ?? .distantPast
        modifiedAt = row.date(12) ?? .distantPast
        accessedAt = row.date(13) ?? .distantPast
        validatedAt = row.date(14)
        frames = row.int(15)
        variantOf = row.text(16)
        variant = row.text(17)
    }

    /// Binds the row's values in `IndexSchema.entryColumns` order to `statement`'s parameters `first`
    /// on: each straight from its field, with no array of values made per stored entry.
    func bind(to statement: IndexStatement, from first: Int32) throws(CacheError) {
        try statement.bind(first, url)
        try statement.bind(first + 1, key)
        try statement.bind(first + 2, setName)
        try statement.bind(first + 3, relativePath)
        try statement.bind(first + 4, size)
        try statement.bind(first + 5, format?.rawValue)
        try statement.bind(first + 6, width)
        try statement.bind(first + 7, height)
        try statement.bind(first + 8, etag)
        try statement.bind(first + 9, lastModified)
        try statement.bind(first + 10, checksum)
        try statement.bind(first + 11, fetchedAt)
        try statement.bind(first + 12, modifiedAt)
        try statement.bind(first + 13, accessedAt)
        try statement.bind(first + 14, validatedAt)
        try statement.bind(first + 15, frames)
        try statement.bind(first + 16, variantOf)
        try statement.bind(first + 17, variant)
    }
}

/// What the caller knows about a body it commits to the cache; size and checksum come from the file.
package struct NewEntry: Sendable, Equatable {
    package var url: String
    package var key: String
    package var setName: String?
    /// Sniffed from the file's first bytes when nil, unless `unchecked`.
    package var format: ImageFormat?
    /// A body stored without any check (a `validate: none` set): its row gets no format even when
    /// its bytes look like an image, and fsck then holds it to its size and checksum only.
    package var unchecked = false
    package var width: Int?
    package var height: Int?
    package var etag: String?
    package var lastModified: String?
    /// Frames the validator counted; nil when no check counted them.
    package var frames: Int?
    /// For a variant: the original's relative path and the variant's name.
    package var variantOf: String?
    package var variant: String?

    package init(
        url: String, key: String, setName: String? = nil, format: ImageFormat? = nil, width: Int? = nil,
        height: Int? = nil, etag: String? = nil, lastModified: String? = nil
    ) {
        self.url = url
        self.key = key
        self.setName = setName
        self.format = format
        self.width = width
        self.height = height
        self.etag = etag
        self.lastModified = lastModified
    }
}
