// The small value types that every area of prefetchd speaks: job files produce them,
// the fetcher, validator and cache consume them. Raw values are the job-file spellings.

/// An image format prefetchd can recognise by its magic bytes.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, gif, webp
}

/// How hard a downloaded body is checked before it is stored (`validate:`).
public enum ValidationLevel: String, Sendable, CaseIterable, Codable {
    /// Stored as received.
    case none
    /// Magic bytes must name an accepted format.
    case sniff
    /// Sniff, then dimensions read from the header and checked against the limits.
    case header
    /// Header, then a full decode with libpng or libjpeg-turbo.
    case decode
}

/// How cached files are named on disk (`cache.layout:`).
public enum CacheLayout: String, Sendable, CaseIterable, Codable {
    /// Fanned out into subfolders by hash prefix.
    case native
    /// Flat MD5(key)+extension names, as SDImageCache writes them.
    case sdwebimage
}

/// Which date of an entry its age is measured from (`cache.expire_by:`).
public enum ExpiryClock: String, Sendable, CaseIterable, Codable {
    case access, modification, creation
}

/// A set's priority; higher priorities are fetched first.
public enum Priority: String, Sendable, CaseIterable, Codable, Comparable {
    case high, normal, low

    /// Smaller rank goes first.
    public var rank: Int {
        switch self {
        case .high: 0
        case .normal: 1
        case .low: 2
        }
    }

    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rank < rhs.rank }
}

/// Order within one priority (`order:`).
public enum QueueOrder: String, Sendable, CaseIterable, Codable {
    case fifo, lifo
}

/// When a cached entry is revalidated with a conditional GET (`refresh:`).
public enum RefreshPolicy: String, Sendable, CaseIterable, Codable {
    case never, stale, always
}

/// What a header read or a decode learned about an image.
public struct ImageInfo: Sendable, Equatable, Codable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int

    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    public var pixels: Int { width * height }
}
