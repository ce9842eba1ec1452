import Foundation
import GRDB

// GRDB's object-level peer: Codable records (`FetchableRecord & PersistableRecord`) through a
// `DatabaseQueue`, as GRDB's documentation writes them. WAL mode, 8 KiB pages, and the same
// schema and indexes as the SQLite C peer (salary, and department for the relationship).

struct GRDBDepartment: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "department"
    var id: Int64
    var name: String
}

struct GRDBEmployee: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "employee"
    var id: Int64
    var name: String
    var salary: Int64
    var departmentId: Int64
    var hired: Date
    var notes: String

    init(_ e: EmployeeData) {
        id = e.id; name = e.name; salary = e.salary; departmentId = e.department; hired = e.hired; notes = e.notes
    }
}

final class GRDBObjects: ObjectSystem {
    let queue: DatabaseQueue
    let path: String

    init(path: String, durable: Bool) throws {
        self.path = path
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA page_size = 8192")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = \(durable ? "FULL" : "OFF")")
        }
        queue = try DatabaseQueue(path: path, configuration: config)
        try queue.write { db in try SQLiteObjects.createSchema { try db.execute(sql: $0) } }
    }

    func insert(_ employees: [EmployeeData], withDepartments: Bool) throws {
        try queue.write { db in
            if withDepartments {
                for d in 1...EmployeeData.departments {
                    try GRDBDepartment(id: Int64(d), name: "Department \(d)").insert(db)
                }
            }
            for e in employees { try GRDBEmployee(e).insert(db) }
        }
    }

    func insertEach(_ employees: [EmployeeData]) throws {
        for e in employees { try queue.write { db in try GRDBEmployee(e).insert(db) } }
    }

    /// Concurrent `write` calls on the one database: GRDB serialises them (one writer), and
    /// each commit pays its own fsync.
    func insertConcurrently(_ employees: [EmployeeData], writers: Int) throws {
        let queue = self.queue
        let records = employees.map(GRDBEmployee.init)
        try runThreads(writers) { w in
            for record in share(of: records, writer: w, writers: writers) {
                try queue.write { db in try record.insert(db) }
            }
        }
    }

    private func mixRecord(_ e: GRDBEmployee, _ h: inout UInt64) {
        mix(&h, count: e.name.utf8.count &+ e.notes.utf8.count, first: UInt8(truncatingIfNeeded: e.salary))
    }

    func fetch(keys: [Int64]) throws -> UInt64 {
        try queue.read { db in
            var h: UInt64 = 0
            for k in keys {
                guard let e = try GRDBEmployee.fetchOne(db, key: k) else { throw BenchError.missingKey(Int(k)) }
                mixRecord(e, &h)
            }
            return h
        }
    }

    func fetch(salaries: [Int64]) throws -> (rows: Int, checksum: UInt64) {
        try queue.read { db in
            var h: UInt64 = 0, n = 0
            for s in salaries {
                let rows = try GRDBEmployee.filter(Column("salary") == s).fetchAll(db)
                for e in rows { mixRecord(e, &h) }
                n += rows.count
            }
            return (n, h)
        }
    }

    func fetch(ranges: [(Int64, Int64)]) throws -> (rows: Int, checksum: UInt64) {
        try queue.read { db in
            var h: UInt64 = 0, n = 0
            for (lo, hi) in ranges {
                let rows = try GRDBEmployee.filter(Column("salary") >= lo && Column("salary") < hi).fetchAll(db)
                for e in rows { mixRecord(e, &h) }
                n += rows.count
            }
            return (n, h)
        }
    }

    func countNotesContaining(_ needle: String) throws -> Int {
        // LIKE is case-insensitive for ASCII in SQLite: CONTAINS[c] for this data.
        try queue.read { db in try GRDBEmployee.filter(Column("notes").like("%\(needle)%")).fetchCount(db) }
    }

    func raiseSalary(keys: [Int64]) throws {
        try queue.write { db in
            for k in keys {
                guard var e = try GRDBEmployee.fetchOne(db, key: k) else { throw BenchError.missingKey(Int(k)) }
                e.salary += 1
                try e.update(db)
            }
        }
    }

    func delete(keys: [Int64]) throws {
        try queue.write { db in for k in keys { _ = try GRDBEmployee.deleteOne(db, key: k) } }
    }

    func checkpointAndClose() throws -> Int {
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let size = fileSize(path) + fileSize(path + "-wal")
        try queue.close()
        return size
    }

    func close() throws { try queue.close() }
}
