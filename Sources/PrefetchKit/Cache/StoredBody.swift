import Foundation

/// What `verify` holds an original's row to: its file's size, and its last fetch for its age.
package struct StoredBody: Sendable, Equatable {
    package var size: Int64
    /// Last fetch or revalidation.
    package var modifiedAt: Date
}
