// `fetch(_:batchSize:)` and `enumerate(_:batchSize:allowEscapingMutations:block:)`: the matches
// of the descriptor (pending changes, limit and offset included), read a batch at a time into the
// context's registered instances, with mutations kept in the enumeration unless allowed out.

import Foundation
import SwiftData
import Testing

@Suite struct BatchFetchTests {
    /// A context with books of 1…`count` pages, saved, inserted in a shuffled order.
    func shelfOfBooks(_ count: Int) throws -> ModelContext {
        let context = ModelContext(try libraryContainer())
        for pages in (1...count).reversed() { context.insert(Book(title: "Book \(pages)", pages: pages)) }
        try context.save()
        return context
    }

    var byPages: FetchDescriptor<Book> { FetchDescriptor(sortBy: [SortDescriptor(\.pages)]) }

    @Test func batchedFetchHasEveryMatchInOrder() throws {
        let context = try shelfOfBooks(25)
        let books = try context.fetch(byPages, batchSize: 10)
        #expect(books.count == 25)
        #expect(books.map(\.pages) == Array(1...25))
        #expect(books[24].title == "Book 25")
        #expect(Array(books[8...11]).map(\.pages) == [9, 10, 11, 12])  // across a batch boundary
    }

    @Test func batchedElementsAreTheRegisteredInstances() throws {
        let context = try shelfOfBooks(12)
        let held = try context.fetch(byPages)
        let books = try context.fetch(byPages, batchSize: 5)
        for (a, b) in zip(held, books) { #expect(a === b) }
    }

    @Test func batchedFetchIncludesPendingChangesUnlessToldNot() throws {
        let context = try shelfOfBooks(6)
        context.insert(Book(title: "Pending", pages: 100))
        let edited = try #require(try context.fetch(byPages).first)
        edited.title = "Edited"
        let books = try context.fetch(byPages, batchSize: 4)
        #expect(books.count == 7)
        #expect(books.last?.title == "Pending")
        #expect(books.first?.title == "Edited")
        var saved = byPages
        saved.includePendingChanges = false
        #expect(try context.fetch(saved, batchSize: 4).count == 6)
    }

    @Test func batchedFetchKeepsLimitOffsetAndPredicate() throws {
        let context = try shelfOfBooks(30)
        var descriptor = FetchDescriptor<Book>(
            predicate: #Predicate { $0.pages > 10 }, sortBy: [SortDescriptor(\.pages)])
        descriptor.fetchOffset = 2
        descriptor.fetchLimit = 7
        #expect(try context.fetch(descriptor, batchSize: 3).map(\.pages) == Array(13...19))
    }

    @Test func batchedFetchHoldsOneBatch() throws {
        let context = try shelfOfBooks(20)
        let books = try context.fetch(byPages, batchSize: 5)
        weak let first = books[0]
        #expect(first != nil)
        _ = books[10]  // another batch: the first one's models are no longer held
        #expect(first == nil)
        #expect(books[0].pages == 1)  // read again when accessed again
    }

    @Test(arguments: [0, -3])
    func batchSizeBelowOneIsRefused(_ size: Int) throws {
        let context = try shelfOfBooks(2)
        #expect(throws: SwiftDataError.unsupportedValue) { try context.fetch(byPages, batchSize: size) }
    }

    @Test func enumerateVisitsEveryMatchInOrder() throws {
        let context = try shelfOfBooks(23)
        var seen: [Int] = []
        try context.enumerate(byPages, batchSize: 5) { seen.append($0.pages) }
        #expect(seen == Array(1...23))
    }

    @Test func enumerateRefusesEscapingMutationsByDefault() throws {
        let context = try shelfOfBooks(9)
        var visited = 0
        #expect(throws: SwiftDataError.escapingMutations) {
            try context.enumerate(self.byPages, batchSize: 4) { book in
                visited += 1
                book.pages += 1000
            }
        }
        #expect(visited == 4)  // stopped at the end of the first batch
        #expect(context.hasChanges)  // nothing discarded: the app saves or rolls back
        context.rollback()
        #expect(try context.fetch(byPages).map(\.pages) == Array(1...9))
    }

    @Test func enumerateLetsMutationsOutWhenAllowed() throws {
        let context = try shelfOfBooks(9)
        try context.enumerate(byPages, batchSize: 4, allowEscapingMutations: true) { $0.pages += 1000 }
        try context.save()
        #expect(try context.fetch(byPages).map(\.pages) == Array(1001...1009))
    }

    @Test func enumerateAcceptsBlocksThatSaveTheirChanges() throws {
        let context = try shelfOfBooks(5)
        try context.enumerate(byPages, batchSize: 2) { book in
            book.title = "Read"
            try context.save()
        }
        #expect(try context.fetch(byPages).allSatisfy { $0.title == "Read" })
    }

    @Test func identifierForStoreEntityAndKeyNamesTheModel() throws {
        let context = try shelfOfBooks(3)
        let book = try #require(try context.fetch(byPages).first)
        let store = try #require(book.persistentModelID.storeIdentifier)
        let keyed = try context.fetchIdentifiers(byPages).map(\.self)
        let rebuilt = try (1...3).map {
            try PersistentIdentifier.identifier(for: store, entityName: "Book", primaryKey: Int64($0))
        }
        #expect(Set(keyed) == Set(rebuilt))
        #expect(throws: SwiftDataError.unsupportedValue) {
            try PersistentIdentifier.identifier(for: store, entityName: "Book", primaryKey: UUID())
        }
        #expect(throws: SwiftDataError.unsupportedValue) {
            try PersistentIdentifier.identifier(for: store, entityName: "Book", primaryKey: 0)
        }
    }
}
