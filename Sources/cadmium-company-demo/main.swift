// `make demo`, part 2: a Department/Employee session through the `Cd` API on a store file —
// transactions on a background queue, queries, a dictionary query with aggregates, an update
// handler on a main-context object, a cascade delete, a validation failure thrown at the commit,
// and a misuse reported at its line — then `make demo` runs `cdstore-verify` on the file.
//
// The main thread runs the main queue (`dispatchMain()`), as an app's run loop would; the session
// itself runs on a background queue, where `transactAndWait` is allowed.

import Cadmium
import Foundation

final class Department: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "department", deleteRule: .cascade) var employees: Set<Employee>
}

final class Employee: CdManagedObject {
    @Attribute var name: String
    @Attribute var salary: Int64 = 0
    @Attribute var hired: Date?
    @Attribute(.indexed) var email: String?
    @Relationship(inverse: "employees") var department: Department?
}

func say(_ text: String) { print(text); fflush(nil) }
let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "demo-company.cdstore"
for p in [path, path + "-wal"] { try? FileManager.default.removeItem(atPath: p) }

func session() throws {
    let model = try CdModel(classes: [Department.self, Employee.self])
    try Cd.initWithStore(model: model, storeURL: URL(fileURLWithPath: path), serialTX: true)
    say("Opened \(path) with entities \(model.objectModel.entityNames.joined(separator: ", "))")

    let staff: [(String, String, Int64)] = [
        ("R&D", "Ada", 135_000), ("R&D", "Grace", 128_000), ("R&D", "Edsger", 99_000),
        ("Ops", "Ken", 87_000), ("Ops", "Radia", 112_000),
        ("Sales", "Frances", 76_000), ("Sales", "Barbara", 91_000), ("Sales", "Donald", 83_000),
    ]
    try Cd.transactAndWait {
        var departments: [String: Department] = [:]
        for (i, (dept, name, salary)) in staff.enumerated() {
            let department =
                try departments[dept]
                ?? {
                    let d = try Cd.create(Department.self)
                    d.name = dept
                    departments[dept] = d
                    return d
                }()
            let e = try Cd.create(Employee.self)
            e.name = name
            e.salary = salary
            e.email = "\(name.lowercased())@example.com"
            e.hired = Date(timeIntervalSince1970: Double(1_500_000_000 + i * 86_400 * 90))
            e.department = department
        }
    }
    say("Transaction 1: \(staff.count) employees in 3 departments (committed, on disk)")

    // A main-context object with an update handler, held as a view would hold it (the main
    // context keeps its objects weakly, as Core Data's does).
    let watched = LockedFlag()
    try DispatchQueue.main.sync {
        let ada = try Cd.objects(Employee.self).filter("name == %@", "Ada").fetchOne()!
        heldOnMain.append(ada)
        ada.updateHandler = { event in
            say("  (main queue) update handler of Ada: \(event)")
            watched.set()
        }
    }

    let rich = try Cd.read {
        try Cd.objects(Employee.self).filter("salary > %@", 100_000).sorted("salary", ascending: false).fetch()
            .map { "\($0.name) (\($0.department?.name ?? "-"), \($0.salary))" }
    }
    say("Query: salary > 100000, highest first: \(rich.joined(separator: ", "))")

    let totals = try Cd.read {
        try Cd.dictionaryQuery(for: Employee.self)
            .includeExpression("payroll", resultType: .integer64, withFormat: "@sum.salary")
            .includeExpression("headcount", resultType: .integer64, withFormat: "name.@count")
            .onlyProperties(["payroll", "headcount"])
            .fetch()
    }
    say("Dictionary query: payroll \(totals.first?["payroll"] ?? 0), headcount \(totals.first?["headcount"] ?? 0)")

    try Cd.transactAndWait {
        let ada = try Cd.objects(Employee.self).filter("email == %@", "ada@example.com").fetchOne()!
        ada.salary += 10_000
    }
    say("Transaction 2: Ada's raise (found through the email index)")
    while !watched.isSet { usleep(1_000) }

    try Cd.transactAndWait { try Cd.objects(Department.self).filter("name == %@", "Sales").delete() }
    let left = try Cd.read { try Cd.objects(Employee.self).count() }
    say("Transaction 3: deleted Sales; the cascade took its employees, \(left) remain")

    do {
        try Cd.transactAndWait { _ = try Cd.create(Employee.self) }  // no name: required
    } catch let error as CdError {
        say("Transaction 4 refused at its commit: \(error)")
    }

    Cd.misuseHandler = { misuse in say("Misuse reported: \(misuse)") }
    DispatchQueue.main.sync {
        if let ken = try? Cd.objects(Employee.self).filter("name == %@", "Ken").fetchOne() {
            ken.name = "Kenneth"  // a write on the main thread: reported, and nothing happens
        }
    }
    let kens = try Cd.read { try Cd.objects(Employee.self).filter("name == %@", "Ken").count() }
    say("Done: the misused write changed nothing (\(kens) employee still named Ken)")
}

/// What the "view" holds on the main queue.
nonisolated(unsafe) var heldOnMain: [CdManagedObject] = []

/// A flag set on the main queue and polled by the session.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

DispatchQueue.global().async {
    do {
        try session()
        exit(0)
    } catch {
        print("demo failed: \(error)")
        exit(1)
    }
}
dispatchMain()
