#if BENCH_SWIFTDATA
import Foundation
import SwiftData

// Cadmium's SwiftData module (`import SwiftData`) as a SwiftData app uses it: `@Model` classes,
// a `ModelContainer` on the file, a `ModelContext` that inserts and saves, `FetchDescriptor`s
// with `#Predicate`s. The model is the Cd API peer's (CdAPIObjects.swift) declared with the
// macros, so the gap between the two columns is the cost of SwiftData's layer: its backing data,
// registry and predicate translation, beside the Cd API's contexts and managed objects.
//
// The classes are nested in an enum, since the module already has `Department` and `Employee`
// (the Cd API's); SwiftData names an entity after the class alone, so the store's entities are
// `Department` and `Employee` here too.
//
// Keys. A context gives each inserted model a permanent identifier at once, numbered 1, 2, 3… per
// entity in insertion order, so employee `k` of `EmployeeData` is `Employee/k` (the bulk insert
// checks it); the fetch by key builds that identifier with `PersistentIdentifier.identifier(for:
// entityName:primaryKey:)` and fetches `#Predicate { $0.persistentModelID == id }`, which the
// store runs as a PRIMARY KEY lookup.
//
// Durability. `ModelConfiguration` has no durability setting (SwiftData has none), so every
// save waits for the disk, where the other peers' non-durable workloads do not: the bulk insert
// pays one fsync more than the Cd API's.
//
// Threads. SwiftData's contexts are not tied to a thread: the harness's main thread uses one
// context of its own (not the main actor's `mainContext`, which would autosave); the concurrent
// writers each make their own context, as a `@ModelActor` would.

enum SwiftDataModels {
    @Model
    final class Department {
        var name: String
        @Relationship(inverse: \Employee.department) var employees: [Employee] = []

        init(name: String) { self.name = name }
    }

    @Model
    final class Employee {
        #Index<Employee>([\.salary])
        var name: String
        var salary: Int64
        var hired: Date
        var notes: String
        var department: Department?

        init(_ e: EmployeeData, department: Department?) {
            name = e.name
            salary = e.salary
            hired = e.hired
            notes = e.notes
            self.department = department
        }
    }
}

final class SwiftDataObjects: ObjectSystem {
    typealias Department = SwiftDataModels.Department
    typealias Employee = SwiftDataModels.Employee

    let path: String
    private(set) var container: ModelContainer?
    private var context: ModelContext?

