import CdStore
import CdStoreTesting
import Foundation
import Testing
@testable import CdObjects

/// Office ⟶ Department ⟶ Employee (Manager) ⇄ Project, Employee ⇄ Desk: every relationship
/// shape and delete rule the object store handles.
///
/// - Office.departments ↔ Department.office: to-many (deny) ↔ to-one (nullify)
/// - Department.employees ↔ Employee.department: to-many (cascade) ↔ to-one (nullify)
/// - Employee.projects ↔ Project.members: many-to-many (nullify both)
/// - Employee.desk ↔ Desk.owner: one-to-one (nullify both)
/// - Employee.ownedProjects ↔ Project.owner: to-many (no action) ↔ to-one
/// - Manager.reports: ordered to-many without inverse
func companyModel() throws -> ObjectModel {
    try ObjectModel(entities: [
        EntityDescription(
            name: "Office",
            attributes: [.init(name: "city", type: .string, isOptional: false)],
            relationships: [.toMany("departments", destination: "Department", inverse: "office", deleteRule: .deny)]),
        EntityDescription(
            name: "Department",
            attributes: [
                .init(name: "name", type: .string, isOptional: false),
                .init(
                    name: "budget", type: .integer64,
                    validation: .init(minValue: .integer(0), maxValue: .integer(1_000_000))),
            ],
            relationships: [
                .toMany("employees", destination: "Employee", inverse: "department", deleteRule: .cascade),
                .init(name: "office", destination: "Office", inverse: "departments", deleteRule: .nullify),
            ],
            uniquenessConstraints: [["name"]]),
        EntityDescription(
            name: "Employee",
            attributes: [
                .init(name: "badge", type: .string, isOptional: false),
                .init(name: "name", type: .string, isIndexed: true),
                .init(name: "salary", type: .integer64, defaultValue: .integer(0), isIndexed: true),
                .init(name: "email", type: .string, validation: .init(maxLength: 40, pattern: "[a-z.]+@[a-z.]+")),
                .init(name: "hired", type: .date),
                .init(name: "onBreak", type: .boolean, isTransient: true),
            ],
            relationships: [
                .init(name: "department", destination: "Department", inverse: "employees", deleteRule: .nullify),
                .toMany("projects", destination: "Project", inverse: "members", deleteRule: .nullify),
                .init(name: "desk", destination: "Desk", inverse: "owner", deleteRule: .nullify),
                .toMany("ownedProjects", destination: "Project", inverse: "owner", deleteRule: .noAction),
            ],
            uniquenessConstraints: [["badge"]]),
        EntityDescription(
            name: "Manager", parent: "Employee",
            attributes: [.init(name: "level", type: .integer16, isOptional: false, defaultValue: .integer(1))],
            relationships: [.toMany("reports", destination: "Employee", ordered: true)]),
        EntityDescription(
            name: "Project",
            attributes: [.init(name: "title", type: .string)],
            relationships: [
                .toMany("members", destination: "Employee", inverse: "projects", deleteRule: .nullify),
                .init(name: "owner", destination: "Employee", inverse: "ownedProjects", deleteRule: .nullify),
            ]),
        EntityDescription(
            name: "Desk",
            attributes: [
                .init(name: "floor", type: .integer32, isOptional: false),
                .init(name: "number", type: .integer32, isOptional: false),
            ],
            relationships: [.init(name: "owner", destination: "Employee", inverse: "desk", deleteRule: .nullify)],
            uniquenessConstraints: [["floor", "number"]]),
    ])
}

func str(_ s: String) -> PropertyValue { .attribute(.string(s)) }
func int(_ i: Int64) -> PropertyValue { .attribute(.integer(i)) }

/// Opens an in-memory company store.
func companyStore() throws -> ObjectStore {
    try ObjectStore.open(path: nil, model: companyModel())
}

extension ObjectStore {
    /// Inserts one object and returns its ID.
    @discardableResult
    func insert(_ entity: String, _ values: [String: PropertyValue]) throws -> ObjectID {
        let id = try newObjectIDs(entity: entity, count: 1)[0]
        try apply(ChangeSet(inserted: [id: values]))
        return id
    }

    func values(_ id: ObjectID) throws -> [String: PropertyValue]? { try read { try $0.values(of: id) } }
    func related(_ id: ObjectID, _ r: String) throws -> [ObjectID] { try read { try $0.related(id, r) } }
    func exists(_ id: ObjectID) throws -> Bool { try read { try $0.exists(id) } }
    func fetch(_ request: FetchRequest, pending: ChangeSet? = nil) throws -> [ObjectID] {
        try read { try $0.fetchIDs(request, pending: pending) }
    }
    func verify() throws -> [ObjectStoreProblem] { try engine.read { try ObjectStoreVerifier().verify($0) } }
}

/// The Core Data code of a thrown error, recorded as an issue when it is not a `CdError`.
func errorCode(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> Int? {
    do {
        try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch let e as CdError {
        return e.code
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A seed from `CD_SEED` or a fresh one, printed so a failing run can be replayed.
func testSeed(_ name: String) -> UInt64 {
    let seed =
        ProcessInfo.processInfo.environment["CD_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
    print("\(name): seed \(seed) (replay with CD_SEED=\(seed))")
    return seed
}

/// The tests' seeded generator: the engine's SplitMix64.
typealias SeededGenerator = SplitMix64

/// `SortDescriptor` is also Foundation's type; tests that import Foundation name ours this way.
typealias Sort = CdObjects.SortDescriptor
