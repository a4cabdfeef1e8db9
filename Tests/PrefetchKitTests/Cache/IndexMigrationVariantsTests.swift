import Foundation
import Testing
@testable import PrefetchKit

/// Schema 11 to 12: an index as schema 11 left it gains the variant columns and their index on open,
/// keeping its rows, which are all originals.
@Suite struct IndexMigrationVariantsTests {
    @Test func aSchema11IndexIsUpgradedInPlaceKeepingItsRows() throws {
        try TemporaryDirectory.withPath { folder in
            // Given an index of two entries put back to schema 11 (no variant columns, no variant index)
            let keys: [String]
            do {
                let cache = try DiskCache.open(at: folder, layout: .native)
                keys = try fillCache(cache, count: 2)
                try cache.flush()
            }
            let database = try IndexDatabase(path: folder + "/index.sqlite")
            try database.execute("""
                DROP INDEX entries_variant_of;
                ALTER TABLE entries DROP COLUMN variant_of;
                ALTER TABLE entries DROP COLUMN variant;
                UPDATE meta SET value = '11' WHERE key = 'schema_version';
                """)
            #expect(try database.text("SELECT count(*) FROM pragma_table_info('entries') WHERE name = 'variant_of'") == "0")

            // When this prefetchd opens it to write
            let cache = try DiskCache.open(at: folder, layout: .native)

            // Then it is the current schema (12 and on), with the columns, the partial index and every row, none a variant
            #expect(try database.text("SELECT value FROM meta WHERE key = 'schema_version'") == IndexConnection.schemaVersion)
            #expect(try database.text("SELECT count(*) FROM pragma_table_info('entries') WHERE name IN ('variant_of', 'variant')") == "2")
            #expect(try database.text("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'entries_variant_of'") == "1")
            for key in keys {
                let entry = try #require(try cache.lookup(key: key))
                #expect(entry.variantOf == nil && entry.variant == nil)
            }
            #expect(try cache.index.variantTotal().entries == 0)
        }
    }
}
