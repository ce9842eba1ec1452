import Cadmium
import Foundation

// Cadmium's object API (`Cd`, module `Cadmium`) as an app uses it: `CdManagedObject` subclasses
// declared with `@Attribute` / `@Relationship`, writes in `Cd.transactAndWait`, queries through
// `CdFetchRequest`. The model is the ObjectStore peer's (CadmiumObjects.swift), one layer up, so
// the gap between the two columns is the cost of the contexts and managed objects.
//
// Threads, as in an app. The harness calls from the process's main thread, where `Cd` forbids
// `transactAndWait` (check F1) and where the main context lives. So:
//   - every write runs on a background thread, while the main thread runs its run loop. That
//     drains the main queue, where each commit schedules its merge into the main context; the
//     merges run inside the timed region, as an app's main thread runs them too;
//   - reads run in `Cd.read { }` on the calling thread: one pinned snapshot for a batch of
//     fetches, as GRDB's `read` and `ObjectStore.read` give the other peers. (Fetching in the
//     main context instead, a fresh snapshot per fetch, measured 7–17% slower.)
//
// Keys. `Cd.create` gives each object a permanent `ObjectID` at once, numbered 1, 2, 3… per
// entity in creation order, so employee `k` of `EmployeeData` is `Employee/k` (the bulk insert
// checks it). Cd has no fetch-by-ObjectID call: `Cd.objectWithID(_:idValue:key:)` matches an
// attribute the app declares (`id`), which this model does not have, as the other peers' rows
// have none besides their primary key. The direct route is the predicate `SELF == %@` with the
// `ObjectID`, which the query planner runs as a PRIMARY KEY lookup.
//
// Lifetime. `Cd` is a process-wide singleton; a second `Cd.initWithStore` is allowed and closes
// the previous store. Each workload runs in a child process that opens one store, and since Cd
// has no public close, `close()` re-initialises Cd with an in-memory store, which closes (and so
// checkpoints) the file.

final class Department: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "department") var employees: Set<Employee>
}

final class Employee: CdManagedObject {
    @Attribute var name: String
    @Attribute(.indexed) var salary: Int64
    @Attribute var hired: Date
    @Attribute var notes: String
    @Relationship(inverse: "employees") var department: Department?
}

final class CdAPIObjects: ObjectSystem {
    let model: CdModel
    let path: String

    init(path: String, durable: Bool) throws {
        self.path = path
        model = try CdModel(classes: [Department.self, Employee.self])
        var options = StoreOptions()
        options.durability = durable ? .full : .off
        BenchStoreSharing.apply(to: &options)
        BenchReadThreads.apply(to: &options)
        try Cd.initWithStore(model: model, storeURL: URL(fileURLWithPath: path), options: options)
    }

    static func employeeID(_ key: Int64) -> ObjectID { ObjectID(entity: employeeEntity, primaryKey: key) }
    static func departmentID(_ key: Int64) -> ObjectID { ObjectID(entity: departmentEntity, primaryKey: key) }
    private static let employeeEntity = Employee.entityName
    private static let departmentEntity = Department.entityName

    /// The employee with primary key `key`, in the calling thread's context.
    private static func employee(_ key: Int64) throws -> Employee {
        guard let e = try Cd.objects(Employee.self).filter("SELF == %@", employeeID(key)).fetchOne() else {
            throw BenchError.missingKey(Int(key))
        }
        return e
    }

    // MARK: - Writes

    func insert(_ employees: [EmployeeData], withDepartments: Bool) throws {
        try onBackgroundThread {
            try Cd.transactAndWait {
                var departments: [Int64: Department] = [:]
                if withDepartments {
                    for (i, d) in try Cd.create(Department.self, count: EmployeeData.departments).enumerated() {
                        d.name = "Department \(i + 1)"
                        departments[Int64(i + 1)] = d
                    }
                } else if !employees.isEmpty {
                    let ids = (1...Int64(EmployeeData.departments)).map(Self.departmentID)
                    for d in try Cd.objects(Department.self).filter("SELF IN %@", ids).fetch() {
                        departments[d.objectID!.primaryKey] = d
                    }
                }
                // One object at a time, as an app loop writes it: Cd flushes the pending objects
                // into the store every `CdContainer.flushThreshold` and lets them go, so memory stays
                // bounded (an array of all the objects, as `create(_:count:)` returns, would not).
                var first: ObjectID?, last: ObjectID?
                for e in employees {
                    let object = try Cd.create(Employee.self)
                    if first == nil { first = object.objectID }
                    last = object.objectID
                    object.name = e.name
                    object.salary = e.salary
                    object.hired = e.hired
                    object.notes = e.notes
                    // Cd keeps the inverse (`Department.employees`) in step in memory; each link
                    // copies the department's list so far (docs/BENCHMARKS.md, profiles).
                    object.department = departments[e.department]
                }
                // One transaction numbers the objects consecutively, so the ends tell.
                precondition(
                    first == employees.first.map { Self.employeeID($0.id) }
                        && last == employees.last.map { Self.employeeID($0.id) },
                    "Cd numbered the employees otherwise than EmployeeData's keys")
            }
        }
    }

