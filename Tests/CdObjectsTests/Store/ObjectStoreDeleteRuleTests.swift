import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore delete rules")
struct ObjectStoreDeleteRuleTests {
    @Test func cascadeDeletesThroughAToMany() throws {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("D")])
        let e1 = try store.insert("Employee", ["badge": str("1"), "department": .toOne(d)])
        let e2 = try store.insert("Manager", ["badge": str("2"), "department": .toOne(d)])
        let p = try store.insert("Project", ["title": str("p"), "members": .toMany([e1, e2])])
        let applied = try store.apply(ChangeSet(deleted: [d]))
        #expect(applied.deleted == [d, e1, e2])
        #expect(applied.updated == [p], "project members nullified")
        #expect(try store.related(p, "members") == [])
        #expect(try store.fetch(FetchRequest(entity: "Employee")) == [])
        #expect(try store.verify().isEmpty)
    }

    @Test func deleteRulesReachObjectsLinkedToTheDeletedOneInTheSameChangeSet() throws {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("D")])
        let kept = try store.insert("Employee", ["badge": str("0")])
        let new = try store.newObjectIDs(entity: "Employee", count: 2)
        // Cascade (Department.employees): the new employees go with their department, and a stored
        // one moved into it too.
        let applied = try store.apply(
            ChangeSet(
                inserted: Dictionary(
                    uniqueKeysWithValues: new.enumerated().map {
                        ($1, ["badge": str("n\($0)"), "department": .toOne(d)])
                    }),
                updated: [kept: ["department": .toOne(d)]],
                deleted: [d]))
        #expect(applied.inserted.isEmpty)
        #expect(applied.deleted == [d, kept])
        #expect(try store.fetch(FetchRequest(entity: "Employee")) == [])
        // Nullify (Desk.employee → Employee.desk): a new employee at a deleted desk has no desk.
        let desk = try store.insert("Desk", ["floor": int(1), "number": int(2)])
        let f = try store.newObjectIDs(entity: "Employee", count: 1)[0]
        try store.apply(ChangeSet(inserted: [f: ["badge": str("f"), "desk": .toOne(desk)]], deleted: [desk]))
        #expect(try store.values(f)?["desk"] == .toOne(nil))
        #expect(try store.verify().isEmpty)
    }

    @Test func nullifyClearsTheInverse() throws {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("D")])
        let e = try store.insert("Employee", ["badge": str("1"), "department": .toOne(d)])
        let applied = try store.apply(ChangeSet(deleted: [e]))
        #expect(applied.updated == [d])
        #expect(try store.related(d, "employees") == [])
        let desk = try store.insert("Desk", ["floor": int(1), "number": int(2)])
        let f = try store.insert("Employee", ["badge": str("2"), "desk": .toOne(desk)])
        try store.apply(ChangeSet(deleted: [desk]))
        #expect(try store.values(f)?["desk"] == .toOne(nil))
        #expect(try store.verify().isEmpty)
    }

    @Test func denyFailsWithTheBlockersListedAndStoresNothing() throws {
        let store = try companyStore()
        let o = try store.insert("Office", ["city": str("Paris")])
        let d1 = try store.insert("Department", ["name": str("A"), "office": .toOne(o)])
        let d2 = try store.insert("Department", ["name": str("B"), "office": .toOne(o)])
        let before = store.engine.lastCommit
        do {
            try store.apply(ChangeSet(deleted: [o]))
            Issue.record("deny did not fail")
        } catch let error as CdError {
            #expect(error.code == 1600)
            #expect(error.failure?.key == "departments")
            #expect(error.failure?.objectID == o.description)
            #expect(
                error.failure?.message.contains("\(d1)") == true && error.failure?.message.contains("\(d2)") == true,
                "\(error)")
        }
        #expect(store.engine.lastCommit == before, "nothing committed")
        #expect(try store.exists(o))
        // Deleting the blockers in the same change set lets the delete through.
        let applied = try store.apply(ChangeSet(deleted: [o, d1, d2]))
        #expect(applied.deleted == [o, d1, d2])
        #expect(try store.verify().isEmpty)
    }

    /// A delete naming a stored key as another entity of its hierarchy (an `Employee` ID whose
    /// key holds a `Manager`) finds no such object and removes nothing: the record is read and
    /// removed in one descent only when it is the named entity's (ChangeApplier+Delete D3).
    @Test func aDeleteNamingAnotherEntityOfTheKeyRemovesNothing() throws {
        let store = try companyStore()
        let m = try store.insert("Manager", ["badge": str("m"), "salary": int(10)])
        let applied = try store.apply(ChangeSet(deleted: [ObjectID(entity: "Employee", primaryKey: m.primaryKey)]))
        #expect(applied.deleted.isEmpty)
        #expect(try store.values(m)?["badge"] == str("m"))
        var bySalary = FetchRequest(entity: "Employee")
        bySalary.predicate = try CdPredicate(format: "salary == 10")
        #expect(try store.fetch(bySalary) == [m])
        #expect(try store.verify().isEmpty)
    }

    @Test func noActionLeavesADanglingReference() throws {
        let store = try companyStore()
        let e = try store.insert("Employee", ["badge": str("1")])
        let p = try store.insert("Project", ["title": str("p"), "owner": .toOne(e)])
        #expect(try store.related(e, "ownedProjects") == [p])
        let applied = try store.apply(ChangeSet(deleted: [e]))
        #expect(applied.updated.isEmpty)
        #expect(try store.values(p)?["owner"] == .toOne(e), "dangling, as Core Data leaves it")
        let problems = try store.verify()
        #expect(problems.count == 1)
        #expect(problems.first?.objectID == p)
        #expect(problems.first?.message.contains("does not exist") == true)
    }

    @Test func aNullifiedRequiredToOneFailsValidation() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Owner",
                relationships: [.toMany("pets", destination: "Pet", inverse: "owner", deleteRule: .nullify)]),
            EntityDescription(
                name: "Pet",
                relationships: [.init(name: "owner", destination: "Owner", inverse: "pets", isOptional: false)]),
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        let o = try store.insert("Owner", [:])
        let p = try store.insert("Pet", ["owner": .toOne(o)])
        #expect(errorCode { try store.apply(ChangeSet(deleted: [o])) } == 1570)
        #expect(try store.exists(o) && store.exists(p))
        #expect(errorCode { try store.insert("Pet", [:]) } == 1570)
    }
}
