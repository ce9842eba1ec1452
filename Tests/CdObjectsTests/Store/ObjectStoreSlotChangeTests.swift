// `ObjectStore.apply(slots:)`: change sets in slot form (`PropertySlots`), as the object layer
// commits them. Each test compares with what the store holds afterwards, read by name, so a
// slot that lands in the wrong field, a lost inverse or a skipped object fails it.

import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore slot change sets")
struct ObjectStoreSlotChangeTests {
    /// Values by name → a slot buffer of `entity`.
    private func slots(
        _ entity: String, _ values: [String: PropertyValue], in store: ObjectStore
    ) throws -> [PropertyValue?] {
        let table = try #require(PropertySlots.tables(of: store.model)[entity])
        var buffer = [PropertyValue?](repeating: nil, count: table.names.count)
        for (key, value) in values { buffer[try #require(table.slot(of: key))] = value }
        return buffer
    }

    @Test func slotsFollowTheRecordLayoutThenToManyThenTransient() throws {
        let store = try companyStore()
        let table = try #require(PropertySlots.tables(of: store.model)["Employee"])
        // Stored attributes by name, stored to-ones by name, stored to-manys, then transients.
        #expect(
            table.names == [
                "badge", "email", "hired", "name", "salary", "department", "desk", "ownedProjects", "projects",
                "onBreak",
            ])
        #expect(table.attributeCount == 5 && table.toOneCount == 2 && table.toManyCount == 2)
        #expect(table.storedCount == 9)
        for (slot, name) in table.names.enumerated() { #expect(table.slot(of: name) == slot) }
        #expect(table.slot(of: "nothing") == nil)
    }

    @Test func insertAndUpdateInSlotFormReadBackByName() throws {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("R&D")])
        let ids = try store.newObjectIDs(entity: "Employee", count: 3)
        var changes = SlotChangeSet()
        // Out of key order: the applier still finds each one (SC1) and links each to `d`.
        for (i, id) in ids.enumerated().reversed() {
            let values = try slots(
                "Employee",
                [
                    "badge": str("b\(i)"), "salary": int(Int64(i) * 10), "department": .toOne(d),
                    "onBreak": .attribute(.bool(true)),
                ],
                in: store)
            changes.inserted.append(SlotChangeSet.Entry(id: id, values: values))
        }
        let applied = try store.apply(slots: changes)
        #expect(applied.inserted == Set(ids))
        #expect(applied.updated == [d], "the department changed through the inverse")
        for (i, id) in ids.enumerated() {
            let stored = try #require(try store.values(id))
            #expect(stored["badge"] == str("b\(i)"))
            #expect(stored["salary"] == int(Int64(i) * 10))
            #expect(stored["department"] == .toOne(d))
            #expect(stored["onBreak"] == nil, "a transient slot is not stored")
        }
        #expect(try store.related(d, "employees") == ids)

        var update = SlotChangeSet()
        update.updated.append(
            SlotChangeSet.Entry(id: ids[1], values: try slots("Employee", ["salary": int(99)], in: store)))
        let second = try store.apply(slots: update)
        #expect(second.updated == [ids[1]])
        #expect(try store.values(ids[1])?["salary"] == int(99))
        #expect(try store.values(ids[1])?["badge"] == str("b1"), "slots not given are left alone")
        #expect(try store.verify().isEmpty)
    }

    @Test func aLaterOneToOneTakesTheTargetFromAnEarlierNewObject() throws {
        let store = try companyStore()
        let desk = try store.insert("Desk", ["floor": .attribute(.integer(1)), "number": .attribute(.integer(2))])
        let ids = try store.newObjectIDs(entity: "Employee", count: 2)
        var changes = SlotChangeSet()
        for (i, id) in ids.enumerated() {
            let values = try slots("Employee", ["badge": str("\(i)"), "desk": .toOne(desk)], in: store)
            changes.inserted.append(SlotChangeSet.Entry(id: id, values: values))
        }
        try store.apply(slots: changes)
        // Applied in key order: the second employee takes the desk, the first loses it.
        #expect(try store.values(ids[0])?["desk"] == .toOne(nil))
        #expect(try store.values(ids[1])?["desk"] == .toOne(desk))
        #expect(try store.values(desk)?["owner"] == .toOne(ids[1]))
        #expect(try store.verify().isEmpty)
    }