    func insertEach(_ employees: [EmployeeData]) throws {
        try onBackgroundThread {
            for e in employees { try Self.insertOne(e) }
        }
    }

    /// Non-serial `transactAndWait` calls from many threads: their commits share fsyncs.
    func insertConcurrently(_ employees: [EmployeeData], writers: Int) throws {
        try onBackgroundThread {
            try runThreads(writers) { w in
                for e in share(of: employees, writer: w, writers: writers) { try Self.insertOne(e) }
            }
        }
    }

    /// Inserts `e` in a durable transaction of its own.
    private static func insertOne(_ e: EmployeeData) throws {
        try Cd.transactAndWait(serial: false) {
            // Objects belong to one context, so each transaction fetches its department.
            let department = try Cd.objects(Department.self)
                .filter("SELF == %@", departmentID(e.department)).fetchOne()
            let object = try Cd.create(Employee.self)
            object.name = e.name
            object.salary = e.salary
            object.hired = e.hired
            object.notes = e.notes
            object.department = department
        }
    }

    func raiseSalary(keys: [Int64]) throws {
        try onBackgroundThread {
            try Cd.transactAndWait {
                // One `SELF IN %@` fetch: the planner reads exactly those keys (and, since this
                // session, no longer re-tests the list on every candidate, which was quadratic).
                for e in try Self.employees(keys) { e.salary += 1 }
            }
        }
    }

    func delete(keys: [Int64]) throws {
        try onBackgroundThread {
            try Cd.transactAndWait { Cd.delete(try Self.employees(keys)) }
        }
    }

    /// The employees with primary keys `keys`, in the calling thread's context, by one fetch.
    private static func employees(_ keys: [Int64]) throws -> [Employee] {
        let staff = try Cd.objects(Employee.self).filter("SELF IN %@", keys.map(employeeID)).fetch()
        guard staff.count == keys.count else {
            let found = Set(staff.compactMap { $0.objectID?.primaryKey })
            throw BenchError.missingKey(Int(keys.first { !found.contains($0) } ?? 0))
        }
        return staff
    }

    // MARK: - Reads

    /// Reads every attribute of `e` and folds the harness's fields into `h` (as every system does).
    private func mixObject(_ e: Employee, _ h: inout UInt64) {
        let name = e.name, salary = e.salary, notes = e.notes
        withExtendedLifetime(e.hired) {}
        mix(&h, count: name.utf8.count &+ notes.utf8.count, first: UInt8(truncatingIfNeeded: salary))
    }

    func fetch(keys: [Int64]) throws -> UInt64 {
        try Cd.read {
            var h: UInt64 = 0
            for k in keys { mixObject(try Self.employee(k), &h) }
            return h
        }
    }

    func fetch(salaries: [Int64]) throws -> (rows: Int, checksum: UInt64) {
        try Cd.read {
            var h: UInt64 = 0, n = 0
            for salary in salaries {
                let staff = try Cd.objects(Employee.self).filter("salary == %@", salary).fetch()
                for e in staff { mixObject(e, &h) }
                n += staff.count
            }
            return (n, h)
        }
    }

    func fetch(ranges: [(Int64, Int64)]) throws -> (rows: Int, checksum: UInt64) {
        try Cd.read {
            var h: UInt64 = 0, n = 0
            for (lo, hi) in ranges {
                let staff = try Cd.objects(Employee.self).filter("salary >= %@ AND salary < %@", lo, hi).fetch()
                for e in staff { mixObject(e, &h) }
                n += staff.count
            }
            return (n, h)
        }
    }

    func countNotesContaining(_ needle: String) throws -> Int {
        try Cd.read { try Cd.objects(Employee.self).filter("notes CONTAINS[c] %@", needle).count() }
    }

    // MARK: - Closing

    func checkpointAndClose() throws -> Int {
        try close()
        return fileSize(path) + fileSize(path + "-wal")
    }

    func close() throws {
        try Cd.initWithStore(model: model, storeURL: nil)
    }
}

// MARK: - The app's threads

/// Runs `body` on a background thread and returns its result, while the calling (main) thread
/// runs its run loop and so drains the main queue, where Cd merges each commit into the main
/// context. The background thread says it is done through the main queue too, so every merge
/// scheduled before that has run when this returns.
func onBackgroundThread<R>(_ body: @escaping () throws -> R) throws -> R {
    precondition(Thread.isMainThread, "the harness plays the app's main thread")
    let handOff = BackgroundHandOff(body)
    DispatchQueue.global().async { handOff.run() }
    while !handOff.isDone { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
    return try handOff.result!.get()
}

/// The body and result of `onBackgroundThread`.
private final class BackgroundHandOff<R>: @unchecked Sendable {
    // @unchecked: `body` and `result` belong to the background thread until it hands over
    // through the main queue; `isDone` is only touched on the main thread.
    private let body: () throws -> R
    private(set) var result: Result<R, any Error>?
    private(set) var isDone = false

    init(_ body: @escaping () throws -> R) { self.body = body }

    /// On the background thread.
    func run() {
        result = Result(catching: body)
        DispatchQueue.main.async { self.isDone = true }
    }
}
