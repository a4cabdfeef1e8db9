/// When a cached entry is revalidated with a conditional GET (`refresh:`).
package enum RefreshPolicy: String, Sendable, CaseIterable, Codable {
    case never, stale, always
}