    @Test func linksToAnUnreadListAreWrittenAsSingleEntries() throws {
        let store = try companyStore()
        let a = try store.insert("Department", ["name": str("A")])
        let b = try store.insert("Department", ["name": str("B")])
        var staff: [ObjectID] = []
        for i in 0..<5 { staff.append(try store.insert("Employee", ["badge": str("\(i)"), "department": .toOne(a)])) }
        // One new employee joins A and one existing one moves to B: neither list is read by the
        // applier (CA2), yet both end up right.
        let newcomer = try store.newObjectIDs(entity: "Employee", count: 1)[0]
        var changes = SlotChangeSet()
        changes.inserted.append(
            SlotChangeSet.Entry(
                id: newcomer, values: try slots("Employee", ["badge": str("new"), "department": .toOne(a)], in: store)))
        changes.updated.append(
            SlotChangeSet.Entry(id: staff[2], values: try slots("Employee", ["department": .toOne(b)], in: store)))
        let applied = try store.apply(slots: changes)
        #expect(applied.updated == [a, b, staff[2]])
        #expect(try store.related(a, "employees") == [staff[0], staff[1], staff[3], staff[4], newcomer])
        #expect(try store.related(b, "employees") == [staff[2]])
        #expect(try store.verify().isEmpty)
        // A pending query sees the same through its overlay, which reads the lists.
        let pending = ChangeSet(updated: [staff[0]: ["department": .toOne(b)]])
        var request = FetchRequest(entity: "Employee")
        request.predicate = try CdPredicate(format: "department == %@", b)
        #expect(Set(try store.fetch(request, pending: pending)) == [staff[0], staff[2]])
    }

    @Test func aValueOfTheWrongKindIsRefusedWithItsName() throws {
        let store = try companyStore()
        let id = try store.newObjectIDs(entity: "Employee", count: 1)[0]
        var values = try slots("Employee", ["badge": str("1")], in: store)
        let table = try #require(PropertySlots.tables(of: store.model)["Employee"])
        values[try #require(table.slot(of: "department"))] = str("not a target")
        var changes = SlotChangeSet()
        changes.inserted.append(SlotChangeSet.Entry(id: id, values: values))
        do {
            try store.apply(slots: changes)
            Issue.record("a string in a to-one slot was accepted")
        } catch let error as CdError {
            #expect(error.code == 1550)
            #expect(error.description.contains("department"), "\(error)")
        }
        #expect(try store.values(id) == nil, "nothing was stored")
    }

    @Test func slotAndNamedChangeSetsStoreTheSame() throws {
        let named = try companyStore(), slotted = try companyStore()
        var results: [[String: PropertyValue]?] = []
        for store in [named, slotted] {
            let d = try store.insert("Department", ["name": str("Ops")])
            let id = try store.newObjectIDs(entity: "Employee", count: 1)[0]
            let values: [String: PropertyValue] = [
                "badge": str("7"), "name": str("Ann"), "hired": .attribute(.date(Date(timeIntervalSince1970: 5))),
                "department": .toOne(d),
            ]
            if store === named {
                try store.apply(ChangeSet(inserted: [id: values]))
            } else {
                var changes = SlotChangeSet()
                changes.inserted.append(SlotChangeSet.Entry(id: id, values: try slots("Employee", values, in: store)))
                try store.apply(slots: changes)
            }
            results.append(try store.values(id))
        }
        #expect(results[0] != nil && results[0] == results[1])
    }
}
