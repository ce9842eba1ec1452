// The README's examples, kept verbatim so that they keep compiling in Swift 6 language mode,
// and checks that the model they declare is the one a Core Data model file of the same shape
// gives.

import Foundation
import Testing
import Cadmium

// MARK: - README: declaring entities (verbatim)

final class Department: CdManagedObject {
    @Attribute var name: String
    @Relationship(inverse: "department", deleteRule: .cascade) var employees: Set<Employee>
}

final class Employee: CdManagedObject {
    @Attribute var name: String
    @Attribute var salary: Int64 = 0  // inline value = the model's default
    @Attribute var hired: Date?  // Optional = optional attribute
    @Attribute(.indexed) var email: String?
    @Relationship(inverse: "employees") var department: Department?
}

/// README: opening a store (verbatim apart from where `modelURL` and `storeURL` come from).
func readmeOpenStore(modelURL: URL, storeURL: URL?) throws {
    // The model declared in Swift, from the classes…
    let model = try CdModel(classes: [Department.self, Employee.self])
    // …or read from a Core Data model file (.xcdatamodel or .xcdatamodeld), bound to classes by name.
    let model2 = try CdModel(contentsOf: modelURL, classes: [Department.self, Employee.self])

    try Cd.initWithStore(model: model, storeURL: storeURL, serialTX: false)  // storeURL nil: in memory
    _ = model2
}

/// README: writes happen in transactions (verbatim); call from the main actor, as top-level code.
@MainActor func readmeWrite() async throws {
    // Writes happen in transactions, never on the main thread (where top-level code runs):
    // `Cd.transaction` runs the body on a background thread and returns once it is committed.
    try await Cd.transaction {
        let rnd = try Cd.create(Department.self)
        rnd.name = "R&D"
        let ann = try Cd.create(Employee.self)
        ann.name = "Ann"
        ann.department = rnd
    }
}

/// README: the same write from a background queue (verbatim), where the waiting form is allowed.
func readmeWriteOnABackgroundQueue() {
    DispatchQueue.global().async {
        try? Cd.transactAndWait {
            let sales = try Cd.create(Department.self)
            sales.name = "Sales"
        }
    }
}

/// README: options (verbatim).
func readmeOptions(model: CdModel, storeURL: URL?) throws {
    var options = StoreOptions()
    options.durability = .normal  // fsync at checkpoints only (.full, the default: every commit)
    options.cacheBytes = 16 << 20  // page cache budget (default 64 MiB)
    options.pageSize = 16384  // for a new store (default 8 KiB)
    try Cd.initWithStore(model: model, storeURL: storeURL, options: options, serialTX: false)
}

/// README: objects by ID (verbatim); returns what the three fetches found.
func readmeObjectsByID(ann: Employee, otherID: ObjectID) throws -> [Employee?] {
    let id = ann.objectID!  // set by Cd.create; or ObjectID(entity: "Employee", primaryKey: 42)
    print(id.entity, id.primaryKey)  // Employee 42
    let again = try Cd.objects(Employee.self).filter(\.objectID == id).fetchOne()  // nil: no such object
    let same = try Cd.objects(Employee.self).filter("SELF == %@", id).fetchOne()
    let several = try Cd.objects(Employee.self).filter([id, otherID].contains(\.objectID)).fetch()
    return [again, same] + several
}

/// README: reads (verbatim); call on the main thread.
func readmeRead() throws -> [Employee] {
    // Reads: on the main thread (the read-only main context), in a transaction, or in Cd.read { }.
    let engineers = try Cd.objects(Employee.self).filter("department.name == %@", "R&D").sorted("name").fetch()
    return engineers
}

/// README: the bundle initialiser (verbatim); `Bundle.main` must hold `Company.xcdatamodeld`.
func readmeBundleInit() throws {
    // The model found by name in the main bundle, the store in the user's Documents directory.
    try Cd.initWithSQLStore(
        momdInbundleID: nil, momdName: "Company.momd", sqliteFilename: "company.store",
        classes: [Department.self, Employee.self])
}

/// README: the fetched results controller (verbatim); call on the main thread.
func readmeResultsController() throws -> CdFetchedResultsController<Employee> {
    // Employees in sections by department, kept up to date on the main queue after each commit.
    let staff = Cd.newFetchedResultsController(
        Cd.objects(Employee.self).sorted("department.name").sorted("name"),
        sectionNameKeyPath: "department.name", cacheName: nil)
    staff.onChange = { changes in print(changes.objects.map { "\($0.type) \($0.object.name)" }) }
    try staff.performFetch()
    return staff
}

