// A property's slot found by the key path object's identity (ModelPropertyTable MT5,
// KeyPathIdentitySlots KI1–KI3): the same slot as by equality, for the getters' literals, for
// equal key paths made elsewhere and for key paths made at run time past the learning limit; and
// reads through it give each property's value, a nil optional included.

import Foundation
@testable import SwiftData
import Testing

@Suite struct KeyPathIdentitySlotsTests {
    @Test func aKeyPathsSlotByIdentityIsItsSlotByEquality() throws {
        let table = try ModelPropertyTable.of(Dial.self)
        // The schema's own key paths, literals of this file, and paths made at run time.
        let made: [AnyKeyPath] = [
            try #require((\Dial.self as AnyKeyPath).appending(path: \Dial.label)),
            try #require((\Dial.self as AnyKeyPath).appending(path: \Dial.unit)),
        ]
        let keyPaths = table.properties.map(\.keyPath) + [\Dial.label, \Dial.level, \Dial.unit, \Dial.panel] + made
        for keyPath in keyPaths + keyPaths {  // twice: learned, then by identity
            #expect(table.slot(of: keyPath) == table.property(keyPath), "\(keyPath)")
            #expect(table.slot(of: keyPath) != nil, "\(keyPath)")
        }
        // A key path that is not a persisted property is not learned and has no slot.
        #expect(table.slot(of: \Dial.ownID) == nil)
        #expect(table.slot(of: \Dial.ownID) == nil)
    }

    @Test func learningStopsAtTheLimitAndKnownPathsAreNotLearnedTwice() {
        let slots = KeyPathIdentitySlots(limit: 2)
        let label: AnyKeyPath = \Dial.label
        let level: AnyKeyPath = \Dial.level
        let unit: AnyKeyPath = \Dial.unit
        #expect(slots.slot(of: label) == nil)
        slots.learn(label, slot: 0)
        slots.learn(label, slot: 0)
        #expect(slots.count == 1)
        slots.learn(level, slot: 1)
        slots.learn(unit, slot: 2)  // past the limit (KI3)
        #expect(slots.count == 2)
        #expect(slots.slot(of: label) == 0 && slots.slot(of: level) == 1 && slots.slot(of: unit) == nil)
    }

    @Test func keyPathsMadeAtRunTimePastTheLimitStillFindTheirSlot() throws {
        let table = try ModelPropertyTable.of(Dial.self)
        let expected = table.property(\Dial.level)
        for _ in 0..<(table.identitySlots.limit * 3) {
            let made = try #require((\Dial.self as AnyKeyPath).appending(path: \Dial.level))
            #expect(table.slot(of: made) == expected)
        }
        #expect(table.identitySlots.count <= table.identitySlots.limit)
    }

    @Test func readsThroughTheSlotsGiveEachValue() throws {
        let container = try ModelContainer(
            for: Dial.self, Panel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let dial = Dial(label: "boiler")
        dial.level = 7
        dial.unit = nil
        context.insert(dial)
        try context.save()
        let id = dial.persistentModelID
        let other = ModelContext(container)
        let read = try #require(
            try other.fetch(FetchDescriptor<Dial>(predicate: #Predicate { $0.persistentModelID == id })).first)
        for _ in 0..<2 {
            #expect(read.label == "boiler" && read.level == 7 && read.unit == nil && read.panel == nil)
        }
    }
}
