// A read-only view of one SQLite database through SQLite's C library: just what reading a Core
// Data store needs (prepared statements, stepping rows, typed column reads, integer binds).
//
// Invariants:
//  SQ1. The database is opened on the importer's private copy of a store, never on the user's
//       files (CoreDataImport copies `X`, `X-wal`, `X-shm` first): SQLite replays the copy's
//       WAL, and whatever it writes (a checkpoint, a rebuilt `-shm`) touches only the copy.
//  SQ2. Every statement is finalized before the database is closed (`SQLiteStatement.deinit`
//       and `close`), and a statement is used by one thread at a time: the importer runs on
//       the caller's thread only.

import CSQLite
import Foundation

/// One SQLite connection (SQ1, SQ2).
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    let path: String

    /// Opens the database file at `path` (a private copy, SQ1).
    init(path: String) throws(CoreDataImportError) {
        self.path = path
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw .unreadableStore(path: path, detail: "SQLite cannot open it: \(message) (\(rc))")
        }
        handle = db
    }

    deinit { close() }

    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// A prepared statement for `sql`.
    func prepare(_ sql: String) throws(CoreDataImportError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw .unreadableStore(path: path, detail: "\(errorMessage) (\(rc)) in: \(sql)")
        }
        return SQLiteStatement(statement: statement, database: self, sql: sql)
    }

    var errorMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed" }

    /// Every row of `sql`, as `read` maps it (for the small bookkeeping tables only).
    func rows<T>(
        _ sql: String, _ read: (SQLiteStatement) throws(CoreDataImportError) -> T
    ) throws(CoreDataImportError)
        -> [T]
    {
        let statement = try prepare(sql)
        var result: [T] = []
        while try statement.step() { result.append(try read(statement)) }
        return result
    }

    /// The names of the database's tables (views and SQLite's own tables left out).
    func tableNames() throws(CoreDataImportError) -> [String] {
        try rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") {
            $0.text(0) ?? ""
        }
    }

    /// The columns of `table`, in declaration order.
    func columns(of table: String) throws(CoreDataImportError) -> [String] {
        try rows("PRAGMA table_info(\(SQLiteDatabase.quote(table)))") { $0.text(1) ?? "" }
    }

    /// An identifier quoted for SQL.
    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

/// The storage class of one column value (SQLite's `sqlite3_column_type`).
enum SQLiteValueType {
    case integer, real, text, blob, null
}

/// One prepared statement of a `SQLiteDatabase`.
final class SQLiteStatement {
    private var statement: OpaquePointer?
    private let database: SQLiteDatabase
    let sql: String

    init(statement: OpaquePointer, database: SQLiteDatabase, sql: String) {
        self.statement = statement
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Advances to the next row; false when there is none.
    func step() throws(CoreDataImportError) -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw .unreadableStore(path: database.path, detail: "\(database.errorMessage) (\(rc)) in: \(sql)")
    }

    /// Starts the statement over, with `values` bound to its parameters.
    func reset(binding values: [Int64] = []) {
        sqlite3_reset(statement)
        for (i, v) in values.enumerated() { sqlite3_bind_int64(statement, Int32(i + 1), v) }
    }

    func type(_ column: Int) -> SQLiteValueType {
        switch sqlite3_column_type(statement, Int32(column)) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    func isNull(_ column: Int) -> Bool { type(column) == .null }

    func int64(_ column: Int) -> Int64 { sqlite3_column_int64(statement, Int32(column)) }

    func double(_ column: Int) -> Double { sqlite3_column_double(statement, Int32(column)) }

    /// The column as an integer, nil when NULL.
    func optionalInt64(_ column: Int) -> Int64? { isNull(column) ? nil : int64(column) }

    func text(_ column: Int) -> String? {
        guard let bytes = sqlite3_column_text(statement, Int32(column)) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func blob(_ column: Int) -> Data {
        let count = Int(sqlite3_column_bytes(statement, Int32(column)))
        guard count > 0, let bytes = sqlite3_column_blob(statement, Int32(column)) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
