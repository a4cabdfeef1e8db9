internal import CSQLite
import Foundation

/// Owns one `sqlite3*` connection; closed when the last reference goes.
/// Not Sendable: `CacheIndex` keeps it behind a Mutex.
final class IndexDatabase {
    let handle: OpaquePointer
    let path: String

    /// Opens (creating if needed) the database file at `path`.
    init(path: String) throws(CacheError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw .index(operation: "open \(path)", code: code, message: message)
        }
        self.handle = db
        self.path = path
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit {
        // close_v2 defers the close until every statement is finalised.
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(CacheError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, "run \(sql.prefix(60))") }
    }

    /// Runs a statement whose first row's first column is text (PRAGMA answers).
    func text(_ sql: String) throws(CacheError) -> String? {
        let statement = try IndexStatement(self, sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    func error(_ code: Int32, _ operation: String) -> CacheError {
        .index(operation: operation, code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    var changes: Int { Int(sqlite3_changes(handle)) }
}
