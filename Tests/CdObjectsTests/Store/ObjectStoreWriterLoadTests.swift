import CdStore
import Foundation
import Testing

@testable import CdObjects

/// A load (ObjectStoreWriter+Load.swift): records written once with their to-ones as given, lists
/// as relationship entries, inverses left to the caller (LD1–LD4); the object checks find the
/// store consistent when the caller loads both sides.
@Suite("ObjectStoreWriter load")
struct ObjectStoreWriterLoadTests {
    func id(_ entity: String, _ key: Int64) -> ObjectID { ObjectID(entity: entity, primaryKey: key) }

    @Test func objectsAndListsLoadAsGivenAndAgreeWhenBothSidesAreLoaded() throws {
        let store = try companyStore()
        let office = id("Office", 1), department = id("Department", 1)
        let ada = id("Employee", 1), bo = id("Employee", 2), boss = id("Manager", 3)
        let writer = try store.beginWriter()
        try writer.load(
            ChangeSet(inserted: [
                office: ["city": str("Oslo")],
                department: ["name": str("R&D"), "office": .toOne(office)],
                ada: ["badge": str("a"), "department": .toOne(department)],
                bo: ["badge": str("b"), "department": .toOne(department)],
                boss: ["badge": str("c")],
            ]))
        try writer.loadLinks(owner: office, relationship: "departments", members: [department])
        // Unordered: written by key, whatever the order given.
        try writer.loadLinks(owner: department, relationship: "employees", members: [bo, ada])
        // Ordered: in the order given, a member named twice written once (LD2).
        try writer.loadLinks(owner: boss, relationship: "reports", members: [bo, ada, bo])
        try writer.commit()
        #expect(try store.verify().isEmpty)
        #expect(try store.related(department, "employees") == [ada, bo])
        #expect(try store.related(boss, "reports") == [bo, ada])
        #expect(try store.values(ada)?["department"] == .toOne(department))
        #expect(try store.values(department)?["office"] == .toOne(office))
        #expect(try store.toManyCountErrors().isEmpty)
        // The next keys cover the loaded keys (LD1: as `apply` stores them).
        #expect(try store.newObjectIDs(entity: "Employee", count: 1)[0].primaryKey == 4)
    }

    @Test func aLoadOfOneSideOnlyIsFoundByTheObjectChecks() throws {
        let store = try companyStore()
        let writer = try store.beginWriter()
        try writer.load(
            ChangeSet(inserted: [
                id("Department", 1): ["name": str("R&D")],
                id("Employee", 1): ["badge": str("a"), "department": .toOne(id("Department", 1))],
            ]))
        try writer.commit()
        // LD3 is the caller's: the list that should hold the employee was not loaded.
        #expect(try !store.verify().isEmpty)
    }

    @Test func aLoadRefusesWhatItCannotStoreAsGiven() throws {
        let store = try companyStore()
        let department = id("Department", 1)
        let cases: [(String, Int, (ObjectStoreWriter) throws -> Void)] = [
            (
                "a to-many with the objects", 1550,
                { try $0.load(ChangeSet(inserted: [department: ["name": str("x"), "employees": .toMany([])]])) }
            ),
            (
                "a to-one of another entity", 1550,
                {
                    try $0.load(
                        ChangeSet(inserted: [
                            id("Employee", 1): ["badge": str("a"), "department": .toOne(id("Office", 1))]
                        ]))
                }
            ),
            (
                "an update", 1550,
                { try $0.load(ChangeSet(updated: [department: ["name": str("x")]])) }
            ),
            (
                "a member of another entity", 1550,
                { try $0.loadLinks(owner: department, relationship: "employees", members: [id("Office", 1)]) }
            ),
            (
                "a to-one as a list", 1550,
                { try $0.loadLinks(owner: department, relationship: "office", members: [id("Office", 1)]) }
            ),
            (
                "a required attribute nil, at once (LD1)", 1570,
                { try $0.load(ChangeSet(inserted: [department: ["budget": int(5)]])) }
            ),
        ]
        for (what, code, body) in cases {
            let writer = try store.beginWriter()
            #expect(errorCode { try body(writer) } == code, "\(what)")
            #expect(!writer.isOpen, "\(what): the writer is finished (BW1)")
        }
        #expect(try store.read { try $0.count(FetchRequest(entity: "Department")) } == 0)
    }

