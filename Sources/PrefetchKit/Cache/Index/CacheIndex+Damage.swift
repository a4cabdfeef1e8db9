import Foundation

/// Damage deeper in the index file than opening it reads (the first page and the schema): a page
/// zeroed or overwritten inside a table or one of its indexes, which makes every command that reaches
/// it fail. `fsck` looks for it with SQLite's quick check, which reads every page of the file, and
/// `fsck --repair` has the index set aside and made again from the files (`DiskCache.open(damaged:)`).
extension CacheIndex {
    /// Nil when SQLite finds the index sound; else what it found first.
    func damage() throws(CacheError) -> String? {
        do {
            let found = try withConnection { connection throws(CacheError) in
                try connection.query("PRAGMA quick_check(1)", []) { $0.text(0) ?? "" }
            }
            guard found != ["ok"] else { return nil }
            // One line: SQLite heads its list with the database's name and may break a finding over lines.
            return found.joined(separator: " ").replacingOccurrences(of: "*** in database main ***", with: "")
                .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        } catch where error.isDamagedIndex {
            return String(error.indexFailure.dropLast())
        }
    }
}
