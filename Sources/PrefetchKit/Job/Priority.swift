/// A set's priority; higher priorities are fetched first.
package enum Priority: String, Sendable, CaseIterable, Codable, Comparable {
    case high, normal, low

    /// Smaller rank goes first.
    package var rank: Int {
        switch self {
        case .high: 0
        case .normal: 1
        case .low: 2
        }
    }

    package static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rank < rhs.rank }
}

/// Order within one priority (`order:`).
package enum QueueOrder: String, Sendable, CaseIterable, Codable {
    case fifo, lifo
}
