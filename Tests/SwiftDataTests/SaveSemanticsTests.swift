// What a save does as SwiftData says: unique values collide into updates (upserts), delete rules
// run (cascade, nullify, deny), a refused save writes nothing and keeps its changes pending, and
// attributes of every supported Swift type read back as written.

import Foundation
import SwiftData
import Testing

@Suite struct SaveSemanticsTests {
    @Test func uniqueCollisionUpdatesTheRegisteredModel() throws {
        let context = ModelContext(try libraryContainer())
        let first = Author(name: "Sophia")
        context.insert(first)
        try context.save()
        let again = Author(name: "Sophia", genre: .poetry)
        context.insert(again)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Author>()) == 1)
        #expect(first.genre == .poetry)
        #expect(again.genre == .poetry)
        #expect(again.persistentModelID == first.persistentModelID)
    }

    @Test func uniqueCollisionUpdatesAnUnregisteredObject() throws {
        let container = try libraryContainer()
        let writer = ModelContext(container)
        writer.insert(Author(name: "Eça", genre: .fiction))
        try writer.save()
        let context = ModelContext(container)
        let upsert = Author(name: "Eça", genre: .poetry)
        context.insert(upsert)
        try context.save()
        let all = try ModelContext(container).fetch(FetchDescriptor<Author>())
        #expect(all.map(\.genre) == [.poetry])
        #expect(upsert.persistentModelID == all[0].persistentModelID)
    }

    @Test func aModelAnotherContextDeletedIsDeletedAfterTheSaveThatChangedIt() throws {
        let container = try libraryContainer()
        let writer = ModelContext(container)
        writer.insert(Shelf(label: "A"))
        writer.insert(Shelf(label: "B"))
        try writer.save()
        let context = ModelContext(container)
        let shelves = try context.fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.label)]))
        shelves[0].label = "A2"
        shelves[1].label = "B2"
        let other = ModelContext(container)
        other.delete(try other.fetch(FetchDescriptor<Shelf>(predicate: #Predicate { $0.label == "A" }))[0])
        try other.save()
        try context.save()  // the delete wins: A2 is dropped, B2 is written
        #expect(shelves[0].isDeleted && !context.hasChanges)
        #expect(!shelves[1].isDeleted)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Shelf>()).map(\.label) == ["B2"])
    }

    @Test func twoInsertsWithOneUniqueValueBecomeOneModel() throws {
        let context = ModelContext(try libraryContainer())
        context.insert(Author(name: "Twin", genre: .fiction))
        context.insert(Author(name: "Twin", genre: .poetry))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Author>()).map(\.genre) == [.poetry])
    }

    @Test func aUniqueCollisionIsResolvedAtSave() throws {
        let context = ModelContext(try libraryContainer())
        context.insert(Author(name: "Once"))
        try context.save()
        context.insert(Author(name: "Once", genre: .poetry))
        #expect(try context.fetchCount(FetchDescriptor<Author>()) == 2)  // both, until the save merges them
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Author>()).map(\.genre) == [.poetry])
    }

    @Test func compoundUniqueCollisionIsAnUpdate() throws {
        let container = try ModelContainer(
            for: Trip.self, Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let day = Date(timeIntervalSince1970: 1_800_000_000)
        context.insert(Trip(name: "Oslo", destination: "Norway", startDate: day, endDate: day))
        context.insert(Trip(name: "Oslo", destination: "Elsewhere", startDate: day.addingTimeInterval(1), endDate: day))
        try context.save()
        context.insert(Trip(name: "Oslo", destination: "Norge", startDate: day, endDate: day))
        try context.save()
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]))
        #expect(trips.map(\.destination) == ["Norge", "Elsewhere"])
    }

    @Test func cascadeAndNullify() throws {
        let context = ModelContext(try libraryContainer())
        let shelf = Shelf(label: "Poetry")
        let book = Book(title: "Odes", pages: 90)
        shelf.books.append(book)
        context.insert(shelf)
        try context.save()
        context.delete(book)  // nullify: the shelf no longer lists it
        try context.save()
        #expect(shelf.books.isEmpty)
        #expect(book.isDeleted)
        #expect(book.modelContext == nil)

        let trips = ModelContext(
            try ModelContainer(
                for: Trip.self, Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let trip = Trip(name: "Rome", destination: "Italy", startDate: .now, endDate: .now)
        let room = Accommodation(code: "RM1", name: "Room")
        trip.accommodations.append(room)
        trips.insert(trip)
        try trips.save()
        trips.delete(trip)
        try trips.save()
        #expect(room.isDeleted)
        #expect(try trips.fetchCount(FetchDescriptor<Accommodation>()) == 0)
    }

    @Test func denyRefusesTheSaveAndKeepsItPending() throws {
        let context = ModelContext(try libraryContainer())
        let author = Author(name: "Denied")
        author.books.append(Book(title: "Held", pages: 1))
        context.insert(author)
        try context.save()
        context.delete(author)
        #expect(throws: SwiftDataError.modelValidationFailure) { try context.save() }
        #expect(context.hasChanges)
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<Author>()) == 1)
        context.rollback()
        #expect(!author.isDeleted)
    }

    @Test func attributeTypesReadBackAsWritten() throws {
        let url = temporaryStoreURL()
        defer { try? FileManager.default.removeItem(at: url) }
        let born = Date(timeIntervalSince1970: -2_577_000_000)
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Author.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: url)))
            let author = Author(name: "Pessoa", genre: .poetry)
            author.born = born
            author.address = Address(city: "Lisboa")
            context.insert(author)
            try context.save()
        }
        let reopened = ModelContext(
            try ModelContainer(for: Author.self, Book.self, Shelf.self, configurations: ModelConfiguration(url: url)))
        let author = try #require(try reopened.fetch(FetchDescriptor<Author>()).first)
        #expect(author.name == "Pessoa")
        #expect(author.genre == .poetry)
        #expect(author.born == born)
        #expect(author.address == Address(city: "Lisboa"))
    }
}
