// How a context makes the models it reads: a model read from the store holds the store's values,
// never its class's declared defaults (the context hands its storage to `init(backingData:)`,
// BH1–BH2 and MS10), while a model made by its own initializer keeps them; and a fetch by
// identifier (PC5) answers with the context's one instance, refreshed by other contexts' saves.

import Foundation
import SwiftData
import Testing

@Model
final class Dial {
    var label: String
    var level: Int = 3
    var unit: String? = "kPa"
    var panel: Panel?
    /// Not persisted: a computed identifier, whose key path has the type of `persistentModelID`'s.
    var ownID: PersistentIdentifier { persistentModelID }

    init(label: String) {
        self.label = label
    }
}

@Model
final class Panel {
    var name: String
    @Relationship(inverse: \Dial.panel) var dials: [Dial] = []

    init(name: String) {
        self.name = name
    }
}

@Suite struct ModelMakingTests {
    /// A file container with one panel holding one dial saved with values other than its defaults.
    func saved() throws -> (ModelContainer, dial: PersistentIdentifier, panel: PersistentIdentifier) {
        let container = try ModelContainer(
            for: Dial.self, Panel.self, configurations: ModelConfiguration(url: temporaryStoreURL("dials")))
        let context = ModelContext(container)
        let dial = Dial(label: "boiler")
        dial.level = 9
        dial.unit = nil
        let panel = Panel(name: "basement")
        panel.dials.append(dial)
        context.insert(panel)
        try context.save()
        return (container, dial.persistentModelID, panel.persistentModelID)
    }

    /// The dials whose identifier is `id`, compared as `persistentModelID == id` or the other way round.
    func dials(_ context: ModelContext, _ id: PersistentIdentifier, reversed: Bool = false) throws -> [Dial] {
        let predicate =
            reversed ? #Predicate<Dial> { id == $0.persistentModelID } : #Predicate { $0.persistentModelID == id }
        return try context.fetch(FetchDescriptor(predicate: predicate))
    }

    @Test func aFetchedModelHoldsTheStoresValuesNotTheDefaults() throws {
        let (container, _, _) = try saved()
        let context = ModelContext(container)
        let dial = try #require(try context.fetch(FetchDescriptor<Dial>()).first)
        #expect(dial.level == 9)
        #expect(dial.unit == nil)
        #expect(dial.panel?.name == "basement")
        #expect(dial.panel?.dials.first === dial)
    }

    @Test func aModelReadOnFirstAccessHoldsTheStoresValuesNotTheDefaults() throws {
        let (container, dialID, panelID) = try saved()
        let context = ModelContext(container)
        // `model(for:)` makes a fault: nothing is read until a property is.
        let dial = try #require(context.model(for: dialID) as? Dial)
        #expect(dial.level == 9)
        #expect(dial.unit == nil)
        #expect(dial.panel?.persistentModelID == panelID)
        let panel = try #require(context.model(for: panelID) as? Panel)
        #expect(panel.dials.map(\.label) == ["boiler"])
        #expect(dial.panel === panel)
    }

    @Test func aModelMadeByItsInitializerAfterFetchesKeepsItsDefaults() throws {
        let (container, dialID, _) = try saved()
        let context = ModelContext(container)
        _ = try dials(context, dialID)
        _ = try context.fetch(FetchDescriptor<Panel>())
        let fresh = Dial(label: "attic")
        #expect(fresh.level == 3)
        #expect(fresh.unit == "kPa")
        #expect(fresh.panel == nil)
        context.insert(fresh)
        try context.save()
        let label = "attic"
        let read = try ModelContext(container).fetch(FetchDescriptor<Dial>(predicate: #Predicate { $0.label == label }))
        #expect(read.map(\.level) == [3])
        #expect(read.map(\.unit) == ["kPa"])
    }

    @Test(arguments: [false, true])
    func aFetchByIdentifierGivesTheRegisteredModelWithOtherSavesSeen(reversed: Bool) throws {
        let (container, dialID, _) = try saved()
        let context = ModelContext(container)
        let first = try #require(try dials(context, dialID, reversed: reversed).first)
        let registered: Dial? = context.registeredModel(for: dialID)
        #expect(registered === first)
        #expect(try dials(context, dialID, reversed: reversed).first === first)
        // Another context's saved change is seen by the same instance.
        let other = ModelContext(container)
        let elsewhere = try #require(try dials(other, dialID, reversed: !reversed).first)
        elsewhere.level = 5
        try other.save()
        let again = try #require(try dials(context, dialID, reversed: reversed).first)
        #expect(again === first)
        #expect(again.level == 5)
        // A change pending here is kept by the fetch.
        first.label = "furnace"
        #expect(try dials(context, dialID, reversed: reversed).first?.label == "furnace")
        // An identifier of another entity finds no dial.
        let panelID = try #require(try context.fetch(FetchDescriptor<Panel>()).first).persistentModelID
        #expect(try dials(context, panelID, reversed: reversed).isEmpty)
    }

    @Test func aComputedIdentifierIsNotTakenForTheModelsOwn() throws {
        let (container, dialID, _) = try saved()
        let context = ModelContext(container)
        // The expression type of `persistentModelID == id` is seen first; the same type with the
        // key path of a computed property is then refused as any unstored key path is.
        #expect(try dials(context, dialID).count == 1)
        let byComputed = #Predicate<Dial> { $0.ownID == dialID }
        #expect(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor(predicate: byComputed)) }
    }
}
