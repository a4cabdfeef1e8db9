/// How hard a downloaded body is checked before it is stored (`validate:`).
package enum ValidationLevel: String, Sendable, CaseIterable, Codable {
    /// Stored as received.
    case none
    /// Magic bytes must name an accepted format.
    case sniff
    /// Sniff, then dimensions read from the header and checked against the limits.
    case header
    /// Header, then a full decode with libpng or libjpeg-turbo.
    case decode
}
