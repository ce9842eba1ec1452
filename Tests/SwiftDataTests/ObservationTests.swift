// Persisted properties are observed through the model's registrar: `withObservationTracking`
// fires when one changes, and not for a change of another property; the main context's models
// fire too when another context saves a change to them (MC5 of ModelContext.swift).

import Foundation
import Observation
import SwiftData
import Synchronization
import Testing

@Suite struct ObservationTests {
    @Test func persistedPropertiesAreObserved() throws {
        let context = ModelContext(try libraryContainer())
        let book = Book(title: "Watched", pages: 1)
        context.insert(book)
        try context.save()
        let titleChanged = Mutex(false)
        withObservationTracking {
            _ = book.title
        } onChange: {
            titleChanged.withLock { $0 = true }
        }
        book.pages = 2
        #expect(!titleChanged.withLock { $0 })
        book.title = "Changed"
        #expect(titleChanged.withLock { $0 })
    }

    @Test @MainActor func theMainContextsModelsFireForAnotherContextsSave() async throws {
        let container = try libraryContainer()
        let writer = ModelContext(container)
        writer.insert(Book(title: "Draft", pages: 10))
        writer.insert(Book(title: "Other", pages: 20))
        try writer.save()
        let main = container.mainContext
        let shown = try main.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        let (draft, other) = (shown[0], shown[1])
        let draftChanged = Mutex(false), otherChanged = Mutex(false)
        withObservationTracking {
            _ = draft.title
        } onChange: {
            draftChanged.withLock { $0 = true }
        }
        withObservationTracking {
            _ = other.title
        } onChange: {
            otherChanged.withLock { $0 = true }
        }

        let edited = try #require(
            try writer.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title == "Draft" })).first)
        edited.title = "Final"
        try writer.save()
        // The main actor takes the save in at its next turn, without a fetch or a read first.
        for _ in 0..<200 where !draftChanged.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(draftChanged.withLock { $0 })
        #expect(!otherChanged.withLock { $0 })
        #expect(draft.title == "Final")

        // The main context's own save sends nothing to its models' observers.
        let ownChanged = Mutex(false)
        withObservationTracking {
            _ = draft.title
        } onChange: {
            ownChanged.withLock { $0 = true }
        }
        draft.pages = 11
        try main.save()
        try await Task.sleep(for: .milliseconds(50))
        #expect(!ownChanged.withLock { $0 })
    }
}
