// `ObjectStoreWriter`: many change sets in one engine transaction (BW1–BW4). Each test compares
// what the store holds afterwards, read by name, with what one `apply` gives or with the
// expected contents, so a lost inverse, a list edited twice or a partial rollback fails it.

import CdStore
import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore streaming writer")
struct ObjectStoreWriterTests {
    /// Every object of the company model with its stored values and to-many lists, in key order.
    private func contents(_ store: ObjectStore) throws -> [String] {
        let toManys = [
            "Office": ["departments"], "Department": ["employees"], "Employee": ["projects", "ownedProjects"],
            "Manager": ["projects", "ownedProjects", "reports"], "Project": ["members"], "Desk": [],
        ]
        var lines: [String] = []
        try store.read { snapshot in
            for entity in toManys.keys.sorted() {
                var request = FetchRequest(entity: entity)
                request.includesSubentities = false
                for id in try snapshot.fetchIDs(request, pending: nil).sorted() {
                    let values = try #require(try snapshot.values(of: id))
                    var line = "\(id):"
                    for key in values.keys.sorted() { line += " \(key)=\(values[key]!)" }
                    for r in toManys[entity]! { line += " \(r)=\(try snapshot.related(id, r))" }
                    lines.append(line)
                }
            }
        }
        return lines
    }

    /// A workload in batches: departments, then employees linked to them and to projects, then
    /// moves and deletes that reach back into earlier batches.
    private func batches(_ store: ObjectStore) throws -> [ChangeSet] {
        let departments = try store.newObjectIDs(entity: "Department", count: 3)
        let projects = try store.newObjectIDs(entity: "Project", count: 2)
        let employees = try store.newObjectIDs(entity: "Employee", count: 12)
        var first = ChangeSet()
        for (i, d) in departments.enumerated() { first.inserted[d] = ["name": str("d\(i)"), "budget": int(10)] }
        for (i, p) in projects.enumerated() { first.inserted[p] = ["title": str("p\(i)")] }
        var second = ChangeSet(), third = ChangeSet()
        for (i, e) in employees.enumerated() {
            var values: [String: PropertyValue] = [
                "badge": str("b\(i)"), "salary": int(Int64(i) * 100), "department": .toOne(departments[i % 3]),
            ]
            if i % 2 == 0 { values["projects"] = .toMany([projects[i % 4 / 2]]) }
            if i < 6 { second.inserted[e] = values } else { third.inserted[e] = values }
        }
        // Reaching back: an employee of batch 2 moves, another is deleted, a department renamed.
        third.updated[employees[1]] = ["department": .toOne(departments[2]), "salary": int(7)]
        third.updated[departments[0]] = ["budget": int(99)]
        var fourth = ChangeSet(deleted: [employees[4], employees[7]])
        fourth.updated[projects[0]] = ["members": .toMany([employees[0], employees[9]])]
        return [first, second, third, fourth]
    }

    @Test func batchesLeaveTheStoreAsOneApplyOfTheirUnion() throws {
        let streamed = try companyStore(), single = try companyStore()
        let writer = try streamed.beginWriter()
        for batch in try batches(streamed) { try writer.apply(batch) }
        let applied = try writer.commit()
        #expect(!writer.isOpen)
        // The same change sets folded into one: the fresh store hands out the same keys.
        var union = ChangeSet()
        for batch in try batches(single) {
            for (id, values) in batch.inserted { union.inserted[id] = values }
            for (id, values) in batch.updated {
                if union.inserted[id] != nil {
                    union.inserted[id]!.merge(values) { $1 }
                } else {
                    union.updated[id, default: [:]].merge(values) { $1 }
                }
            }
            for id in batch.deleted where union.inserted.removeValue(forKey: id) == nil { union.deleted.insert(id) }
        }
        let one = try single.apply(union)
        #expect(try contents(streamed) == contents(single))
        #expect(try contents(streamed).count == 3 + 2 + 10)
        #expect(applied.inserted == one.inserted)
        #expect(applied.deleted == one.deleted)
        #expect(try streamed.verify().isEmpty)
    }

    @Test func aViolationInTheThirdBatchRollsBackTheFirstTwo() throws {
        let store = try companyStore()
        try store.insert("Department", ["name": str("kept")])
        let before = try contents(store), commit = store.engine.lastCommit
        let writer = try store.beginWriter()
        let ids = try store.newObjectIDs(entity: "Employee", count: 3)
        try writer.apply(ChangeSet(inserted: [ids[0]: ["badge": str("a")]]))
        try writer.apply(ChangeSet(inserted: [ids[1]: ["badge": str("b")]]))
        // Batch 3 takes a badge batch 1 wrote: found through the unique index of the transaction.
        #expect(errorCode { try writer.apply(ChangeSet(inserted: [ids[2]: ["badge": str("a")]])) } == 1551)
        #expect(!writer.isOpen)
        #expect(errorCode { try writer.apply(ChangeSet(inserted: [ids[2]: ["badge": str("c")]])) } == 134060)
        #expect(try contents(store) == before)
        #expect(store.engine.lastCommit == commit)
        // The writer let the engine's writer go: the store takes the next write.
        try store.insert("Employee", ["badge": str("a")])
        #expect(try store.verify().isEmpty)
    }

