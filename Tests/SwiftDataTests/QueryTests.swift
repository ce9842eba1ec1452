// Queries run in the store: `#Predicate` with captured values and identifiers, optional chains,
// `localizedStandardContains` (case- and diacritic-insensitive), sorts, limits and offsets; a
// predicate part the store cannot run is a SwiftDataError naming it.

import Foundation
import SwiftData
import Testing

@Suite struct QueryTests {
    /// A context with three books by two authors.
    func library() throws -> (ModelContext, Author) {
        let context = ModelContext(try libraryContainer())
        let pessoa = Author(name: "Fernando Pessoa", genre: .poetry)
        let eca = Author(name: "Eça de Queirós")
        for (title, pages, author) in [
            ("Mensagem", 120, pessoa), ("O Livro do Desassossego", 500, pessoa), ("Os Maias", 700, eca),
        ] {
            let book = Book(title: title, pages: pages)
            author.books.append(book)
        }
        context.insert(pessoa)
        context.insert(eca)
        try context.save()
        return (context, pessoa)
    }

    @Test func localizedStandardContainsIgnoresCaseAndDiacritics() throws {
        let (context, _) = try library()
        let text = "QUEIROS"
        let found = try context.fetch(
            FetchDescriptor<Author>(predicate: #Predicate { $0.name.localizedStandardContains(text) }))
        #expect(found.map(\.name) == ["Eça de Queirós"])
        let none = try context.fetch(
            FetchDescriptor<Author>(predicate: #Predicate { $0.name.localizedStandardContains("Lisbon") }))
        #expect(none.isEmpty)
    }

    @Test func identifiersAndOptionalChains() throws {
        let (context, pessoa) = try library()
        let id = pessoa.persistentModelID
        let byPessoa = try context.fetch(
            FetchDescriptor<Book>(
                predicate: #Predicate { $0.author?.persistentModelID == id }, sortBy: [SortDescriptor(\.pages)]))
        #expect(byPessoa.map(\.title) == ["Mensagem", "O Livro do Desassossego"])
        let chained = try context.fetch(
            FetchDescriptor<Book>(predicate: #Predicate { $0.author?.name == "Eça de Queirós" }))
        #expect(chained.map(\.title) == ["Os Maias"])
    }

    /// `??` means what Swift says (FT1 of Cadmium's FoundationPredicateTranslation), whatever the
    /// store answers on a missing value: a book with no author takes the fallback.
    @Test func nilCoalescingMeansWhatSwiftSays() throws {
        let (context, _) = try library()
        context.insert(Book(title: "Anonymous", pages: 40))
        try context.save()
        func titles(_ predicate: Predicate<Book>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
        }
        #expect(try titles(#Predicate { ($0.author?.name ?? "nobody") == "nobody" }) == ["Anonymous"])
        #expect(try titles(#Predicate { ($0.author?.name ?? "nobody") == "Eça de Queirós" }) == ["Os Maias"])
        #expect(
            try titles(#Predicate { ($0.author?.name ?? "nobody") != "Fernando Pessoa" }) == ["Anonymous", "Os Maias"])
        // The store would answer `author.name != x` true on a missing author; Swift's `?? false` is false.
        #expect(try titles(#Predicate { $0.author.flatMap { $0.name != "Fernando Pessoa" } ?? false }) == ["Os Maias"])
        #expect(
            try titles(#Predicate { $0.author.flatMap { $0.name != "Fernando Pessoa" } ?? true })
                == ["Anonymous", "Os Maias"])
        #expect(try titles(#Predicate { $0.author?.name.starts(with: "Eça") ?? false }) == ["Os Maias"])
        #expect(
            try titles(#Predicate { !($0.author?.name.contains("Pessoa") ?? false) }) == ["Anonymous", "Os Maias"])
        #expect(
            try titles(#Predicate { if let author = $0.author { author.name.starts(with: "Fer") } else { true } })
                == ["Anonymous", "Mensagem", "O Livro do Desassossego"])
        // Two bindings nest one `flatMap` in another: a missing birth date takes the `else` too.
        let eca = try #require(
            try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.name == "Eça de Queirós" })).first)
        eca.born = Date(timeIntervalSince1970: -3_940_000_000)  // 1845
        try context.save()
        let cutoff = Date(timeIntervalSince1970: 0)
        #expect(
            try titles(#Predicate { if let author = $0.author, let born = author.born { born > cutoff } else { true } })
                == ["Anonymous", "Mensagem", "O Livro do Desassossego"])
    }

    @Test func sortsLimitsAndOffsets() throws {
        let (context, _) = try library()
        var descriptor = FetchDescriptor<Book>(sortBy: [SortDescriptor(\.pages, order: .reverse)])
        descriptor.fetchLimit = 2
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.pages) == [500, 120])
        let byTitle = try context.fetch(
            FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title, comparator: .localizedStandard)]))
        #expect(byTitle.map(\.title) == ["Mensagem", "O Livro do Desassossego", "Os Maias"])
        #expect(try context.fetchIdentifiers(descriptor).count == 2)
    }

    /// A sort through a relationship runs in Swift on every match, then the offset and limit
    /// apply (FE4 of ModelContext+Fetch.swift); counts ignore it.
    @Test func aSortThroughARelationshipRunsInSwiftBeforeThePaging() throws {
        let (context, _) = try library()
        context.insert(Book(title: "Anonymous", pages: 40))
        try context.save()
        let byAuthor = [SortDescriptor<Book>(\.author?.name), SortDescriptor(\.title, order: .reverse)]
        let all = try context.fetch(FetchDescriptor(sortBy: byAuthor)).map(\.title)
        // No author first (nil sorts first), then Eça, then Pessoa's two, titles descending.
        #expect(all == ["Anonymous", "Os Maias", "O Livro do Desassossego", "Mensagem"])
        var page = FetchDescriptor(predicate: #Predicate<Book> { $0.pages > 50 }, sortBy: byAuthor)
        page.fetchOffset = 1
        page.fetchLimit = 1
        #expect(try context.fetch(page).map(\.title) == ["O Livro do Desassossego"])
        let ids = try context.fetchIdentifiers(page)
        #expect(ids == (try context.fetch(page)).map(\.persistentModelID))
        #expect(try context.fetchCount(page) == 1)  // the paging counts, the sort does not
        #expect(
            try context.fetchCount(FetchDescriptor(predicate: #Predicate<Book> { $0.pages > 50 }, sortBy: byAuthor))
                == 3)
        let batched = try context.fetch(FetchDescriptor(sortBy: byAuthor), batchSize: 2)
        #expect(batched.map(\.title) == all)
    }

    @Test func aPredicateTheStoreCannotRunIsAnError() throws {
        let (context, _) = try library()
        let descriptor = FetchDescriptor<Book>(predicate: #Predicate { $0.pages * 2 > 300 })
        do {
            _ = try context.fetch(descriptor)
            Issue.record("a predicate with arithmetic ran")
        } catch let error as SwiftDataError {
            #expect(error == .unsupportedPredicate)
            #expect(error.message.contains("Arithmetic"), "\(error.message)")
        }
    }

    @Test func emptinessAndCountsOfStringsAndToManys() throws {
        let (context, _) = try library()
        context.insert(Author(name: "No books yet"))
        context.insert(Book(title: "", pages: 1))
        try context.save()
        let untitled = try context.fetch(FetchDescriptor<Book>(predicate: #Predicate { $0.title.isEmpty }))
        #expect(untitled.map(\.pages) == [1])
        let idle = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.books.isEmpty }))
        #expect(idle.map(\.name) == ["No books yet"])
        let prolific = try context.fetch(FetchDescriptor<Author>(predicate: #Predicate { $0.books.count > 1 }))
        #expect(prolific.map(\.name) == ["Fernando Pessoa"])
        let long = try context.fetch(
            FetchDescriptor<Author>(predicate: #Predicate { $0.books.contains { $0.pages > 600 } }))
        #expect(long.map(\.name) == ["Eça de Queirós"])
        let lowered = FetchDescriptor<Book>(predicate: #Predicate { $0.title.localizedLowercase == "os maias" })
        #expect(throws: SwiftDataError.unsupportedPredicate) { try context.fetch(lowered) }
    }

    @Test func deleteWhereMatchesPendingModelsToo() throws {
        let (context, _) = try library()
        context.insert(Book(title: "Short", pages: 5))
        try context.delete(model: Book.self, where: #Predicate { $0.pages < 200 })
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.pages)])).map(\.pages) == [500, 700])
    }
}
