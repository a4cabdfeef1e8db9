internal import CSQLite
import Synchronization
internal import CShims
import Foundation

/// Owns one `sqlite3*` connection; closed when the last reference goes.
/// Not Sendable: `CacheIndex` keeps it behind its lock.
final class IndexDatabase {
    let handle: OpaquePointer
    let path: String
    /// How long one statement waits for another connection's write lock before it fails as busy.
    static let busyTimeout: Duration = .seconds(5)
    private let busyWait = BusyWait()

    /// How a connection opens its file.
    enum Access {
        /// Reads and writes, creating the file when needed.
        case readWrite
        /// Reads only, through the `-wal` and `-shm` files already there (see `CacheIndex.openSnapshot`).
        case readOnly
        /// Reads the file alone, as if nothing could change it: no lock, no `-wal` or `-shm` file.
        case immutable
    }

    /// SQLite set up once, before its first connection: without memory statistics, whose global mutex
    /// every allocation takes (a clean's reading thread waited there for its main thread; a run's
    /// reader, writer and uses' queue for one another). Nothing here reads those statistics.
    private static let configured: Void = { _ = pf_sqlite_without_memory_statistics() }()

    /// Opens the database file at `path` for `access`.
    init(path: String, access: Access = .readWrite) throws(CacheError) {
        _ = Self.configured
        var db: OpaquePointer?
        let flags = switch access {
        case .readWrite: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        case .readOnly: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        case .immutable: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        }
        let code = sqlite3_open_v2(access == .immutable ? Self.immutableURI(path) : path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw .index(operation: "open \(path)", code: code, message: message)
        }
        self.handle = db
        self.path = path
        IndexRowID.register(on: db)
        // Waits up to `busyTimeout` for another connection's write lock, retrying every 200 µs rather
        // than with SQLite's growing sleeps (up to 100 ms): a process that writes in back-to-back batch
        // transactions (a run) frees the lock only for the moment between a commit and its next
        // write, and a waiter (a clean, another run) must try often enough to get in there.
        sqlite3_busy_handler(db, { context, attempts in
            guard let context else { return 0 }
            return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().retries(after: attempts) ? 1 : 0
        }, Unmanaged.passUnretained(busyWait).toOpaque())
    }

    /// `path` as an SQLite URI that opens it immutable: no lock, no `-wal` or `-shm` file.
    private static func immutableURI(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file:" + escaped + "?immutable=1"
    }

    /// Runs `body` with the busy handler waiting at most `timeout` instead of `busyTimeout`.
    func waitingAtMost<Result>(_ timeout: Duration, _ body: () -> Result) -> Result {
        busyWait.timeout = timeout
        busyWait.timedByCaller = true
        defer {
            busyWait.timeout = Self.busyTimeout
            busyWait.timedByCaller = false
        }
        return body()
    }

    /// From now on a write meeting another connection's lock does not wait for it, unless a caller
    /// gives its own wait (`waitingAtMost`): the process is stopping. Callable from any thread, also
    /// while this connection waits (that wait ends).
    func shortenWaits() {
        busyWait.stopping.store(true, ordering: .releasing)
    }

    /// The busy handler's clock, one per connection (used by one thread at a time, as the connection
    /// is). Counted in time, not attempts: a 200 µs sleep takes two to three times that on a busy
    /// machine, so a count of attempts meant as 5 s would wait far longer.
    private final class BusyWait {
        private var started = ContinuousClock.now
        var timeout = IndexDatabase.busyTimeout
        var timedByCaller = false
        let stopping = Atomic<Bool>(false)

        /// Sleeps and returns true while the current wait is under `timeout` (none once stopping,
        /// unless a caller set its own).
        func retries(after attempts: Int32) -> Bool {
            if attempts == 0 { started = .now }
            guard timedByCaller || !stopping.load(ordering: .acquiring), ContinuousClock.now - started < timeout else { return false }
            usleep(200)
            return true
        }
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

    /// The error for a failed `operation`, which may be a whole statement: named by its first line
    /// (at most 60 characters, cut at a word's end), so the message stays one line. A failure of the
    /// disk under the index (SQLite's I/O and full errors) names the system's reason too: "disk I/O
    /// error" alone does not say that the disk is full. (Not a failure to open: SQLite's last call there may be a read-only retry.)
    /// SQLITE_FULL after a short write (the disk had room for part of a WAL frame) comes without a
    /// system reason: it is the disk's ENOSPC all the same, and said so (prefetchd never sets a page
    /// limit, the one other source of SQLITE_FULL).
    func error(_ code: Int32, _ operation: String) -> CacheError {
        let firstLine = operation.prefix { $0 != "\n" }.trimmingCharacters(in: .whitespaces)
        // Cut at a word's end, not inside one (`ON CONFLICT(ke…`).
        let head = firstLine.prefix(60)
        let named = firstLine.count > 60 ? (head.lastIndex(of: " ").map { String(head[..<$0]) } ?? String(head)) + " …" : firstLine
        var message = String(cString: sqlite3_errmsg(handle))
        let system = sqlite3_system_errno(handle)
        if [SQLITE_IOERR, SQLITE_FULL].contains(code & 0xff) && system != 0 {
            message += ": " + String(cString: strerror(system))
        } else if code & 0xff == SQLITE_FULL {
            message += ": " + String(cString: strerror(ENOSPC))
        }
        return .index(operation: String(named), code: code, message: message)
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows this connection has inserted, updated or deleted since it opened.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// The row id of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
}
