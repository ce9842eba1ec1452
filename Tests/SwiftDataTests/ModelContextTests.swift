// A context's registry and pending changes: one instance per object, fetches that include
// unsaved changes unless told not to, rollback, and the pending model lists.

import Foundation
import SwiftData
import Testing

@Suite struct ModelContextTests {
    @Test func oneInstancePerObject() throws {
        let context = ModelContext(try libraryContainer())
        let author = Author(name: "Pessoa")
        context.insert(author)
        try context.save()
        let fetched = try context.fetch(FetchDescriptor<Author>())
        #expect(fetched.count == 1)
        #expect(fetched[0] === author)
        #expect(context.model(for: author.persistentModelID) === author)
        let registered: Author? = context.registeredModel(for: author.persistentModelID)
        #expect(registered === author)
        #expect(author.modelContext === context)
    }

    @Test func fetchesIncludePendingChangesByDefault() throws {
        let context = ModelContext(try libraryContainer())
        let saved = Book(title: "Mensagem", pages: 120)
        context.insert(saved)
        try context.save()
        context.insert(Book(title: "Livro do Desassossego", pages: 500))
        context.delete(saved)
        #expect(try context.fetch(FetchDescriptor<Book>()).map(\.title) == ["Livro do Desassossego"])
        var storedOnly = FetchDescriptor<Book>()
        storedOnly.includePendingChanges = false
        #expect(try context.fetch(storedOnly).map(\.title) == ["Mensagem"])
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 1)
    }

    @Test func pendingChangeListsAndRollback() throws {
        let context = ModelContext(try libraryContainer())
        let kept = Book(title: "Kept", pages: 10)
        context.insert(kept)
        try context.save()
        #expect(!context.hasChanges)
        #expect(!kept.hasChanges)

        let added = Book(title: "Added", pages: 1)
        context.insert(added)
        kept.pages = 11
        #expect(context.hasChanges)
        #expect(kept.hasChanges)
        #expect(context.insertedModelsArray.count == 1)
        #expect(context.changedModelsArray.count == 1)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(kept.pages == 10)
        #expect(added.modelContext == nil)
        #expect(try context.fetch(FetchDescriptor<Book>()).map(\.title) == ["Kept"])

        context.delete(kept)
        #expect(kept.isDeleted)
        #expect(context.deletedModelsArray.count == 1)
        context.rollback()
        #expect(!kept.isDeleted)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Book>()) == 1)
    }

    @Test func insertingAModelInsertsItsGraph() throws {
        let context = ModelContext(try libraryContainer())
        let author = Author(name: "Camões")
        let book = Book(title: "Os Lusíadas", pages: 400)
        author.books.append(book)
        let shelf = Shelf(label: "Epic")
        book.shelf = shelf
        context.insert(author)
        #expect(book.modelContext === context)
        #expect(shelf.modelContext === context)
        #expect(book.author === author)
        #expect(shelf.books.first === book)
        try context.save()

        let other = ModelContext(context.container)
        let stored = try other.fetch(FetchDescriptor<Book>())
        #expect(stored.first?.author?.name == "Camões")
        #expect(stored.first?.shelf?.label == "Epic")
    }

    @Test func relationshipsSetAfterInsertBringNewModelsIn() throws {
        let context = ModelContext(try libraryContainer())
        let shelf = Shelf(label: "New")
        context.insert(shelf)
        try context.save()
        let book = Book(title: "Late", pages: 3)
        shelf.books.append(book)
        #expect(book.modelContext === context)
        #expect(book.shelf === shelf)
        try context.save()
        let reader = ModelContext(context.container)  // models hold their context weakly: keep it
        #expect(try reader.fetch(FetchDescriptor<Shelf>()).first?.books.map(\.title) == ["Late"])
    }

    @Test func aNewModelRelatedFromItsOwnSideJoinsTheContextAtOnce() throws {
        let context = ModelContext(try libraryContainer())
        let shelf = Shelf(label: "Saved")
        context.insert(shelf)
        try context.save()
        // The new book's own to-one names the saved shelf; the shelf's list takes it (the
        // inverse), and the book, with the new author it already points at, joins the context.
        let book = Book(title: "Mensagem", pages: 60)
        let author = Author(name: "Fernando Pessoa")
        book.author = author
        #expect(book.modelContext == nil)
        book.shelf = shelf
        #expect(book.modelContext === context)
        #expect(author.modelContext === context)
        #expect(context.insertedModelsArray.count == 2)
        #expect(context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Book>()).first === book)  // pending inserts count
        try context.save()
        let reader = ModelContext(context.container)
        let stored = try reader.fetch(FetchDescriptor<Shelf>()).first?.books.first
        #expect(stored?.title == "Mensagem")
        #expect(stored?.author?.name == "Fernando Pessoa")
    }

    @Test func anInsertDeletedBeforeItsSaveIsNotReferenced() throws {
        let context = ModelContext(try libraryContainer())
        let shelf = Shelf(label: "Kept")
        let dropped = Book(title: "Dropped", pages: 1)
        shelf.books.append(dropped)
        context.insert(shelf)
        context.delete(dropped)
        try context.save()
        let reader = ModelContext(context.container)
        #expect(try reader.fetch(FetchDescriptor<Shelf>()).first?.books.isEmpty == true)
        #expect(try reader.fetchCount(FetchDescriptor<Book>()) == 0)
    }

    @Test func transactionSavesWhatTheBlockChanged() throws {
        let context = ModelContext(try libraryContainer())
        try context.transaction {
            context.insert(Book(title: "In a transaction", pages: 2))
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<Book>()) == 1)
    }
}
