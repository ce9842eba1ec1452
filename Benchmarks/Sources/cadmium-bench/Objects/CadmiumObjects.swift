import CdObjects
import CdStore
import Foundation

// Cadmium's object-level peer: the `ObjectStore` API (change sets in, snapshots out), the API the
// `Cd` contexts sit on. Employee.salary is indexed; Employee.department is a to-one with the
// to-many inverse Department.employees, as a Core Data model would have it.

final class CadmiumObjects: ObjectSystem {
    let store: ObjectStore
    let path: String

    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Department",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false)
                ],
                relationships: [
                    RelationshipDescription(
                        name: "employees", destination: "Employee", inverse: "department", isToMany: true)
                ]),
            EntityDescription(
                name: "Employee",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false),
                    AttributeDescription(name: "salary", type: .integer64, isOptional: false, isIndexed: true),
                    AttributeDescription(name: "hired", type: .date, isOptional: false),
                    AttributeDescription(name: "notes", type: .string, isOptional: false),
                ],
                relationships: [
                    RelationshipDescription(name: "department", destination: "Department", inverse: "employees")
                ]),
        ])
    }

    init(path: String, durable: Bool) throws {
        self.path = path
        var options = StoreOptions()
        options.durability = durable ? .full : .off
        BenchStoreSharing.apply(to: &options)
        BenchReadThreads.apply(to: &options)
        store = try ObjectStore.open(path: path, model: try Self.model(), options: options)
    }

    static func id(_ key: Int64) -> ObjectID { ObjectID(entity: "Employee", primaryKey: key) }
    static func department(_ key: Int64) -> ObjectID { ObjectID(entity: "Department", primaryKey: key) }

    private func values(_ e: EmployeeData) -> [String: PropertyValue] {
        [
            "name": .attribute(.string(e.name)), "salary": .attribute(.integer(e.salary)),
            "hired": .attribute(.date(e.hired)), "notes": .attribute(.string(e.notes)),
            "department": .toOne(Self.department(e.department)),
        ]
    }

    /// Employees per change set of the bulk insert's streaming writer.
    static let insertBatch = 10_000

    /// One transaction, written in batches through a streaming writer (`ObjectStoreWriter`), as
    /// the Cd contexts flush a large transaction: memory stays bounded by a batch.
    func insert(_ employees: [EmployeeData], withDepartments: Bool) throws {
        let writer = try store.beginWriter()
        if withDepartments {
            var departments = ChangeSet()
            _ = try store.newObjectIDs(entity: "Department", count: EmployeeData.departments)
            for d in 1...EmployeeData.departments {
                departments.inserted[Self.department(Int64(d))] = ["name": .attribute(.string("Department \(d)"))]
            }
            try writer.apply(departments)
        }
        _ = try store.newObjectIDs(entity: "Employee", count: employees.count)
        for start in stride(from: 0, to: employees.count, by: Self.insertBatch) {
            var changes = ChangeSet()
            changes.inserted.reserveCapacity(Self.insertBatch)
            for e in employees[start..<min(start + Self.insertBatch, employees.count)] {
                changes.inserted[Self.id(e.id)] = values(e)
            }
            try writer.apply(changes)
        }
        try writer.commit()
    }

    func insertEach(_ employees: [EmployeeData]) throws {
        _ = try store.newObjectIDs(entity: "Employee", count: employees.count)
        for e in employees { try store.apply(ChangeSet(inserted: [Self.id(e.id): values(e)])) }
    }

    /// Group commit: the threads' applies that wait for an fsync at the same time share one.
    func insertConcurrently(_ employees: [EmployeeData], writers: Int) throws {
        _ = try store.newObjectIDs(entity: "Employee", count: employees.count)
        let changes = employees.map { ChangeSet(inserted: [Self.id($0.id): values($0)]) }
        let store = self.store
        try runThreads(writers) { w in
            for change in share(of: changes, writer: w, writers: writers) { try store.apply(change) }
        }
    }

    /// Folds the object's attributes into `h` (the same fields for every system).
    private func mixObject(_ v: [String: PropertyValue], _ h: inout UInt64) {
        guard case .attribute(.string(let name))? = v["name"], case .attribute(.integer(let salary))? = v["salary"],
            case .attribute(.string(let notes))? = v["notes"]
        else { return }
        mix(&h, count: name.utf8.count &+ notes.utf8.count, first: UInt8(truncatingIfNeeded: salary))
    }

    func fetch(keys: [Int64]) throws -> UInt64 {
        try store.read { s in
            var h: UInt64 = 0
            for k in keys {
                guard let v = try s.values(of: Self.id(k)) else { throw BenchError.missingKey(Int(k)) }
                mixObject(v, &h)
            }
            return h
        }
    }

    private func fetchRows(_ s: ObjectSnapshot, _ predicate: CdPredicate, _ h: inout UInt64) throws -> Int {
        var request = FetchRequest(entity: "Employee")
        request.predicate = predicate
        let matches = try s.fetchObjects(request)  // one read of each record
        for match in matches { if let v = match.values { mixObject(v, &h) } }
        return matches.count
    }

    func fetch(salaries: [Int64]) throws -> (rows: Int, checksum: UInt64) {
        try store.read { s in
            var h: UInt64 = 0, n = 0
            for salary in salaries { n += try fetchRows(s, try CdPredicate(format: "salary == %@", salary), &h) }
            return (n, h)
        }
    }

    func fetch(ranges: [(Int64, Int64)]) throws -> (rows: Int, checksum: UInt64) {
        try store.read { s in
            var h: UInt64 = 0, n = 0
            for (lo, hi) in ranges {
                n += try fetchRows(s, try CdPredicate(format: "salary >= %@ AND salary < %@", lo, hi), &h)
            }
            return (n, h)
        }
    }

    func countNotesContaining(_ needle: String) throws -> Int {
        try store.read { s in
            var request = FetchRequest(entity: "Employee")
            request.predicate = try CdPredicate(format: "notes CONTAINS[c] %@", needle)
            return try s.count(request)
        }
    }

    func raiseSalary(keys: [Int64]) throws {
        // The new value is known (salaries are a function of the key), as an app that holds the
        // objects would know it; the store reads the record to rewrite it and its index entry.
        var changes = ChangeSet()
        for k in keys {
            let e = EmployeeData.salaryOf(key: k)
            changes.updated[Self.id(k)] = ["salary": .attribute(.integer(e + 1))]
        }
        try store.apply(changes)
    }

    func delete(keys: [Int64]) throws {
        try store.apply(ChangeSet(deleted: Set(keys.map(Self.id))))
    }

    func checkpointAndClose() throws -> Int {
        try store.engine.checkpoint()
        try store.close()
        return fileSize(path) + fileSize(path + "-wal")
    }

    func close() throws { try store.close() }
}

extension EmployeeData {
    /// The salary employee `key` was inserted with (the formula of `make`).
    static func salaryOf(key: Int64) -> Int64 {
        let i = UInt64(key - 1)
        return 30_000 + Int64((i &* 0x9E37_79B9_7F4A_7C15) >> 33) % 200_000
    }
}
