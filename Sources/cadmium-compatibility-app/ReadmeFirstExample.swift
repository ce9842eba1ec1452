// The README's first example ("Using it"), as a `main.swift` holds it: top-level code on the main
// thread, which may read but never write (a write transaction there is misuse F1, which stops the
// program). The writes go through `try await Cd.transaction { }`, which runs its body on a
// background thread and resumes once the commit is durable. The example is the body of `run`;
// `readmeFirstExample` runs it on the main actor, where a `main.swift`'s top-level code runs.

import Cadmium
import Foundation

enum FirstExample {
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

    /// The README's code from `let model` to the read, with the store at `storeURL`; returns the
    /// engineers' names.
    @MainActor static func run(storeURL: URL) async throws -> [String] {
        let model = try CdModel(classes: [Department.self, Employee.self])
        try Cd.initWithStore(model: model, storeURL: storeURL)

        try await Cd.transaction {
            let rnd = try Cd.create(Department.self)
            rnd.name = "R&D"
            let ann = try Cd.create(Employee.self)
            ann.name = "Ann"
            ann.department = rnd
        }

        let engineers = try Cd.objects(Employee.self).filter("department.name == %@", "R&D").sorted("name").fetch()
        let names = engineers.map(\.name)
        try Cd.close()
        return names
    }
}

/// Runs the README's first example on the main thread, as `main.swift` would, and checks what it read.
func readmeFirstExample(_ report: Report) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cd-first-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let storeURL = directory.appendingPathComponent("company.cdstore")
    let outcome = OutcomeBox()
    let done = DispatchSemaphore(value: 0)
    Task { @MainActor in
        do {
            outcome.set(.success(try await FirstExample.run(storeURL: storeURL)))
        } catch {
            outcome.set(.failure(error))
        }
        done.signal()
    }
    done.wait()
    let names = try outcome.get()
    report.expect(names == ["Ann"], "the example read \(names)")
}

/// The first example's result, handed from the main actor to the checking thread.
final class OutcomeBox: @unchecked Sendable {
    // @unchecked: `result` is behind `lock`.
    private let lock = NSLock()
    private var result: Result<[String], any Error> = .success([])

    func set(_ value: Result<[String], any Error>) {
        lock.lock()
        result = value
        lock.unlock()
    }

    func get() throws -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return try result.get()
    }
}
