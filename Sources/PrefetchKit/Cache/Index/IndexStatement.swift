internal import CSQLite
import Foundation

/// Owns one prepared statement; finalised in deinit. Binds are 1-based, columns 0-based, as in SQLite.
final class IndexStatement {
    private let database: IndexDatabase
    private let handle: OpaquePointer
    private let sql: String

    init(_ database: IndexDatabase, _ sql: String) throws(CacheError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw database.error(code, "prepare \(sql.prefix(60))")
        }
        self.database = database
        self.handle = statement
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Clears earlier bindings and results so the statement can run again.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ index: Int32, _ value: String?) throws(CacheError) {
        let code: Int32
        if var value {
            // The string's own UTF-8 bytes with their length: passed as a C string, a short one was
            // copied into a new allocation first (nine binds a stored entry). SQLITE_TRANSIENT: SQLite
            // copies the bytes before the call returns.
            code = value.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_bind_text(handle, index, chars.baseAddress ?? Self.emptyText, Int32(chars.count),
                                      unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                }
            }
        } else {
            code = sqlite3_bind_null(handle, index)
        }
        try check(code, "bind")
    }

    /// A text of no bytes: a null pointer would bind NULL instead.
    private static var emptyText: UnsafePointer<CChar> {
        UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
    }

    func bind(_ index: Int32, _ value: Int64?) throws(CacheError) {
        let code = value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(code, "bind")
    }

    func bind(_ index: Int32, _ value: Int?) throws(CacheError) {
        try bind(index, value.map(Int64.init))
    }

    func bind(_ index: Int32, _ value: Double?) throws(CacheError) {
        let code = value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(code, "bind")
    }

    func bind(_ index: Int32, _ value: Date?) throws(CacheError) {
        try bind(index, value?.timeIntervalSince1970)
    }

    /// Binds every value in order, starting at parameter 1.
    func bind(_ values: [IndexValue]) throws(CacheError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .text(let text): try bind(index, text)
            case .integer(let integer): try bind(index, integer)
            case .real(let real): try bind(index, real)
            }
        }
    }

    /// Advances to the next row; false when done.
    func step() throws(CacheError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(code, "run \(sql.prefix(60))")
        }
    }

    /// Binds, runs to completion and resets: for statements that return no rows.
    func run(_ values: [IndexValue]) throws(CacheError) {
        try run { statement throws(CacheError) in try statement.bind(values) }
    }

    /// The same, with the parameters bound by `bind` one by one (no array of values made).
    func run(binding bind: (IndexStatement) throws(CacheError) -> Void) throws(CacheError) {
        reset()
        defer { reset() }
        try bind(self)
        while try step() {}
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: bytes)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column's text as UTF-8 bytes, valid until the next step or reset; nil when it is not text.
    func textBytes(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT, let text = sqlite3_column_text(handle, column) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// The column as whatever type it holds.
    func value(_ column: Int32) -> IndexValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer(int64(column))
        case SQLITE_FLOAT: .real(double(column))
        default: .text(text(column))
        }
    }

    func int(_ column: Int32) -> Int? { isNull(column) ? nil : Int(int64(column)) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func date(_ column: Int32) -> Date? {
        isNull(column) ? nil : Date(timeIntervalSince1970: double(column))
    }

    private func check(_ code: Int32, _ operation: String) throws(CacheError) {
        guard code == SQLITE_OK else { throw database.error(code, operation) }
    }
}

/// A value bound to a statement parameter; nil optionals become `.text(nil)`.
enum IndexValue: Hashable {
    case text(String?)
    case integer(Int64?)
    case real(Double?)

    static func date(_ date: Date?) -> IndexValue { .real(date?.timeIntervalSince1970) }
    static func int(_ value: Int?) -> IndexValue { .integer(value.map(Int64.init)) }
    /// `[1,2,3]`: a list of ids bound as one parameter and read back by `json_each`.
    static func idList(_ ids: some Collection<Int64>) -> IndexValue {
        .text("[" + ids.map(String.init).joined(separator: ",") + "]")
    }

    /// `[["ab/cd.jpg",1764600000.25],...]`: relative paths with their access times, bound as one
    /// parameter and read back by `json_each` (a Double's description reads back as the same Double).
    static func touchList(_ touches: some Sequence<(String, Double)>) -> IndexValue {
        timedList(touches, bytesEach: 96) { path, json in appendString(path, to: &json) }
    }

    /// `[[id,1764600000.25],...]`: row ids with their access times, as `touchList`.
    static func rowTimeList(_ uses: some Sequence<(Int64, Double)>) -> IndexValue {
        timedList(uses, bytesEach: 48) { id, json in appendBytes(of: String(id), to: &json) }
    }

    /// `[[first,time],...]`, each first written by `append`.
    private static func timedList<First>(
        _ pairs: some Sequence<(First, Double)>, bytesEach: Int, append: (First, inout [UInt8]) -> Void
    ) -> IndexValue {
        var json: [UInt8] = [UInt8(ascii: "[")]
        json.reserveCapacity(pairs.underestimatedCount * bytesEach)
        for (first, time) in pairs {
            if json.count > 1 { json.append(UInt8(ascii: ",")) }  // after the first pair
            json.append(UInt8(ascii: "["))
            append(first, &json)
            json.append(UInt8(ascii: ","))
            appendBytes(of: time.description, to: &json)
            json.append(UInt8(ascii: "]"))
        }
        json.append(UInt8(ascii: "]"))
        return .text(String(decoding: json, as: UTF8.self))
    }

    /// `["a","b"]`: a list of texts bound as one parameter and read back by `json_each`.
    static func textList(_ texts: [String]) -> IndexValue {
        var json: [UInt8] = [UInt8(ascii: "[")]
        json.reserveCapacity(texts.reduce(2) { $0 + $1.utf8.count + 3 })
        for text in texts {
            if json.count > 1 { json.append(UInt8(ascii: ",")) }  // after the first text
            appendString(text, to: &json)
        }
        json.append(UInt8(ascii: "]"))
        return .text(String(decoding: json, as: UTF8.self))
    }

    /// `text` as a JSON string, quoted, with quotes, backslashes and control characters escaped. Bytes,
    /// not String appends: a warm rerun's uses and `verify`'s paths are listed a batch at a time.
    private static func appendString(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        var text = text
        // Read in place: the bytes of a native string through its UTF-8 view cost far more.
        let plain = text.withUTF8 { !$0.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") } }
        if plain {
            appendBytes(of: text, to: &json)
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": json += Array("\\\"".utf8)
                case "\\": json += Array("\\\\".utf8)
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    json += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                default: json += Array(String(scalar).utf8)
                }
            }
        }
        json.append(UInt8(ascii: "\""))
    }

    /// `text`'s UTF-8 bytes, copied in one go.
    private static func appendBytes(of text: String, to json: inout [UInt8]) {
        var text = text
        text.withUTF8 { json.append(contentsOf: $0) }
    }
}
