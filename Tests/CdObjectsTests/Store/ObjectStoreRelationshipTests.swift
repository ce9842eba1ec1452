import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore relationships and inverses")
struct ObjectStoreRelationshipTests {
    @Test func settingTheToOneSideFillsTheToManyInverse() throws {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("R&D")])
        let e1 = try store.insert("Employee", ["badge": str("1"), "department": .toOne(d)])
        let e2 = try store.insert("Employee", ["badge": str("2"), "department": .toOne(d)])
        #expect(try store.related(d, "employees") == [e1, e2])
        #expect(try store.values(e1)?["department"] == .toOne(d))
        #expect(try store.verify().isEmpty)
    }

    @Test func settingTheToManySideFillsTheToOneInverse() throws {
        let store = try companyStore()
        let ids = try store.newObjectIDs(entity: "Employee", count: 2)
        let d = try store.newObjectIDs(entity: "Department", count: 1)[0]
        let applied = try store.apply(
            ChangeSet(inserted: [
                ids[0]: ["badge": str("a")], ids[1]: ["badge": str("b")],
                d: ["name": str("Ops"), "employees": .toMany(ids)],
            ]))
        #expect(applied.inserted == Set(ids + [d]))
        #expect(try store.values(ids[0])?["department"] == .toOne(d))
        #expect(try store.values(ids[1])?["department"] == .toOne(d))
        #expect(try store.verify().isEmpty)
    }

    @Test func movingAnEmployeeRemovesItFromThePreviousDepartment() throws {
        let store = try companyStore()
        let d1 = try store.insert("Department", ["name": str("A")])
        let d2 = try store.insert("Department", ["name": str("B")])
        let e = try store.insert("Employee", ["badge": str("1"), "department": .toOne(d1)])
        let applied = try store.apply(ChangeSet(updated: [e: ["department": .toOne(d2)]]))
        #expect(applied.updated == [e, d1, d2])
        #expect(try store.related(d1, "employees") == [])
        #expect(try store.related(d2, "employees") == [e])
        // The other way: adding the employee to d1's to-many takes it out of d2.
        try store.apply(ChangeSet(updated: [d1: ["employees": .toMany([e])]]))
        #expect(try store.related(d2, "employees") == [])
        #expect(try store.values(e)?["department"] == .toOne(d1))
        // Removing it from the to-many clears the to-one.
        try store.apply(ChangeSet(updated: [d1: ["employees": .toMany([])]]))
        #expect(try store.values(e)?["department"] == .toOne(nil))
        #expect(try store.verify().isEmpty)
    }

    @Test func oneToOneStealsTheTargetFromItsPreviousOwner() throws {
        let store = try companyStore()
        let desk = try store.insert("Desk", ["floor": int(1), "number": int(1)])
        let a = try store.insert("Employee", ["badge": str("a"), "desk": .toOne(desk)])
        #expect(try store.values(desk)?["owner"] == .toOne(a))
        let b = try store.insert("Employee", ["badge": str("b"), "desk": .toOne(desk)])
        #expect(try store.values(desk)?["owner"] == .toOne(b))
        #expect(try store.values(a)?["desk"] == .toOne(nil))
        try store.apply(ChangeSet(updated: [desk: ["owner": .toOne(a)]]))
        #expect(try store.values(a)?["desk"] == .toOne(desk))
        #expect(try store.values(b)?["desk"] == .toOne(nil))
        #expect(try store.verify().isEmpty)
    }

    @Test func manyToManyKeepsBothSidesInStep() throws {
        let store = try companyStore()
        let p1 = try store.insert("Project", ["title": str("p1")])
        let p2 = try store.insert("Project", ["title": str("p2")])
        let e = try store.insert("Employee", ["badge": str("e"), "projects": .toMany([p2, p1])])
        #expect(Set(try store.related(e, "projects")) == [p1, p2])
        #expect(try store.related(p1, "members") == [e])
        let f = try store.insert("Employee", ["badge": str("f")])
        try store.apply(ChangeSet(updated: [p1: ["members": .toMany([f])]]))
        #expect(try store.related(e, "projects") == [p2])
        #expect(try store.related(f, "projects") == [p1])
        #expect(try store.verify().isEmpty)
    }

    @Test func orderedToManyKeepsItsOrder() throws {
        let store = try companyStore()
        let e = try store.newObjectIDs(entity: "Employee", count: 4)
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for (i, id) in e.enumerated() { inserted[id] = ["badge": str("e\(i)")] }
        let m = try store.newObjectIDs(entity: "Manager", count: 1)[0]
        inserted[m] = ["badge": str("m"), "reports": .toMany([e[2], e[0], e[3]])]
        try store.apply(ChangeSet(inserted: inserted))
        #expect(try store.related(m, "reports") == [e[2], e[0], e[3]])
        try store.apply(ChangeSet(updated: [m: ["reports": .toMany([e[3], e[1]])]]))
        #expect(try store.related(m, "reports") == [e[3], e[1]])
        try store.apply(ChangeSet(deleted: [m]))
        #expect(try store.verify().isEmpty)
    }

    @Test func orderedToManyWithAToOneInverseAppendsAndMoves() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Playlist",
                relationships: [.toMany("songs", destination: "Song", inverse: "playlist", ordered: true)]),
            EntityDescription(
                name: "Song", attributes: [.init(name: "title", type: .string)],
                relationships: [.init(name: "playlist", destination: "Playlist", inverse: "songs")]),
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        let a = try store.insert("Playlist", [:])
        let b = try store.insert("Playlist", [:])
        let s = try store.newObjectIDs(entity: "Song", count: 4)
        try store.apply(
            ChangeSet(
                inserted: [s[0]: [:], s[1]: [:], s[2]: [:], s[3]: [:]],
                updated: [a: ["songs": .toMany([s[2], s[0], s[1]])]]))
        #expect(try store.related(a, "songs") == [s[2], s[0], s[1]])
        try store.apply(ChangeSet(updated: [s[3]: ["playlist": .toOne(a)]]))
        #expect(try store.related(a, "songs") == [s[2], s[0], s[1], s[3]], "setting the to-one appends")
        try store.apply(ChangeSet(updated: [s[0]: ["playlist": .toOne(b)]]))
        #expect(try store.related(a, "songs") == [s[2], s[1], s[3]], "order of the rest kept")
        #expect(try store.related(b, "songs") == [s[0]])
        try store.apply(ChangeSet(deleted: [s[1]]))
        #expect(try store.related(a, "songs") == [s[2], s[3]])
        #expect(try store.verify() == [])
    }

    @Test func aTargetOfTheWrongEntityOrAMissingTargetIsRejected() throws {
        let store = try companyStore()
        let office = try store.insert("Office", ["city": str("Rome")])
        let e = try store.insert("Employee", ["badge": str("e")])
        #expect(errorCode { try store.apply(ChangeSet(updated: [e: ["department": .toOne(office)]])) } == 1550)
        #expect(
            errorCode {
                try store.apply(
                    ChangeSet(updated: [e: ["department": .toOne(ObjectID(entity: "Department", primaryKey: 77))]]))
            } == 1550)
        #expect(errorCode { try store.apply(ChangeSet(updated: [e: ["department": .toMany([])]])) } == 1550)
        #expect(errorCode { try store.apply(ChangeSet(updated: [e: ["nope": int(1)]])) } == 1550)
        #expect(try store.values(e)?["department"] == .toOne(nil))
    }

    @Test func subEntityInstancesAreValidTargets() throws {
        let store = try companyStore()
        let m = try store.insert("Manager", ["badge": str("m"), "level": int(3)])
        let d = try store.insert("Department", ["name": str("D"), "employees": .toMany([m])])
        #expect(try store.values(m)?["department"] == .toOne(d))
        #expect(try store.verify().isEmpty)
    }
}
