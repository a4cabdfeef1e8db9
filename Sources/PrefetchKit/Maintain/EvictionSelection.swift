/// What `prefetchd remove` takes: a condition on the entries table, checked again inside each removal
/// batch as a clean's rules are, and one on the failure ledger for the same URLs.
package struct EvictionSelection: Sendable {
    let entries: RemovalRule
    let ledger: RemovalRule

    /// The entries of `keys` (by the relative path each names in `cache`'s layout) with their variants
    /// (those of a `keep_original: false` set too, which have no original), and those stored under one
    /// of `storedURLs` (the `url` column, as runs show it), and the ledger lines of either.
    package static func urls(keys: [String], storedURLs: [String], in cache: DiskCache) -> EvictionSelection {
        let listed = "IN (SELECT value FROM json_each(?))"
        let shown = IndexValue.textList(storedURLs)
        let paths = IndexValue.textList(keys.map(cache.relativePath(forKey:)))
        return EvictionSelection(
            entries: RemovalRule(condition: "(relative_path \(listed) OR variant_of \(listed) OR url \(listed))",
                                 values: [paths, paths, shown]),
            ledger: RemovalRule(condition: "(cache_key \(listed) OR url \(listed))", values: [.textList(keys), shown]))
    }

    /// The entries a set stored, and the ledger lines of their keys.
    package static func set(_ name: String) -> EvictionSelection {
        EvictionSelection(
            entries: RemovalRule(condition: "set_name = ?", values: [.text(name)]),
            ledger: RemovalRule(condition: "cache_key IN (SELECT cache_key FROM entries WHERE set_name = ?)", values: [.text(name)]))
    }

    /// The entries and ledger lines whose URL's host is `host`, as stats' hosts are written: lower
    /// case, with the port when the URL has one.
    package static func host(_ host: String) -> EvictionSelection {
        let rule = RemovalRule(condition: "\(IndexTotals.host(of: "url")) = ?", values: [.text(host.lowercased())])
        return EvictionSelection(entries: rule, ledger: rule)
    }

    /// Every entry and ledger line.
    package static let all = EvictionSelection(
        entries: RemovalRule(condition: "1", values: []), ledger: RemovalRule(condition: "1", values: []))
}