    @Test func inversesAndListsStayInStepAcrossBatches() throws {
        let store = try companyStore()
        let writer = try store.beginWriter()
        let d = try store.newObjectIDs(entity: "Department", count: 2)
        try writer.apply(ChangeSet(inserted: [d[0]: ["name": str("x")], d[1]: ["name": str("y")]]))
        let e = try store.newObjectIDs(entity: "Employee", count: 4)
        var members: [ObjectID: [String: PropertyValue]] = [:]
        for (i, id) in e.enumerated() { members[id] = ["badge": str("e\(i)"), "department": .toOne(d[0])] }
        try writer.apply(ChangeSet(inserted: members))
        // The list of d[0] was written by batch 2 as single entries; batch 3 reads and edits it.
        try writer.apply(ChangeSet(updated: [e[1]: ["department": .toOne(d[1])]], deleted: [e[2]]))
        try writer.apply(ChangeSet(updated: [d[1]: ["employees": .toMany([e[1], e[3]])]]))
        let inside = try writer.snapshot()
        #expect(try inside.related(d[0], "employees") == [e[0]])
        #expect(try store.read { try $0.exists(d[0]) } == false, "nothing is visible before the commit")
        let applied = try writer.commit()
        #expect(try store.related(d[0], "employees") == [e[0]])
        #expect(try store.related(d[1], "employees") == [e[1], e[3]])
        #expect(try store.values(e[3])?["department"] == .toOne(d[1]))
        #expect(try store.exists(e[2]) == false)
        #expect(applied.inserted == Set(d + [e[0], e[1], e[3]]))
        #expect(applied.updated.isEmpty && applied.deleted.isEmpty, "inserted and deleted inside: neither")
        #expect(try store.verify().isEmpty)
    }

    @Test func validationSeesTheStateAtTheCommit() throws {
        let store = try companyStore()
        let writer = try store.beginWriter()
        let d = try store.newObjectIDs(entity: "Department", count: 2)
        // Both lack their mandatory name in batch 1; a later batch gives d[0] one.
        try writer.apply(ChangeSet(inserted: [d[0]: [:], d[1]: ["name": str("b"), "budget": int(-1)]]))
        try writer.apply(ChangeSet(updated: [d[0]: ["name": str("a")]]))
        #expect(errorCode { try writer.commit() } == 1620, "d[1]'s budget stays below its minimum")
        #expect(try store.exists(d[0]) == false && store.exists(d[1]) == false)

        let again = try store.beginWriter()
        try again.apply(ChangeSet(inserted: [d[0]: [:], d[1]: ["name": str("b"), "budget": int(-1)]]))
        try again.apply(ChangeSet(updated: [d[0]: ["name": str("a")], d[1]: ["budget": int(5)]]))
        try again.commit()
        #expect(try store.values(d[1])?["budget"] == int(5))
        #expect(try store.verify().isEmpty)
    }

    @Test func aSnapshotOfTheWriterSeesItsBatchesAndNewKeysFollowThem() throws {
        let store = try companyStore()
        let writer = try store.beginWriter()
        let ids = try store.newObjectIDs(entity: "Employee", count: 5)
        var batch = SlotChangeSet()
        let table = try #require(PropertySlots.tables(of: store.model)["Employee"])
        for (i, id) in ids.enumerated() {
            var values = [PropertyValue?](repeating: nil, count: table.names.count)
            values[try #require(table.slot(of: "badge"))] = str("s\(i)")
            values[try #require(table.slot(of: "salary"))] = int(Int64(50 - i))
            batch.inserted.append(SlotChangeSet.Entry(id: id, values: values))
        }
        try writer.apply(slots: batch)
        var request = FetchRequest(entity: "Employee")
        request.sortDescriptors = [SortDescriptor("salary")]
        #expect(try writer.snapshot().fetchIDs(request, pending: nil) == ids.reversed())
        #expect(try writer.snapshot().count(request, pending: nil) == 5)
        try writer.commit()
        #expect(try store.fetch(request) == ids.reversed())
        let reopened = try store.newObjectIDs(entity: "Employee", count: 1)[0]
        #expect(reopened.primaryKey > ids.last!.primaryKey)
    }

    @Test func sideWritesOfEachBatchCommitWithTheBatchesOrRollBackWithThem() throws {
        let store = try companyStore()
        func put(_ key: String, _ value: String?) -> SideTreeWrite {
            SideTreeWrite(tree: "test.side", key: Array(key.utf8), value: value.map { Array($0.utf8) })
        }
        func side(_ key: String, in snapshot: ObjectSnapshot) throws -> String? {
            try snapshot.sideTree("test.side")?.get(Array(key.utf8)).map { String(decoding: $0, as: UTF8.self) }
        }
        let d = try store.newObjectIDs(entity: "Department", count: 2)
        let writer = try store.beginWriter()
        var first = ChangeSet(inserted: [d[0]: ["name": str("x")]])
        first.sideWrites = [put("a", "1"), put("b", "2")]
        try writer.apply(first)
        #expect(try side("a", in: writer.snapshot()) == "1", "a later batch reads what an earlier one wrote")
        var second = ChangeSet(inserted: [d[1]: ["name": str("y")]])
        second.sideWrites = [put("a", "3"), put("b", nil)]
        try writer.apply(second)
        #expect(try store.read { try side("a", in: $0) } == nil, "nothing is visible before the commit")
        try writer.commit()
        #expect(try store.read { try side("a", in: $0) } == "3")
        #expect(try store.read { try side("b", in: $0) } == nil)
        // Rolled back: neither the objects nor the side writes of the batches stay.
        let e = try store.newObjectIDs(entity: "Department", count: 1)
        let rolled = try store.beginWriter()
        var third = ChangeSet(inserted: [e[0]: ["name": str("z")]])
        third.sideWrites = [put("a", "4"), put("c", "5")]
        try rolled.apply(third)
        rolled.rollback()
        #expect(try store.read { try side("a", in: $0) } == "3")
        #expect(try store.read { try side("c", in: $0) } == nil)
        #expect(try store.exists(e[0]) == false)
        #expect(try store.verify().isEmpty)
    }
}