    @Test func toManyCountsAreCheckedOverTheWholeStore() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Team", attributes: [.init(name: "name", type: .string)],
                relationships: [.toMany("players", destination: "Player", inverse: "team", minCount: 2)]),
            EntityDescription(
                name: "Player", attributes: [.init(name: "name", type: .string)],
                relationships: [.init(name: "team", destination: "Team", inverse: "players")]),
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        let full = id("Team", 1), short = id("Team", 2)
        let players = (1...3).map { id("Player", Int64($0)) }
        let writer = try store.beginWriter()
        // Teams with fewer than 2 players load (LD4: their lists come later).
        try writer.load(ChangeSet(inserted: [full: [:], short: [:]]))
        try writer.load(
            ChangeSet(inserted: [
                players[0]: ["team": .toOne(full)], players[1]: ["team": .toOne(full)],
                players[2]: ["team": .toOne(short)],
            ]))
        try writer.loadLinks(owner: full, relationship: "players", members: [players[0], players[1]])
        try writer.loadLinks(owner: short, relationship: "players", members: [players[2]])
        try writer.commit()
        let errors = try store.toManyCountErrors()
        #expect(errors.count == 1)
        #expect(errors.first.map { "\($0)".contains("Team/2") } == true, "\(errors)")
    }

    @Test func aListLoadedInPiecesAcrossCommitsKeepsItsOrderAndMembers() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Team", attributes: [.init(name: "name", type: .string)],
                relationships: [
                    .toMany("roster", destination: "Player", inverse: "team", ordered: true),
                    .toMany("fans", destination: "Player", inverse: "club"),
                ]),
            EntityDescription(
                name: "Player", attributes: [.init(name: "name", type: .string)],
                relationships: [
                    .init(name: "team", destination: "Team", inverse: "roster"),
                    .init(name: "club", destination: "Team", inverse: "fans"),
                ]),
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        let team = id("Team", 1)
        let players = (1...10).map { id("Player", Int64($0)) }
        var writer = try store.beginWriter()
        try writer.load(ChangeSet(inserted: [team: ["name": str("A")]]))
        try writer.load(
            ChangeSet(
                inserted: Dictionary(
                    uniqueKeysWithValues: players.map { ($0, ["team": .toOne(team), "club": .toOne(team)]) })))
        // The roster in reverse key order, in three pieces over two commits; the fans by key.
        let roster = Array(players.reversed())
        try writer.loadLinks(owner: team, relationship: "roster", members: Array(roster[0..<4]))
        try writer.loadLinks(owner: team, relationship: "fans", members: Array(players[0..<6]))
        try writer.commit()
        writer = try store.beginWriter()
        try writer.loadLinks(owner: team, relationship: "roster", members: Array(roster[4..<7]), startingAt: 4)
        try writer.loadLinks(owner: team, relationship: "roster", members: Array(roster[7...]), startingAt: 7)
        try writer.loadLinks(owner: team, relationship: "fans", members: Array(players[6...]), startingAt: 6)
        try writer.commit()
        #expect(try store.verify().isEmpty)
        #expect(try store.related(team, "roster") == roster)
        #expect(try store.related(team, "fans") == players)
        // Positions continue: the second piece's first member is at position 4, not 0.
        let positions = try store.engine.read { tx -> [Int] in
            let layout = store.layout
            let treeName = try #require(try layout.entity("Team").toManyTrees["roster"])
            let tree = try #require(try tx.tree(treeName))
            var found: [Int] = []
            try tree.scan { key, _ in
                found.append(Int(key.readBE(UInt32.self, at: key.count - 4)))
                return true
            }
            return found
        }
        #expect(positions == Array(0..<10))
    }
}
