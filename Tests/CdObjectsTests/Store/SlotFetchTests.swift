// `fetchSlotObjects` keeps FP1: each match's buffer holds, by `PropertySlots` slot, exactly what
// `values(of:)` gives by name, with the stored to-many slots left nil; and it returns the matches
// `fetchObjects` returns, with and without pending changes. Seeded; set CD_SEED to replay.

import Foundation
import Testing
@testable import CdObjects

@Suite("Slot-form fetch")
struct SlotFetchTests {
    @Test func slotBuffersHoldWhatValuesOfGivesByName() throws {
        let seed = testSeed("slotBuffersHoldWhatValuesOfGivesByName")
        var g = SeededGenerator(seed: seed)
        for round in 0..<4 {
            let store = try companyStore()
            let tables = PropertySlots.tables(of: store.model)
            let (departments, employees) = try ObjectStorePendingTests.populate(store, &g)
            let manager = try store.newObjectIDs(entity: "Manager", count: 1)[0]
            try store.apply(
                ChangeSet(inserted: [manager: ["badge": str("M"), "level": int(3), "department": .toOne(nil)]]))
            var pending = ChangeSet()
            pending.updated[employees[0]] = ["salary": int(49)]
            pending.deleted.insert(employees[1])
            pending.updated[departments[0]] = ["name": str("renamed")]
            var requests = ObjectStorePendingTests.requests.map { entity, format, sort in
                var r = FetchRequest(entity: entity)
                r.predicate = format.flatMap { try? CdPredicate(format: $0) }
                r.sortDescriptors = sort
                return r
            }
            var byKey = FetchRequest(entity: "Employee")
            byKey.predicate = try CdPredicate(format: "SELF == %@", employees[2])
            requests.append(byKey)
            var projected = FetchRequest(entity: "Employee")
            projected.propertiesToFetch = ["name"]  // ignored: every stored value comes back
            requests.append(projected)
            for changes in [nil, pending] as [ChangeSet?] {
                try store.read { s in
                    for r in requests {
                        let slotted = try s.fetchSlotObjects(r, pending: changes)
                        #expect(
                            slotted.map(\.id) == (try s.fetchIDs(r, pending: changes)), "round \(round) seed \(seed)")
                        for (id, buffer) in slotted {
                            let table = try #require(tables[id.entity])
                            let buffer = try #require(buffer, "\(id) has a record")
                            #expect(buffer.count == table.storedCount, "\(id)")
                            var named: [String: PropertyValue] = [:]
                            for (slot, value) in buffer.enumerated() {
                                if table.kinds[slot] == .toMany { #expect(value == nil, "\(id) \(table.names[slot])") }
                                if let value { named[table.names[slot]] = value }
                            }
                            #expect(named == (try s.values(of: id)), "\(id) round \(round) seed \(seed)")
                        }
                    }
                }
            }
        }
    }
}
