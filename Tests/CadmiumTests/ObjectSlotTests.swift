// Managed objects keep their values in a buffer indexed by the entity's property slots
// (`ObjectSlots`, the store's `PropertySlots`); each wrapper finds its slot once per class. These
// tests look at the buffer itself, at what reaches the store, at the confinement checks on the
// slot path, and at merges into the main context, which are queued and coalesced (ST1, ST2).

import Foundation
import Testing
@testable import Cadmium
import CdObjects

/// Declared out of name order, with a transient attribute, so a wrapper that found the wrong
/// slot would write another property.
final class SlotProbe: CdManagedObject {
    @Attribute var zeta: String = ""
    @Attribute var alpha: Int64 = 0
    @Attribute(.transient) var scratch: String = ""
    @Attribute var middle: Double = 0
    @Relationship(inverse: "probes") var owner: SlotOwner?
}

final class SlotOwner: CdManagedObject {
    @Attribute var label: String = ""
    @Relationship(inverse: "owner") var probes: Set<SlotProbe>
}

private func initSlotModel() throws {
    try Cd.initWithStore(model: try CdModel(classes: [SlotProbe.self, SlotOwner.self]), storeURL: nil)
    Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
}

extension CadmiumSuites {
    @Suite struct ObjectSlots {
        @Test func wrappersWriteTheirOwnSlotInTheStoreOrder() throws {
            try initSlotModel()
            let layout = try background {
                try Cd.transactAndWait { () -> [String: PropertyValue] in
                    let probe = try Cd.create(SlotProbe.self)
                    probe.zeta = "z"
                    probe.alpha = 7
                    probe.scratch = "kept in memory"
                    probe.middle = 2.5
                    return probe.withState { state in
                        // Slots: stored attributes by name, the to-one, then the transient.
                        #expect(state.slots?.properties.names == ["alpha", "middle", "zeta", "owner", "scratch"])
                        #expect(state.buffer.count == 5)
                        #expect(state.changedKeys == ["zeta", "alpha", "scratch", "middle"])
                        #expect(!state.listed, "an inserted object is not in the changed list too")
                        return state.values
                    }
                }
            }
            #expect(layout["zeta"] == .attribute(.string("z")))
            #expect(layout["alpha"] == .attribute(.integer(7)))
            #expect(layout["middle"] == .attribute(.double(2.5)))
            #expect(layout["scratch"] == .attribute(.string("kept in memory")))
            #expect(layout["owner"] == .toOne(nil))
            let stored = try Cd.read { () -> (String, Int64, Double, String) in
                let probe = try #require(try Cd.objects(SlotProbe.self).fetchOne())
                return (probe.zeta, probe.alpha, probe.middle, probe.scratch)
            }
            #expect(stored.0 == "z" && stored.1 == 7 && stored.2 == 2.5)
            #expect(stored.3 == "", "a transient attribute is not stored")
        }

