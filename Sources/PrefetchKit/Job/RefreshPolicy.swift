/// When a cached entry is revalidated with a conditional GET (`refresh:`): never; once older than
/// `cache.max_age`; always; or once the freshness its origin gave it (`Cache-Control`, `Expires`,
/// recorded per entry) has run out.
package enum RefreshPolicy: String, Sendable, CaseIterable, Codable {
    case never, stale, always, http
}
