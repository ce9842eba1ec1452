import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore validation and uniqueness")
struct ObjectStoreValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let entity: String
        let values: [String: PropertyValue]
        let code: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "missing required", entity: "Employee", values: [:], code: 1570),
        Case(name: "wrong type", entity: "Employee", values: ["badge": int(3)], code: 1550),
        Case(
            name: "number too large", entity: "Department", values: ["name": str("x"), "budget": int(2_000_000)],
            code: 1610),
        Case(
            name: "number too small", entity: "Department", values: ["name": str("x"), "budget": int(-1)], code: 1620),
        Case(
            name: "integer16 range", entity: "Manager", values: ["badge": str("m"), "level": int(40_000)], code: 1610),
        Case(
            name: "string too long", entity: "Employee",
            values: ["badge": str("b"), "email": str(String(repeating: "a", count: 41))], code: 1660),
        Case(
            name: "pattern", entity: "Employee", values: ["badge": str("b"), "email": str("NOT AN EMAIL")], code: 1680),
        Case(name: "two failures", entity: "Employee", values: ["email": str("X")], code: 1560),
    ]

    @Test(arguments: cases)
    func invalidInsertsFailWithTheirCodeAndStoreNothing(_ c: Case) throws {
        let store = try companyStore()
        let before = store.engine.lastCommit
        let other = try store.newObjectIDs(entity: "Project", count: 1)[0]
        let id = try store.newObjectIDs(entity: c.entity, count: 1)[0]
        #expect(
            errorCode { try store.apply(ChangeSet(inserted: [id: c.values, other: ["title": str("t")]])) } == c.code)
        #expect(store.engine.lastCommit == before)
        #expect(try !store.exists(other))
    }

    @Test func invalidUpdateFailsAndKeepsTheOldValue() throws {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("D"), "budget": int(5)])
        do {
            try store.apply(ChangeSet(updated: [d: ["budget": int(-3)]]))
            Issue.record("no error")
        } catch let e as CdError {
            #expect(e.code == 1620)
            #expect(
                e.failure
                    == ValidationFailure(
                        entity: "Department", objectID: d.description, key: "budget",
                        message: e.failure?.message ?? ""))
        }
        #expect(try store.values(d)?["budget"] == int(5))
    }

    @Test func relationshipCountsAreChecked() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Team",
                relationships: [.toMany("players", destination: "Player", inverse: "team", minCount: 2, maxCount: 3)]),
            EntityDescription(
                name: "Player", relationships: [.init(name: "team", destination: "Team", inverse: "players")]),
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        let p = try store.newObjectIDs(entity: "Player", count: 4)
        var players: [ObjectID: [String: PropertyValue]] = [:]
        for id in p { players[id] = [:] }
        try store.apply(ChangeSet(inserted: players))
        let t = try store.newObjectIDs(entity: "Team", count: 1)[0]
        #expect(errorCode { try store.apply(ChangeSet(inserted: [t: ["players": .toMany([p[0]])]])) } == 1580)
        #expect(errorCode { try store.apply(ChangeSet(inserted: [t: ["players": .toMany(p)]])) } == 1590)
        try store.apply(ChangeSet(inserted: [t: ["players": .toMany([p[0], p[1]])]]))
        // Taking a player away through the other side brings the team below its minimum.
        #expect(errorCode { try store.apply(ChangeSet(updated: [p[1]: ["team": .toOne(nil)]])) } == 1580)
        #expect(errorCode { try store.apply(ChangeSet(deleted: [p[0]])) } == 1580)
        try store.apply(ChangeSet(updated: [p[2]: ["team": .toOne(t)]]))
        #expect(try store.related(t, "players").count == 3)
    }

    @Test func singleUniquenessIsCheckedOnInsertAndUpdate() throws {
        let store = try companyStore()
        let a = try store.insert("Employee", ["badge": str("A")])
        let b = try store.insert("Manager", ["badge": str("B")])
        do {
            try store.insert("Employee", ["badge": str("A")])
            Issue.record("duplicate accepted")
        } catch let e as CdError {
            #expect(e.code == 1551)
            #expect(e.failure?.entity == "Employee")
            #expect(e.failure?.key == "badge")
            #expect(e.failure?.message.contains("\(a)") == true, "\(e)")
        }
        #expect(
            errorCode { try store.apply(ChangeSet(updated: [b: ["badge": str("A")]])) } == 1551, "inherited constraint")
        // Swapping values inside one change set is fine.
        try store.apply(ChangeSet(updated: [a: ["badge": str("B")], b: ["badge": str("A")]]))
        #expect(try store.values(a)?["badge"] == str("B"))
        // Two new objects with the same value in one change set fail.
        let ids = try store.newObjectIDs(entity: "Employee", count: 2)
        #expect(
            errorCode {
                try store.apply(ChangeSet(inserted: [ids[0]: ["badge": str("C")], ids[1]: ["badge": str("C")]]))
            } == 1551)
        // Deleting the holder frees the value in the same change set.
        try store.apply(ChangeSet(inserted: [ids[0]: ["badge": str("A")]], deleted: [b]))
        #expect(try store.verify().isEmpty)
    }

    @Test func compoundUniquenessNeedsEveryColumnEqual() throws {
        let store = try companyStore()
        try store.insert("Desk", ["floor": int(1), "number": int(1)])
        try store.insert("Desk", ["floor": int(1), "number": int(2)])
        try store.insert("Desk", ["floor": int(2), "number": int(1)])
        do {
            try store.insert("Desk", ["floor": int(2), "number": int(1)])
            Issue.record("duplicate accepted")
        } catch let e as CdError {
            #expect(e.code == 1551)
            #expect(e.failure?.key == "floor,number")
        }
        #expect(try store.fetch(FetchRequest(entity: "Desk")).count == 3)
    }

    @Test func uniquenessOnLongStringsComparesWholeValues() throws {
        let store = try companyStore()
        let long = String(repeating: "x", count: 600)
        try store.insert("Employee", ["badge": str(long + "1")])
        try store.insert("Employee", ["badge": str(long + "2")])
        #expect(errorCode { try store.insert("Employee", ["badge": str(long + "2")]) } == 1551)
        #expect(try store.verify().isEmpty)
    }
}
