/// `clean` in the JSON log: the `limits` it applies, as its first event, and its figures as the
/// fields of its closing `summary`.
extension CleanReport {
    /// The `summary`'s own fields: `dry_run`, and `totals` with each step's entries and bytes of file
    /// data, the folders the orphan sweep visited, and the cache's bytes before and after.
    package var summaryFields: Summary { Summary(report: self) }

    package struct Summary: Sendable, Encodable {
        let report: CleanReport

        enum Key: String, CodingKey {
            case dryRun = "dry_run", totals
        }

        enum TotalsKey: String, CodingKey {
            case removed, expired, trimmed, foreign, orphans
            case sweptTemp = "swept_temp"
            case missingFiles = "missing_files"
            case sweptFolders = "swept_folders"
            case totalFolders = "total_folders"
            case bytesBefore = "bytes_before"
            case bytesAfter = "bytes_after"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(report.dryRun, forKey: .dryRun)
            var totals = container.nestedContainer(keyedBy: TotalsKey.self, forKey: .totals)
            try totals.encode(report.freed, forKey: .removed)
            try totals.encode(report.expired, forKey: .expired)
            try totals.encode(report.trimmed, forKey: .trimmed)
            try totals.encode(report.sweptTemp, forKey: .sweptTemp)
            try totals.encode(report.missingFiles, forKey: .missingFiles)
            try totals.encode(report.orphans, forKey: .orphans)
            try totals.encode(report.foreign, forKey: .foreign)
            try totals.encode(report.sweptFolders, forKey: .sweptFolders)
            try totals.encode(report.totalFolders, forKey: .totalFolders)
            try totals.encode(report.bytesBefore, forKey: .bytesBefore)
            try totals.encode(report.bytesAfter, forKey: .bytesAfter)
        }
    }
}

extension ResolvedLimits {
    /// `{"event":"limits","max_size":4000,"max_age_ms":604800000,"expire_by":"access","trim_to":0.8,
    /// "sources":{"max_size":"recorded",...}}`: the limits a clean applies (`max_size` in bytes, 0 for
    /// no cap; `max_age_ms` 0 for never) and where each came from.
    package var event: Event { Event(limits: self) }

    package struct Event: Sendable, Encodable {
        let limits: ResolvedLimits

        enum Key: String, CodingKey {
            case event, sources
            case maxSize = "max_size"
            case maxAgeMs = "max_age_ms"
            case expireBy = "expire_by"
            case trimTo = "trim_to"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("limits", forKey: .event)
            try container.encode(limits.limits.maxSize, forKey: .maxSize)
            try container.encode(Milliseconds.of(limits.limits.maxAge), forKey: .maxAgeMs)
            try container.encode(limits.limits.expireBy.rawValue, forKey: .expireBy)
            try container.encode(limits.limits.trimTo, forKey: .trimTo)
            var sources = container.nestedContainer(keyedBy: CacheLimits.Field.self, forKey: .sources)
            for field in CacheLimits.Field.allCases {
                try sources.encode(limits.source(field).rawValue, forKey: field)
            }
        }
    }
}
