// A fetch hands each match's stored values to its object as a slot buffer (FP1): the object
// then holds what reading the store by name gives, its transient slots empty and its to-many
// slots unread until first used.

import Foundation
import Testing
@testable import Cadmium
import CdObjects

extension CadmiumSuites {
    @Suite struct SlotFetchObjects {
        @Test func fetchedObjectsHoldTheStoredValuesBySlot() throws {
            try Cd.initWithStore(model: try CdModel(classes: [SlotProbe.self, SlotOwner.self]), storeURL: nil)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            try background {
                try Cd.transactAndWait {
                    let owner = try Cd.create(SlotOwner.self)
                    owner.label = "O"
                    for i in 0..<4 {
                        let probe = try Cd.create(SlotProbe.self)
                        probe.alpha = Int64(i)
                        probe.zeta = "z\(i)"
                        probe.scratch = "not stored"
                        if i % 2 == 0 { probe.owner = owner }
                    }
                }
            }
            let store = try #require(Cd.container).store
            try Cd.read {
                let snapshot = try store.beginSnapshot()
                defer { snapshot.end() }
                let probes = try Cd.objects(SlotProbe.self).sorted("alpha").fetch()
                #expect(probes.map(\.alpha) == [0, 1, 2, 3])
                for probe in probes {
                    let (values, loaded, count, scratch) = probe.withState { state in
                        (state.values, state.loaded, state.buffer.count, state.buffer[4])
                    }
                    #expect(loaded && count == 5)
                    #expect(scratch == nil, "the transient slot is empty")
                    #expect(values == (try snapshot.values(of: try #require(probe.objectID))))
                }
                #expect(probes.map { $0.owner?.label } == ["O", nil, "O", nil])
                let owner = try #require(try Cd.objects(SlotOwner.self).fetchOne())
                let slot = try #require(owner.slot(named: "probes"))
                #expect(owner.withState { $0.buffer[slot] } == nil, "a to-many is read when first used")
                #expect(Set(owner.probes.map(\.alpha)) == [0, 2])
            }
        }
    }
}
