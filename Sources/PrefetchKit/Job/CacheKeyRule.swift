import Foundation

/// How a URL becomes a cache key (`cache_key:`), like SDWebImage's cacheKeyFilter.
/// Two URLs with the same key are one cache entry.
package enum CacheKeyRule: Sendable, Equatable {
    /// The absolute URL as written.
    case none
    /// Removes the named query parameters, keeping the others in order; `?` goes when none are left.
    case dropParams([String])
    /// Drops the query and the fragment.
    case stripQuery

    package func key(for url: String) -> String {
        switch self {
        case .none:
            return url
        case .stripQuery:
            return String(url.prefix { $0 != "?" && $0 != "#" })
        case .dropParams(let names):
            guard let questionMark = url.firstIndex(of: "?") else { return url }
            let base = url[..<questionMark]
            let afterQuery = url[url.index(after: questionMark)...]
            let fragmentStart = afterQuery.firstIndex(of: "#") ?? afterQuery.endIndex
            let fragment = afterQuery[fragmentStart...]
            let kept = afterQuery[..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false)
                .filter { pair in
                    let name = pair.prefix { $0 != "=" }
                    let decoded = String(name).removingPercentEncoding ?? String(name)
                    return !names.contains(decoded)
                }
            let query = kept.joined(separator: "&")
            return base + (query.isEmpty ? "" : "?" + query) + fragment
        }
    }
}
