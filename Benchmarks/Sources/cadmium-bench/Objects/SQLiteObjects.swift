import CSQLite
import Foundation

// SQLite C at the object level: the Employee table with an index on salary and one on the
// department foreign key, prepared statements, explicit transactions. The floor under GRDB.

final class SQLiteObjects: ObjectSystem {
    let db: SQLiteEngine

    /// The schema GRDB and SQLite C share, but for the date column: GRDB's Codable records store
    /// a `Date` as text ("yyyy-MM-dd HH:mm:ss.SSS"), a C program as seconds since 1970 (REAL).
    static func createSchema(dateType: String = "TEXT", _ exec: (String) throws -> Void) throws {
        try exec("CREATE TABLE IF NOT EXISTS department(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try exec(
            """
            CREATE TABLE IF NOT EXISTS employee(id INTEGER PRIMARY KEY, name TEXT NOT NULL, salary INTEGER NOT NULL,
              departmentId INTEGER NOT NULL REFERENCES department(id), hired \(dateType) NOT NULL, notes TEXT NOT NULL)
            """)
        try exec("CREATE INDEX IF NOT EXISTS employee_salary ON employee(salary)")
        try exec("CREATE INDEX IF NOT EXISTS employee_department ON employee(departmentId)")
    }

    init(path: String, durable: Bool) throws {
        db = try SQLiteEngine(path: path, durable: durable, cacheBytes: 64 << 20, schema: nil)
        try Self.createSchema(dateType: "REAL", db.exec)
    }

    /// Another connection to an existing database, waiting for the write lock with a busy timeout.
    private init(connectingTo path: String) throws {
        db = try SQLiteEngine(path: path, durable: true, cacheBytes: 64 << 20, schema: nil)
        sqlite3_busy_timeout(db.db, 600_000)
    }

    private func bindText(_ stmt: OpaquePointer, _ i: Int32, _ s: String) {
        _ = sqlite3_bind_text(stmt, i, s, -1, cadmium_sqlite_transient())
    }

    private func insertOne(_ e: EmployeeData, _ stmt: OpaquePointer) throws {
        sqlite3_bind_int64(stmt, 1, e.id)
        bindText(stmt, 2, e.name)
        sqlite3_bind_int64(stmt, 3, e.salary)
        sqlite3_bind_int64(stmt, 4, e.department)
        sqlite3_bind_double(stmt, 5, e.hired.timeIntervalSince1970)
        bindText(stmt, 6, e.notes)
        try db.step(stmt, expecting: SQLITE_DONE)
        sqlite3_reset(stmt)
    }

    private static let insertSQL =
        "INSERT INTO employee(id, name, salary, departmentId, hired, notes) VALUES(?, ?, ?, ?, ?, ?)"

    func insert(_ employees: [EmployeeData], withDepartments: Bool) throws {
        try db.exec("BEGIN")
        if withDepartments {
            let d = try db.prepared("INSERT INTO department(id, name) VALUES(?, ?)")
            for i in 1...EmployeeData.departments {
                sqlite3_bind_int64(d, 1, Int64(i)); bindText(d, 2, "Department \(i)")
                try db.step(d, expecting: SQLITE_DONE); sqlite3_reset(d)
            }
        }
        let stmt = try db.prepared(Self.insertSQL)
        for e in employees { try insertOne(e, stmt) }
        try db.exec("COMMIT")
    }

    func insertEach(_ employees: [EmployeeData]) throws {
        let stmt = try db.prepared(Self.insertSQL)
        let begin = try db.prepared("BEGIN IMMEDIATE"), commit = try db.prepared("COMMIT")
        for e in employees {
            try db.step(begin, expecting: SQLITE_DONE); sqlite3_reset(begin)
            try insertOne(e, stmt)
            try db.step(commit, expecting: SQLITE_DONE); sqlite3_reset(commit)
        }
    }

    /// One connection per thread (SQLite's unit of concurrency), each waiting for the write lock;
    /// every commit still pays its own fsync.
    func insertConcurrently(_ employees: [EmployeeData], writers: Int) throws {
        let connections = try (0..<writers).map { _ in SendableConnection(try SQLiteObjects(connectingTo: db.path)) }
        try runThreads(writers) { w in
            try connections[w].value.insertEach(share(of: employees, writer: w, writers: writers))
        }
        for c in connections { try c.value.close() }
    }

