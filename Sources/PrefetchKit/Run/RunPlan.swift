/// One URL occurrence of a job, ready to schedule: which set asked, and its cache key.
package struct PlanItem: Sendable, Equatable {
    package var url: String
    package var key: String
    /// Index into `RunPlan.sets`.
    package var setIndex: Int
    /// The URL as logs, reports and the index show it: any password and the values of the set's
    /// `redact_params` replaced by `***`.
    package var shownURL: String
    /// The digest the stored body must have, when the set's URL file gives one for this URL.
    package var expectedDigest: ExpectedDigest? = nil
}

/// The job's URLs in the order they are scheduled, streamed from the sets' sources so memory does
/// not grow with the number of URLs.
///
/// Sets go by priority (high, normal, low), file order within a priority. Within a set, `fifo`
/// keeps the source order; `lifo` takes the last URLs first within each window of `lifoWindow`
/// URLs — exact for sets up to that size, and bounded in memory for larger ones.
package struct RunPlan: Sequence, Sendable {
    package static let lifoWindow = 4096

    /// The job's sets in scheduling order.
    package let sets: [JobSet]

    package init(job: Job) {
        sets = job.sets.enumerated()
            .sorted { ($0.element.priority.rank, $0.offset) < ($1.element.priority.rank, $1.offset) }
            .map(\.element)
    }

    /// Every URL occurrence, known without iterating.
    package var count: Int { sets.reduce(0) { $0 + $1.urls.count } }

    package func makeIterator() -> Iterator {
        Iterator(sets: sets, indices: Array(sets.indices))
    }

    /// The URL occurrences of the sets of one priority only, as `makeIterator()` has them: a run of
    /// several job files takes each priority of every job before the next priority (`RunQueue`).
    package func makeIterator(priority: Priority) -> Iterator {
        Iterator(sets: sets, indices: sets.indices.filter { sets[$0].priority == priority })
    }

    package struct Iterator: IteratorProtocol {
        private let sets: [JobSet]
        /// The indices of the sets to go through, in order; `position` is the current one's place.
        private let indices: [Int]
        private var position = 0
        private var source: URLSource.Iterator?
        private var window: [URLEntry] = []
        /// The first source that could not be read to its end, if any.
        package private(set) var failure: JobDiagnostic?

        init(sets: [JobSet], indices: [Int]) {
            self.sets = sets
            self.indices = indices
        }

        package mutating func next() -> PlanItem? {
            while position < indices.count {
                let setIndex = indices[position]
                let set = sets[setIndex]
                if source == nil { source = set.urls.makeIterator() }
                if let entry = nextEntry(of: set) {
                    let url = entry.url
                    // The password hidden once, for both the key and the shown URL.
                    let keyed = URLRedaction.keyed(url)
                    return PlanItem(url: url, key: set.options.cacheKey.key(for: keyed), setIndex: setIndex,
                                    shownURL: URLRedaction.shown(keyed: keyed, hiding: set.options.redactParams),
                                    expectedDigest: entry.expectedDigest)
                }
                if let problem = source?.failure, failure == nil { failure = problem }
                source = nil
                position += 1
            }
            return nil
        }

        private mutating func nextEntry(of set: JobSet) -> URLEntry? {
            guard set.options.order == .lifo else { return source?.nextEntry() }
            if window.isEmpty {
                while window.count < RunPlan.lifoWindow, let entry = source?.nextEntry() {
                    window.append(entry)
                }
            }
            return window.popLast()
        }
    }
}