/// The same model as a Core Data model file.
let companyModelContents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic">
        <entity name="Department" representedClassName="MyApp.Department" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <relationship name="employees" optional="YES" toMany="YES" deletionRule="Cascade" \
    destinationEntity="Employee" inverseName="department" inverseEntity="Employee"/>
        </entity>
        <entity name="Employee" representedClassName="MyApp.Employee" syncable="YES">
            <attribute name="name" attributeType="String"/>
            <attribute name="salary" attributeType="Integer 64" defaultValueString="0"/>
            <attribute name="hired" optional="YES" attributeType="Date"/>
            <attribute name="email" optional="YES" attributeType="String" indexed="YES"/>
            <relationship name="department" optional="YES" maxCount="1" deletionRule="Nullify" \
    destinationEntity="Department" inverseName="employees" inverseEntity="Department"/>
        </entity>
    </model>
    """

extension CadmiumSuites {
    @Suite struct ReadmeExamples {
        static func writeModelFile() throws -> URL {
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("cadmium-readme-\(UUID().uuidString)/Company.xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try companyModelContents.write(
                to: folder.appendingPathComponent("contents"), atomically: true, encoding: .utf8)
            return folder
        }

        @Test func readmeExampleRuns() throws {
            let modelURL = try Self.writeModelFile()
            defer { try? FileManager.default.removeItem(at: modelURL.deletingLastPathComponent()) }
            try readmeOpenStore(modelURL: modelURL, storeURL: nil)
            try background {
                try Cd.transactAndWait {
                    let d = try Cd.create(Department.self)
                    d.name = "R&D"
                    let e = try Cd.create(Employee.self)
                    e.name = "Ann"
                    e.email = "ann@example.com"
                    e.department = d
                    #expect(e.salary == 0, "the inline value is the default")
                    #expect(e.hired == nil)
                }
            }
            let ann = try background {
                try Cd.read { try Cd.objects(Employee.self).filter("email == %@", "ann@example.com").fetchOne()?.name }
            }
            #expect(ann == "Ann")
        }

        @MainActor @Test func readmeWriteAndRead() async throws {
            let modelURL = try Self.writeModelFile()
            defer { try? FileManager.default.removeItem(at: modelURL.deletingLastPathComponent()) }
            try readmeOpenStore(modelURL: modelURL, storeURL: nil)
            try await readmeWrite()  // on the main actor, as a main.swift's top-level code
            #expect(try readmeRead().map(\.name) == ["Ann"])
            readmeWriteOnABackgroundQueue()
            for _ in 0..<500 {
                if try Cd.objects(Department.self).count() == 2 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(try Cd.objects(Department.self).sorted("name").fetch().map(\.name) == ["R&D", "Sales"])
        }

        @MainActor @Test func readmeOptionsAndObjectsByID() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "cd-readme-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let model = try CdModel(classes: [Department.self, Employee.self])
            try readmeOptions(model: model, storeURL: directory.appendingPathComponent("company.cdstore"))
            defer { try? Cd.close() }
            try await readmeWrite()
            let ann = try #require(try readmeRead().first)
            let found = try readmeObjectsByID(ann: ann, otherID: ObjectID(entity: "Employee", primaryKey: 999))
            #expect(found.count == 3 && found.allSatisfy { $0 === ann }, "\(found)")
            #expect(ann.objectID == ObjectID(entity: "Employee", primaryKey: ann.objectID!.primaryKey))
        }

        @MainActor @Test func readmeEditingContextMovesTheWellPaidToResearch() throws {
            try Cd.initWithStore(model: CdModel(classes: [Department.self, Employee.self]), storeURL: nil)
            defer { try? Cd.close() }
            try background {
                try Cd.transactAndWait {
                    for (name, salary) in [("Ann", 120_000), ("Bo", 90_000)] {
                        let e = try Cd.create(Employee.self)
                        e.name = name
                        e.salary = Int64(salary)
                    }
                }
            }
            try readmeEditingContext()
            #expect(try Self.staffAsStored() == ["Ann: Research", "Bo: -"])
        }

        /// "name: department" of every employee, read in a `Cd.read` on a background queue.
        nonisolated static func staffAsStored() throws -> [String] {
            try background {
                try Cd.read {
                    try Cd.objects(Employee.self).sorted("name").fetch().map {
                        "\($0.name): \($0.department?.name ?? "-")"
                    }
                }
            }
        }

        @Test func readmeBundleInitLooksInTheMainBundle() throws {
            // The test runner's main bundle has no Company model: the README's call says so.
            #expect(throws: CdInitFailure.invalidManagedObjectModel) { try readmeBundleInit() }
        }

        @MainActor @Test func readmeResultsControllerSectionsByDepartment() throws {
            let modelURL = try Self.writeModelFile()
            defer { try? FileManager.default.removeItem(at: modelURL.deletingLastPathComponent()) }
            try readmeOpenStore(modelURL: modelURL, storeURL: nil)
            try background {
                try Cd.transactAndWait {
                    for (department, people) in [("Sales", ["Cy", "Bo"]), ("R&D", ["Ann"])] {
                        let d = try Cd.create(Department.self)
                        d.name = department
                        for name in people {
                            let e = try Cd.create(Employee.self)
                            e.name = name
                            e.department = d
                        }
                    }
                }
            }
            let staff = try readmeResultsController()
            #expect(staff.sections?.map(\.name) == ["R&D", "Sales"])
            #expect(staff.sections?.map { $0.objects.map(\.name) } == [["Ann"], ["Bo", "Cy"]])
        }

        @Test func swiftModelMatchesTheModelFile() throws {
            let modelURL = try Self.writeModelFile()
            defer { try? FileManager.default.removeItem(at: modelURL.deletingLastPathComponent()) }
            let fromSwift = try CdModel(classes: [Department.self, Employee.self]).objectModel
            let fromFile = try CdModel(contentsOf: modelURL, classes: [Department.self, Employee.self]).objectModel
            #expect(fromSwift.firstStoredShapeDifference(from: fromFile) == nil)
            #expect(fromSwift.versionHash == fromFile.versionHash)

            let employee = try #require(fromSwift.entity(named: "Employee"))
            let salary = try #require(employee.attribute(named: "salary"))
            #expect(salary.type == .integer64 && !salary.isOptional && salary.defaultValue == .integer(0))
            #expect(employee.attribute(named: "hired")?.isOptional == true)
            #expect(employee.attribute(named: "email")?.isIndexed == true)
            #expect(employee.attribute(named: "name")?.isOptional == false)
            let employees = try #require(fromSwift.entity(named: "Department")?.relationship(named: "employees"))
            #expect(employees.isToMany && !employees.isOrdered && employees.deleteRule == .cascade)
            #expect(employees.destination == "Employee" && employees.inverse == "department")
        }

        @Test func testItemModelMatchesTheCadmiumFixture() throws {
            guard let fromFile = try ModelSource.file.model() else { return }
            let fromSwift = try CdModel(classes: [TestItem.self])
            #expect(fromSwift.objectModel.firstStoredShapeDifference(from: fromFile.objectModel) == nil)
            #expect(
                fromSwift.objectModel.entity(named: "TestItem")?.attributes
                    == fromFile.objectModel.entity(named: "TestItem")?.attributes)
        }

        @Test func attributeOptionsBecomeModelRules() throws {
            let model = try CdModel(classes: [Project.self, Chore.self, Owner.self, Pet.self, Tagged.self]).objectModel
            let priority = try #require(model.attribute("priority", of: "Chore"))
            #expect(priority.validation.minValue == .integer(0) && priority.validation.maxValue == .integer(10))
            #expect(model.relationship("chores", of: "Project")?.isOrdered == true)
            #expect(model.relationship("pets", of: "Owner")?.deleteRule == .deny)
            let tagged = try #require(model.entity(named: "Label"))
            #expect(tagged.uniquenessConstraints == [["code"]])
            #expect(tagged.attribute(named: "scratch")?.isTransient == true)
            #expect(tagged.attribute(named: "code")?.validation.minLength == 2)
            #expect(tagged.attribute(named: "ratio")?.validation.maxValue == .double(1))
        }
    }
}

/// Unique, transient, length and floating-point range options; an overridden entity name.
final class Tagged: CdManagedObject {
    override class var entityName: String { "Label" }
    @Attribute(.unique, .length(2...8)) var code: String
    @Attribute(.transient) var scratch: String?
    @Attribute(.range(0.0...1.0)) var ratio: Double = 0.5
}

/// README: editing on the main actor (verbatim).
@MainActor func readmeEditingContext() throws {
    let editor = try Cd.newEditingContext()
    let research = try editor.create(Department.self)
    research.name = "Research"
    for member in try Cd.objects(Employee.self).filter("salary > %@", 100_000).fetch(in: editor) {
        member.department = research
    }
    try editor.save()
}

/// README: overlapping transactions, the merge policy (verbatim; the second line runs inside a
/// transaction body). `OverlappingTransactionTests` checks what each policy does.
func readmeMergePolicy() throws {
    Cd.mergePolicy = .error  // the store's policy
    try Cd.transactionContext().mergePolicy = .rollback  // or one transaction's, inside its body
}
