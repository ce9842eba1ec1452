// Containers own their stores: several in one process are independent of each other, two on one
// file share its store, what one context saves another fetches, identifiers survive a relaunch,
// and a container's file is an ordinary Cadmium store that the verifier checks.

import CdObjects
import CdStore
import Foundation
import SwiftData
import Testing

@Suite struct ContainerTests {
    @Test func containersAreIndependent() throws {
        let a = ModelContext(try libraryContainer())
        let b = ModelContext(try libraryContainer())
        a.insert(Book(title: "Only in A", pages: 1))
        try a.save()
        #expect(try b.fetchCount(FetchDescriptor<Book>()) == 0)

        let fileA = temporaryStoreURL(), fileB = temporaryStoreURL()
        defer { for url in [fileA, fileB] { try? FileManager.default.removeItem(at: url) } }
        let onA = ModelContext(try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: fileA)))
        let onB = ModelContext(try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: fileB)))
        onA.insert(Book(title: "File A", pages: 1))
        try onA.save()
        #expect(try onB.fetchCount(FetchDescriptor<Book>()) == 0)
    }

    @Test func twoContainersOnOneFileShareItsStore() throws {
        let url = temporaryStoreURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let first = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url))
        let second = try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(first)
        context.insert(Book(title: "Shared", pages: 2))
        try context.save()
        #expect(try ModelContext(second).fetch(FetchDescriptor<Book>()).map(\.title) == ["Shared"])
    }

    @Test func fetchesSeeWhatOtherContextsSaved() throws {
        let container = try libraryContainer()
        let reader = ModelContext(container)
        let writer = ModelContext(container)
        let book = Book(title: "Draft", pages: 1)
        writer.insert(book)
        try writer.save()
        let seen = try #require(try reader.fetch(FetchDescriptor<Book>()).first)
        book.title = "Final"
        try writer.save()
        let again = try #require(try reader.fetch(FetchDescriptor<Book>()).first)
        #expect(again === seen)
        #expect(again.title == "Final")
    }

    @Test func savesOfOneContextReachTheModelsOfAnother() throws {
        let container = try libraryContainer()
        let reader = ModelContext(container)
        let book = Book(title: "Draft", pages: 1)
        reader.insert(book)
        try reader.save()
        #expect(book.title == "Draft")

        let writer = ModelContext(container)
        let copy = try #require(writer.model(for: book.persistentModelID) as? Book)
        copy.title = "Final"
        try writer.save()
        #expect(book.title == "Final")  // no fetch: the reader's model read the save

        writer.delete(copy)
        try writer.save()
        #expect(book.isDeleted)
        #expect(book.modelContext == nil)
    }

    @Test func identifiersSurviveARelaunch() throws {
        let url = temporaryStoreURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let encoded: Data
        do {
            let context = ModelContext(try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url)))
            let book = Book(title: "Kept", pages: 7)
            context.insert(book)
            try context.save()
            encoded = try JSONEncoder().encode(book.persistentModelID)
        }
        let id = try JSONDecoder().decode(PersistentIdentifier.self, from: encoded)
        let context = ModelContext(try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url)))
        let book = try #require(context.model(for: id) as? Book)
        #expect(book.title == "Kept")
        #expect(book.persistentModelID == id)
    }

    @Test func theStoreFileIsAnOrdinaryCadmiumStore() throws {
        let url = temporaryStoreURL()
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Author.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: url)))
            let author = Author(name: "Verified")
            let book = Book(title: "Checked", pages: 3)
            author.books.append(book)
            book.shelf = Shelf(label: "S")
            context.insert(author)
            try context.save()
        }
        let store = try Store.open(path: url.path)
        defer { try? store.close() }
        let problems = try store.read { try ObjectStoreVerifier().verify($0) }
        #expect(problems.isEmpty, "\(problems)")
        let names = try store.read { tx in try tx.tree("cd.meta") != nil }
        #expect(names)
    }

    @Test @MainActor func theMainContextSavesOnItsOwn() async throws {
        let container = try libraryContainer()
        #expect(container.mainContext === container.mainContext)
        #expect(container.mainContext.autosaveEnabled)
        container.mainContext.insert(Book(title: "Autosaved", pages: 1))
        let reader = ModelContext(container)
        for _ in 0..<100 where try reader.fetchCount(FetchDescriptor<Book>()) == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try reader.fetchCount(FetchDescriptor<Book>()) == 1)
        #expect(!container.mainContext.hasChanges)
    }

    @Test func eraseDeletesEveryModel() throws {
        let container = try libraryContainer()
        let context = ModelContext(container)
        let author = Author(name: "Erased")
        author.books.append(Book(title: "Gone", pages: 1))
        author.books[0].shelf = Shelf(label: "Gone too")
        context.insert(author)
        try context.save()
        try container.erase()
        let reader = ModelContext(container)
        #expect(try reader.fetchCount(FetchDescriptor<Author>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Book>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Shelf>()) == 0)
    }

    @Test func aReadOnlyConfigurationRefusesSaves() throws {
        let url = temporaryStoreURL()
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ModelContext(try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url)))
            context.insert(Book(title: "Written", pages: 1))
            try context.save()
        }
        let readOnly = ModelContext(
            try ModelContainer(for: Book.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(try readOnly.fetch(FetchDescriptor<Book>()).map(\.title) == ["Written"])
        readOnly.insert(Book(title: "Refused", pages: 1))
        #expect(throws: SwiftDataError.saveNotAllowed) { try readOnly.save() }
    }

    @Test func aModelActorReadsModelsByIdentifier() async throws {
        let container = try libraryContainer()
        let context = ModelContext(container)
        let book = Book(title: "Handed over", pages: 4)
        context.insert(book)
        try context.save()
        let title = try await BookReader(modelContainer: container).title(of: book.persistentModelID)
        #expect(title == "Handed over")
    }

    @Test func aSchemaThatCannotBeStoredIsRefused() {
        #expect(throws: SwiftDataError.unknownSchema) {
            _ = try ModelContainer(for: Unstorable.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }
}

@ModelActor
actor BookReader {
    func title(of id: PersistentIdentifier) throws -> String? {
        self[id, as: Book.self]?.title
    }
}

@Model
final class Unstorable {
    var action: (() -> Void)?
    init() {}
}