    init(path: String, durable: Bool) throws {
        self.path = path
        let container = try ModelContainer(
            for: Department.self, Employee.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        self.container = container
        context = ModelContext(container)
    }

    private func open() throws -> ModelContext {
        guard let context else { throw BenchError.child("the SwiftData container is closed") }
        return context
    }

    /// The identifier of object `key` of `entity` in the store `store`.
    private static func id(_ entity: String, _ key: Int64, in store: String) throws -> PersistentIdentifier {
        try PersistentIdentifier.identifier(for: store, entityName: entity, primaryKey: key)
    }

    /// The store's identifier, as identifiers carry it: read from the first department's.
    private static func storeIdentifier(_ context: ModelContext) throws -> String {
        var first = FetchDescriptor<Department>()
        first.fetchLimit = 1
        guard let id = try context.fetchIdentifiers(first).first, let store = id.storeIdentifier else {
            throw BenchError.child("the SwiftData store has no department")
        }
        return store
    }

    /// The departments 1…100 of this store, by key, in `context`.
    private static func departments(in context: ModelContext) throws -> [Int64: Department] {
        let store = try storeIdentifier(context)
        var byKey: [Int64: Department] = [:]
        for key in 1...Int64(EmployeeData.departments) {
            byKey[key] = context.model(for: try id("Department", key, in: store)) as? Department
        }
        return byKey
    }

    // MARK: - Writes

    func insert(_ employees: [EmployeeData], withDepartments: Bool) throws {
        let context = try open()
        var departments: [Int64: Department] = [:]
        if withDepartments {
            for i in 1...EmployeeData.departments {
                let d = Department(name: "Department \(i)")
                context.insert(d)
                departments[Int64(i)] = d
            }
        } else if !employees.isEmpty {
            departments = try Self.departments(in: context)
        }
        var first: Employee?, last: Employee?
        for e in employees {
            // Setting `department` adds the employee to `Department.employees` in memory (the
            // inverse), as SwiftData does.
            let object = Employee(e, department: departments[e.department])
            context.insert(object)
            if first == nil { first = object }
            last = object
        }
        // One context numbers the objects consecutively, so the ends tell.
        if let first, let last, let store = first.persistentModelID.storeIdentifier {
            let expected = (
                try Self.id("Employee", employees[0].id, in: store),
                try Self.id("Employee", employees[employees.count - 1].id, in: store)
            )
            precondition(
                first.persistentModelID == expected.0 && last.persistentModelID == expected.1,
                "SwiftData numbered the employees otherwise than EmployeeData's keys")
        }
        try context.save()
    }

    func insertEach(_ employees: [EmployeeData]) throws {
        let context = try open()
        let departments = try Self.departments(in: context)
        for e in employees {
            context.insert(Employee(e, department: departments[e.department]))
            try context.save()
        }
    }

    /// Contexts on `writers` threads, each saving one employee at a time.
    func insertConcurrently(_ employees: [EmployeeData], writers: Int) throws {
        guard let container else { throw BenchError.child("the SwiftData container is closed") }
        try runThreads(writers) { w in
            let context = ModelContext(container)
            let departments = try Self.departments(in: context)
            for e in share(of: employees, writer: w, writers: writers) {
                context.insert(Employee(e, department: departments[e.department]))
                try context.save()
            }
        }
    }

    func raiseSalary(keys: [Int64]) throws {
        let context = try open()
        for e in try employees(keys, in: context) { e.salary += 1 }
        try context.save()
    }

    func delete(keys: [Int64]) throws {
        let context = try open()
        for e in try employees(keys, in: context) { context.delete(e) }
        try context.save()
    }

    /// The employees with primary keys `keys`, by identifier.
    private func employees(_ keys: [Int64], in context: ModelContext) throws -> [Employee] {
        let store = try Self.storeIdentifier(context)
        return try keys.map { key in
            guard let e = context.model(for: try Self.id("Employee", key, in: store)) as? Employee else {
                throw BenchError.missingKey(Int(key))
            }
            return e
        }
    }

    // MARK: - Reads

    /// Reads every attribute of `e` and folds the harness's fields into `h` (as every system does).
    private func mixObject(_ e: Employee, _ h: inout UInt64) {
        let name = e.name, salary = e.salary, notes = e.notes
        withExtendedLifetime(e.hired) {}
        mix(&h, count: name.utf8.count &+ notes.utf8.count, first: UInt8(truncatingIfNeeded: salary))
    }

    func fetch(keys: [Int64]) throws -> UInt64 {
        let context = try open()
        let store = try Self.storeIdentifier(context)
        var h: UInt64 = 0
        for k in keys {
            let id = try Self.id("Employee", k, in: store)
            var descriptor = FetchDescriptor<Employee>(predicate: #Predicate { $0.persistentModelID == id })
            descriptor.fetchLimit = 1
            guard let e = try context.fetch(descriptor).first else { throw BenchError.missingKey(Int(k)) }
            mixObject(e, &h)
        }
        return h
    }

    func fetch(salaries: [Int64]) throws -> (rows: Int, checksum: UInt64) {
        let context = try open()
        var h: UInt64 = 0, n = 0
        for salary in salaries {
            let staff = try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.salary == salary }))
            for e in staff { mixObject(e, &h) }
            n += staff.count
        }
        return (n, h)
    }

    func fetch(ranges: [(Int64, Int64)]) throws -> (rows: Int, checksum: UInt64) {
        let context = try open()
        var h: UInt64 = 0, n = 0
        for (lo, hi) in ranges {
            let staff = try context.fetch(
                FetchDescriptor<Employee>(predicate: #Predicate { $0.salary >= lo && $0.salary < hi }))
            for e in staff { mixObject(e, &h) }
            n += staff.count
        }
        return (n, h)
    }

    func countNotesContaining(_ needle: String) throws -> Int {
        // `localizedStandardContains` is SwiftData's case-insensitive contains (diacritics too).
        try open().fetchCount(
            FetchDescriptor<Employee>(predicate: #Predicate { $0.notes.localizedStandardContains(needle) }))
    }

    // MARK: - Closing

    func checkpointAndClose() throws -> Int {
        try close()
        return fileSize(path) + fileSize(path + "-wal")
    }

    /// Lets the context and the container go, which closes (and so checkpoints) the store.
    func close() throws {
        context = nil
        container = nil
    }
}
#endif