        @Test func updatesCarryOnlyTheChangedSlots() throws {
            try initSlotModel()
            try background {
                try Cd.transactAndWait {
                    let probe = try Cd.create(SlotProbe.self)
                    probe.zeta = "first"
                    probe.alpha = 1
                }
                try Cd.transactAndWait {
                    let probe = try #require(try Cd.objects(SlotProbe.self).fetchOne())
                    probe.alpha = 2
                    let changes = try #require(try Cd.transactionContext().pendingSlotChanges())
                    #expect(changes.inserted.isEmpty && changes.updated.count == 1)
                    let values = try #require(changes.updated.first?.values)
                    #expect(values.compactMap { $0 } == [.attribute(.integer(2))], "only alpha travels")
                    #expect(probe.withState { $0.changedKeys } == ["alpha"])
                }
            }
            let probe = try Cd.read { try #require(try Cd.objects(SlotProbe.self).fetchOne()).zeta }
            #expect(probe == "first")
        }

        @Test func bothSidesOfARelationshipLandInTheirSlots() throws {
            try initSlotModel()
            try background {
                try Cd.transactAndWait {
                    let owner = try Cd.create(SlotOwner.self)
                    owner.label = "O"
                    for i in 0..<3 {
                        let probe = try Cd.create(SlotProbe.self)
                        probe.alpha = Int64(i)
                        probe.owner = owner
                    }
                    #expect(owner.probes.count == 3, "the inverse is kept in step before the commit")
                }
            }
            let (count, labels) = try Cd.read { () -> (Int, Set<String>) in
                let owner = try #require(try Cd.objects(SlotOwner.self).fetchOne())
                let probes = try Cd.objects(SlotProbe.self).fetch()
                return (owner.probes.count, Set(probes.compactMap { $0.owner?.label }))
            }
            #expect(count == 3 && labels == ["O"])
        }

        @Test func inverseEditsOfAnUnreadListWaitUntilItIsRead() throws {
            try initSlotModel()
            try background {
                try Cd.transactAndWait {
                    for label in ["A", "B"] { try Cd.create(SlotOwner.self).label = label }
                }
                try Cd.transactAndWait {
                    let a = try #require(try Cd.objects(SlotOwner.self).filter("label == %@", "A").fetchOne())
                    for i in 0..<3 {
                        let probe = try Cd.create(SlotProbe.self)
                        probe.alpha = Int64(i)
                        probe.owner = a
                    }
                }
                try Cd.transactAndWait {
                    let a = try #require(try Cd.objects(SlotOwner.self).filter("label == %@", "A").fetchOne())
                    let b = try #require(try Cd.objects(SlotOwner.self).filter("label == %@", "B").fetchOne())
                    let moved = try #require(try Cd.objects(SlotProbe.self).filter("alpha == 1").fetchOne())
                    moved.owner = b
                    let added = try Cd.create(SlotProbe.self)
                    added.alpha = 9
                    added.owner = a
                    // Neither list was read: the edits wait (MO3) instead of reading each list.
                    #expect(a.withState { $0.deferredListEdits.map(\.adds) } == [false, true])
                    #expect(b.withState { $0.deferredListEdits.map(\.adds) } == [true])
                    #expect(a.hasChanges && b.hasChanges)
                    // Reading a list applies its edits to what the store holds.
                    #expect(Set(a.probes.map(\.alpha)) == [0, 2, 9])
                    #expect(b.probes.map(\.alpha) == [1])
                    #expect(a.withState { $0.deferredListEdits.isEmpty })
                }
            }
            let stored = try Cd.read { () -> (Set<Int64>, Set<Int64>) in
                let owners = try Cd.objects(SlotOwner.self).fetch()
                let a = try #require(owners.first { $0.label == "A" }),
                    b = try #require(owners.first { $0.label == "B" })
                return (Set(a.probes.map(\.alpha)), Set(b.probes.map(\.alpha)))
            }
            #expect(stored.0 == [0, 2, 9] && stored.1 == [1])
        }

        @Test func wrongThreadUseIsStillReportedOnTheSlotPath() throws {
            try initSlotModel()
            let probe = try background {
                try Cd.transactAndWait { () -> SlotProbe in
                    let probe = try Cd.create(SlotProbe.self)
                    probe.alpha = 3
                    return probe
                }
            }
            try background {
                // The handler lets the calls go on: the read still answers, the write is refused.
                expectMisuse(.i2) { #expect(probe.alpha == 3) }
                expectMisuse(.j3) { probe.alpha = 4 }
            }
            #expect(probe.withState { $0.buffer.contains(.attribute(.integer(4))) } == false)
        }

        @MainActor @Test func mainThreadFetchAfterTransactAndWaitSeesEveryCommitOfABurst() async throws {
            try initSlotModel()
            try await Cd.transaction {
                let probe = try Cd.create(SlotProbe.self)
                probe.alpha = 0
            }
            let probe = try #require(try Cd.objects(SlotProbe.self).fetchOne())
            let events = LockedBox<[CdManagedObjectUpdateEvent]>([])
            probe.updateHandler = { event in events.update { $0.append(event) } }
            // Twenty commits while the main thread is busy here: their merges queue up and run
            // in one main-queue turn, each one's events in commit order (ST1, ST2).
            try await Task.detached {
                for i in 1...20 {
                    try Cd.transactAndWait {
                        try #require(try Cd.objects(SlotProbe.self).fetchOne()).alpha = Int64(i)
                    }
                }
            }.value
            let fresh = try #require(try Cd.objects(SlotProbe.self).fetchOne())
            #expect(fresh === probe && fresh.alpha == 20, "a main-thread fetch sees the last commit at once")
            #expect(await waitUntil { events.get().count == 20 })
            #expect(events.get() == Array(repeating: .updated, count: 20))
        }
    }
}
