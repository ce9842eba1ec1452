import CSQLite
import Foundation

/// A value read back from SQLite by the tests, independently of the importer.
enum SQLValue: Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A minimal SQLite connection for the tests: writes generated stores and reads fixtures'
/// copies, with its own code so that the importer is checked against a second reading.
final class TestSQLite {
    private var db: OpaquePointer?
    let path: String

    init(path: String) throws {
        self.path = path
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            throw TestSQLiteError(message: "cannot open \(path)")
        }
    }

    deinit { close() }

    func close() {
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "?"
            sqlite3_free(error)
            throw TestSQLiteError(message: "\(message) in \(sql.prefix(200))")
        }
    }

    /// Runs `sql` with `values` bound (integers, reals, texts, blobs, nulls) once.
    func run(_ sql: String, _ values: [SQLValue]) throws {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw TestSQLiteError(message: String(cString: sqlite3_errmsg(db)) + " in \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (i, v) in values.enumerated() {
            let at = Int32(i + 1)
            switch v {
            case .null: sqlite3_bind_null(statement, at)
            case let .integer(x): sqlite3_bind_int64(statement, at, x)
            case let .real(x): sqlite3_bind_double(statement, at, x)
            case let .text(x): sqlite3_bind_text(statement, at, x, -1, transient)
            case let .blob(x) where x.isEmpty: sqlite3_bind_zeroblob(statement, at, 0)  // a nil pointer binds NULL
            case let .blob(x):
                _ = x.withUnsafeBytes { sqlite3_bind_blob(statement, at, $0.baseAddress, Int32(x.count), transient) }
            }
        }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw TestSQLiteError(message: String(cString: sqlite3_errmsg(db)) + " in \(sql)")
        }
    }

    func rows(_ sql: String) throws -> [[SQLValue]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw TestSQLiteError(message: String(cString: sqlite3_errmsg(db)) + " in \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[SQLValue]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            var row: [SQLValue] = []
            for i in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, i) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, i)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, i)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, i))))
                case SQLITE_BLOB:
                    let n = Int(sqlite3_column_bytes(statement, i))
                    row.append(.blob(n == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, i), count: n)))
                default: row.append(.null)
                }
            }
            result.append(row)
        }
        return result
    }

    func columns(of table: String) throws -> [String] {
        try rows("PRAGMA table_info(\"\(table)\")").compactMap {
            if case let .text(n) = $0[1] { return n } else { return nil }
        }
    }
}

struct TestSQLiteError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
