// The fetch paths that skip work: a fetch by identifier alone reads one record (FE2, without a
// request when it has no sort: FE3), with the query's answer in every case (found, gone, pending
// changes, another entity, paging), and a fetched model's to-one is made on first use (MS6), the
// context's one instance of its target.

import Foundation
import SwiftData
import Testing

@Suite struct FetchPathTests {
    /// A file container with one author of two books, saved.
    func library() throws -> (ModelContainer, Author) {
        let container = try ModelContainer(
            for: Author.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: temporaryStoreURL()))
        let context = ModelContext(container)
        let author = Author(name: "Sophia de Mello Breyner")
        author.books = [Book(title: "Mar", pages: 80), Book(title: "Dia do Mar", pages: 90)]
        context.insert(author)
        try context.save()
        return (container, author)
    }

    /// The books whose identifier is `id`.
    func books(_ context: ModelContext, _ id: PersistentIdentifier) throws -> [Book] {
        try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.persistentModelID == id }))
    }

    @Test func aFetchByIdentifierAnswersAsTheQueryDoes() throws {
        let (container, author) = try library()
        let ids = author.books.map(\.persistentModelID)
        let context = ModelContext(container)
        let first = try books(context, ids[0])
        #expect(first.map(\.title) == ["Mar"])
        #expect(try books(context, ids[0]).first === first.first)  // one instance per identity
        // Stated the other way round, the same book, the same instance.
        let id = ids[0]
        let reversed = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { id == $0.persistentModelID }))
        #expect(reversed.count == 1 && reversed.first === first.first)
        // An identifier of another entity finds no book.
        #expect(try books(context, author.persistentModelID).isEmpty)
        // A book deleted and saved elsewhere is gone.
        let other = ModelContext(container)
        other.delete(try #require(try books(other, ids[1]).first))
        try other.save()
        #expect(try books(context, ids[1]).isEmpty)
        // A pending delete counts, as in every fetch that includes pending changes.
        context.delete(try #require(first.first))
        #expect(try books(context, ids[0]).isEmpty)
    }

    /// A fetch by identifier without a sort is read before any request is made (FE3); with a sort
    /// it takes the request's path. Both give the same models, with every paging, for an
    /// identifier of the entity, of another entity, and with pending changes left out.
    @Test(arguments: [nil, 0, 1, 2] as [Int?], [nil, 0, 1, 3] as [Int?])
    func aFetchByIdentifierPagesAsTheRequestDoes(offset: Int?, limit: Int?) throws {
        let (container, author) = try library()
        let context = ModelContext(container)
        let ids = author.books.map(\.persistentModelID) + [author.persistentModelID]
        for (i, id) in ids.enumerated() {
            var unsorted = FetchDescriptor<Book>(predicate: #Predicate { $0.persistentModelID == id })
            unsorted.fetchOffset = offset
            unsorted.fetchLimit = limit
            var sorted = unsorted
            sorted.sortBy = [SortDescriptor(\.title)]
            let direct = try context.fetch(unsorted)
            let requested = try context.fetch(sorted)
            let expected = i < 2 && (offset ?? 0) == 0 && (limit ?? 1) > 0 ? 1 : 0
            #expect(direct.count == expected, "identifier \(i)")
            #expect(direct.count == requested.count && zip(direct, requested).allSatisfy { $0 === $1 })
            // A pending delete is left out when pending changes are.
            if let book = direct.first {
                context.delete(book)
                unsorted.includePendingChanges = false
                #expect(try context.fetch(unsorted).first === book)
                unsorted.includePendingChanges = true
                #expect(try context.fetch(unsorted).isEmpty)
                context.rollback()
            }
        }
    }

    @Test func aFetchedModelsToOneIsMadeOnFirstUse() throws {
        let (container, author) = try library()
        let context = ModelContext(container)
        let fetched = try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.pages)]))
        #expect(fetched.map(\.title) == ["Mar", "Dia do Mar"])
        let authors = fetched.map(\.author)
        #expect(authors.allSatisfy { $0?.name == author.name })
        #expect(authors[0] === authors[1])
        let id = author.persistentModelID
        let registered: Author? = context.registeredModel(for: id)
        #expect(registered === authors[0])
        // Setting the to-one before reading it keeps the inverse on both sides.
        let moved = try #require(
            try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.pages == 90 })).first)
        let newcomer = Author(name: "Miguel Torga")
        context.insert(newcomer)
        moved.author = newcomer
        try context.save()
        #expect(newcomer.books.map(\.title) == ["Dia do Mar"])
        #expect(authors[0]?.books.map(\.title) == ["Mar"])
    }
}
