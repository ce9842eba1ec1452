// Persisted properties are observed through the model's registrar: `withObservationTracking`
// fires when one changes, and not for a change of another property.

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
}
