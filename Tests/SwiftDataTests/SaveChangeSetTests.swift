// What a save applies (SV4 of ModelContext+Save.swift): the pending changes in the store's slot
// form hold exactly the values of the change set by name that fetches overlay, each at its
// property's store slot, for inserts, attribute and to-one changes, to-many deltas and deletes.

import CdObjects
import Foundation
@testable import SwiftData
import Testing

@Suite struct SaveChangeSetTests {
    /// `named` and `slotted` say the same of one object of `entity`.
    func expectSame(
        _ named: [String: PropertyValue], _ slotted: [PropertyValue?], entity: String, in container: ModelContainer,
        type: any PersistentModel.Type
    ) throws {
        let table = try container.table(type)
        let map = try #require(container.entitiesByCode[EntityNames.shared.code(for: entity)]?.storeSlots).map
        #expect(slotted.compactMap { $0 }.count == named.count)
        for (name, value) in named {
            let index = try #require(table.indexByName[name])
            let slot = try #require(map[index])
            #expect(slotted[slot] == value, "\(entity).\(name)")
        }
    }

    @Test func theSlotChangeSetIsTheNamedOneBySlot() throws {
        let container = try ModelContainer(
            for: Author.self, Book.self, Shelf.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let shelf = Shelf(label: "Poetry")
        let kept = Book(title: "Mensagem", pages: 60)
        let dropped = Book(title: "Drafts", pages: 5)
        shelf.books = [kept, dropped]
        context.insert(shelf)
        try context.save()
        // Changes of every kind: an attribute, a to-one, a to-many read and then changed, a
        // delete, and new models related both ways.
        kept.pages = 64
        let author = Author(name: "Fernando Pessoa", genre: .poetry)
        kept.author = author
        _ = shelf.books.count
        shelf.books.append(Book(title: "Livro do Desassossego", pages: 500))
        context.delete(dropped)

        let named = try context.pendingChangeSet()
        let slotted = try context.pendingSlotChangeSet()
        #expect(slotted.inserted.map(\.id) == named.inserted.keys.sorted())
        for entry in slotted.inserted {
            let type: any PersistentModel.Type = entry.id.entity == "Author" ? Author.self : Book.self
            try expectSame(
                try #require(named.inserted[entry.id]), entry.values, entity: entry.id.entity, in: container,
                type: type)
        }
        #expect(Set(slotted.updated.map(\.id)) == Set(named.updated.keys).union(named.toManyDeltas.keys))
        for entry in slotted.updated {
            let type: any PersistentModel.Type = entry.id.entity == "Shelf" ? Shelf.self : Book.self
            try expectSame(
                named.updated[entry.id] ?? [:], entry.values, entity: entry.id.entity, in: container, type: type)
            let table = try container.table(type)
            let map = try #require(container.entitiesByCode[entry.id.entityCode]?.storeSlots).map
            let deltas = named.toManyDeltas[entry.id] ?? [:]
            #expect(entry.deltas.count == deltas.count)
            for (name, delta) in deltas {
                let index = try #require(table.indexByName[name])
                let slot = try #require(map[index])
                #expect(entry.deltas[slot] == delta)
            }
        }
        #expect(!slotted.updated.isEmpty && !slotted.inserted.isEmpty)
        #expect(slotted.deleted == named.deleted && slotted.deleted.count == 1)
        #expect(slotted.author == named.author && slotted.contextName == named.contextName)

        // And the save writes it: another context reads every change.
        try context.save()
        let reader = ModelContext(container)
        let books = try reader.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map(\.title) == ["Livro do Desassossego", "Mensagem"])
        #expect(books.map(\.pages) == [500, 64])
        #expect(books[1].author?.name == "Fernando Pessoa")
        #expect(books.allSatisfy { $0.shelf?.label == "Poetry" })
    }
}