    /// Reads a full employee row (id, name, salary, departmentId, hired, notes) into `h`.
    private func mixRow(_ stmt: OpaquePointer, _ h: inout UInt64) {
        _ = sqlite3_column_int64(stmt, 0)
        let name = String(cString: sqlite3_column_text(stmt, 1))
        let salary = sqlite3_column_int64(stmt, 2)
        _ = sqlite3_column_int64(stmt, 3)
        _ = Date(timeIntervalSince1970: sqlite3_column_double(stmt, 4))
        let notes = String(cString: sqlite3_column_text(stmt, 5))
        mix(&h, count: name.utf8.count &+ notes.utf8.count, first: UInt8(truncatingIfNeeded: salary))
    }

    private func query(_ sql: String, _ bind: (OpaquePointer) -> Void, _ h: inout UInt64) throws -> Int {
        let stmt = try db.prepared(sql)
        bind(stmt)
        var n = 0
        while sqlite3_step(stmt) == SQLITE_ROW { mixRow(stmt, &h); n += 1 }
        sqlite3_reset(stmt)
        return n
    }

    private static let columns = "SELECT id, name, salary, departmentId, hired, notes FROM employee"

    func fetch(keys: [Int64]) throws -> UInt64 {
        try db.exec("BEGIN")
        var h: UInt64 = 0
        for k in keys {
            if try query(Self.columns + " WHERE id = ?", { sqlite3_bind_int64($0, 1, k) }, &h) != 1 {
                throw BenchError.missingKey(Int(k))
            }
        }
        try db.exec("COMMIT")
        return h
    }

    func fetch(salaries: [Int64]) throws -> (rows: Int, checksum: UInt64) {
        try db.exec("BEGIN")
        var h: UInt64 = 0, n = 0
        for s in salaries { n += try query(Self.columns + " WHERE salary = ?", { sqlite3_bind_int64($0, 1, s) }, &h) }
        try db.exec("COMMIT")
        return (n, h)
    }

    func fetch(ranges: [(Int64, Int64)]) throws -> (rows: Int, checksum: UInt64) {
        try db.exec("BEGIN")
        var h: UInt64 = 0, n = 0
        for (lo, hi) in ranges {
            n += try query(
                Self.columns + " WHERE salary >= ? AND salary < ?",
                {
                    sqlite3_bind_int64($0, 1, lo); sqlite3_bind_int64($0, 2, hi)
                }, &h)
        }
        try db.exec("COMMIT")
        return (n, h)
    }

    func countNotesContaining(_ needle: String) throws -> Int {
        let stmt = try db.prepared("SELECT COUNT(*) FROM employee WHERE notes LIKE ?")
        bindText(stmt, 1, "%\(needle)%")
        guard sqlite3_step(stmt) == SQLITE_ROW else { throw BenchError.sqlite("count") }
        let n = Int(sqlite3_column_int64(stmt, 0))
        sqlite3_reset(stmt)
        return n
    }

    func raiseSalary(keys: [Int64]) throws {
        let stmt = try db.prepared("UPDATE employee SET salary = salary + 1 WHERE id = ?")
        try db.exec("BEGIN")
        for k in keys { sqlite3_bind_int64(stmt, 1, k); try db.step(stmt, expecting: SQLITE_DONE); sqlite3_reset(stmt) }
        try db.exec("COMMIT")
    }

    func delete(keys: [Int64]) throws {
        let stmt = try db.prepared("DELETE FROM employee WHERE id = ?")
        try db.exec("BEGIN")
        for k in keys { sqlite3_bind_int64(stmt, 1, k); try db.step(stmt, expecting: SQLITE_DONE); sqlite3_reset(stmt) }
        try db.exec("COMMIT")
    }

    func checkpointAndClose() throws -> Int { try db.checkpointAndClose() }
    func close() throws { try db.close() }
}

/// A connection handed to the one thread that uses it.
private struct SendableConnection: @unchecked Sendable {
    // @unchecked: each connection is used by one thread at a time (runThreads, then close).
    let value: SQLiteObjects
    init(_ value: SQLiteObjects) { self.value = value }
}
