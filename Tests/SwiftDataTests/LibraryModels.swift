// The models of the semantic tests: authors with a unique name, an enum, an optional Codable
// value and books they deny deleting; books on shelves (an inverse the schema infers); every
// test opens its own container, in memory or on a file of its own.

import Foundation
import SwiftData

enum Genre: String, Codable {
    case fiction, poetry
}

struct Address: Codable, Hashable {
    var city: String
}

@Model
final class Author {
    @Attribute(.unique) var name: String
    var born: Date?
    var genre: Genre
    var address: Address?
    @Relationship(deleteRule: .deny, inverse: \Book.author)
    var books: [Book] = []

    init(name: String, genre: Genre = .fiction) {
        self.name = name
        self.genre = genre
    }
}

@Model
final class Book {
    #Index<Book>([\.title])
    var title: String
    var pages: Int
    var author: Author?
    @Relationship(deleteRule: .nullify) var shelf: Shelf?

    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }
}

@Model
final class Shelf {
    var label: String
    var books: [Book] = []

    init(label: String) {
        self.label = label
    }
}

/// A container of the library models in memory.
func libraryContainer() throws -> ModelContainer {
    try ModelContainer(
        for: Author.self, Book.self, Shelf.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
}

/// A store file of its own in the temporary directory.
func temporaryStoreURL(_ name: String = "library") -> URL {
    URL(fileURLWithPath: NSTemporaryDirectory() + "\(name)-\(UUID().uuidString).store")
}
