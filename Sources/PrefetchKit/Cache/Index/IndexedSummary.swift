import Foundation

/// What a run decides a cached key by, read from its row without any of its texts
/// (`CacheIndex.summaries(relativePaths:)`): the row id its use is recorded by, the size its file is
/// checked against, the last fetch or revalidation its age is judged by, and whether the row has the
/// URL. A warm rerun spent more making each whole row's texts, and releasing them, than deciding on
/// them (bench/RESULTS.md, "A warm run decided from its rows' numbers").
struct IndexedSummary: Sendable, Equatable {
    let id: Int64
    let size: Int64
    let modifiedAt: Date
    let hasURL: Bool
}
