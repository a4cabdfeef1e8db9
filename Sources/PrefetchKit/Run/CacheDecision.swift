import Foundation

/// What to do with one cache key, decided from the index alone: shared by `run`, `--dry-run` and
/// `verify`, so the three cannot disagree.
package enum CacheDecision: Sendable, Equatable {
    /// Cached and fresh: no transfer.
    case cached(CacheEntry)
    /// Cached, but `refresh` asks for a conditional GET.
    case revalidate(CacheEntry)
    /// Not cached: fetch.
    case fetch
    /// The failure ledger says this key failed for good and is not due again yet.
    case skipFailed(FailureRecord)

    /// An entry is stale once it was last fetched or revalidated (`modifiedAt`) longer ago than
    /// `maxAge` (zero: never stale).
    package static func isStale(modifiedAt: Date, maxAge: Duration, now: Date) -> Bool {
        guard maxAge > .zero else { return false }
        return now.timeIntervalSince(modifiedAt) > maxAge.seconds
    }

    /// Stale as `verify` reports it: too old for a set that refreshes (`stale` or `always`). With
    /// `refresh: never` a run trusts the entry and counts it cached, so `verify` does too: a
    /// `run && verify` step never fails on an entry the run chose to keep.
    /// With `refresh: http`, stale by its origin's own word, as `isStale(modifiedAt:freshness:maxAge:now:)` judges.
    package static func isStale(modifiedAt: Date, refresh: RefreshPolicy, freshness: OriginFreshness = .unknown,
                                maxAge: Duration, now: Date) -> Bool {
        switch refresh {
        case .never: false
        case .stale, .always: isStale(modifiedAt: modifiedAt, maxAge: maxAge, now: now)
        case .http: isStale(modifiedAt: modifiedAt, freshness: freshness, maxAge: maxAge, now: now)
        }
    }

    /// Stale for `refresh: http`: past the freshness its origin gave this body (`no-cache`: at once);
    /// when the response gave none, older than `maxAge`, as `stale` judges; with no freshness recorded
    /// for this body (stored by a set that does not record it, or by an older prefetchd), stale, so
    /// that the run revalidates it once and records what the origin says.
    package static func isStale(modifiedAt: Date, freshness: OriginFreshness, maxAge: Duration, now: Date) -> Bool {
        switch freshness {
        case .unknown: true
        case .recorded(let until?): now >= until
        case .recorded(nil): isStale(modifiedAt: modifiedAt, maxAge: maxAge, now: now)
        }
    }

    /// Whether a run keeps a cached entry last fetched or revalidated at `modifiedAt` as it is
    /// (`.cached`) rather than revalidating it; `freshness` counts only for `refresh: http`.
    package static func keeps(modifiedAt: Date, refresh: RefreshPolicy, freshness: OriginFreshness = .unknown,
                              maxAge: Duration, now: Date) -> Bool {
        switch refresh {
        case .never: true
        case .always: false
        case .stale: !isStale(modifiedAt: modifiedAt, maxAge: maxAge, now: now)
        case .http: !isStale(modifiedAt: modifiedAt, freshness: freshness, maxAge: maxAge, now: now)
        }
    }

    package static func decide(entry: CacheEntry?, failure: FailureRecord?, options: JobOptions,
                              maxAge: Duration, now: Date, freshness: OriginFreshness = .unknown) -> CacheDecision {
        if let entry {
            let kept = keeps(modifiedAt: entry.modifiedAt, refresh: options.refresh, freshness: freshness, maxAge: maxAge, now: now)
            return kept ? .cached(entry) : .revalidate(entry)
        }
        if let failure, !options.retryFailed, let due = failure.nextRetryAt, due > now {
            return .skipFailed(failure)
        }
        return .fetch
    }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    package var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
