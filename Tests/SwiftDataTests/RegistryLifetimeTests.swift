// How long a context keeps the models it made (MC4 of ModelContext.swift): it holds them
// strongly, so that a model fetched again is not made anew, and lets go of those nobody else
// holds once it has registered a few thousand; a model somebody holds, or one with a pending
// change, stays the context's one instance of its object.

import Foundation
import SwiftData
import Testing

/// A small model, many of which fill a registry.
@Model
final class Ticket {
    var number: Int

    init(number: Int) { self.number = number }
}

@Suite struct RegistryLifetimeTests {
    /// More tickets than a registry keeps without sweeping (4,096).
    static let count = 6_000

    /// A container with `count` saved tickets numbered 0…count-1.
    func tickets() throws -> ModelContainer {
        let container = try ModelContainer(
            for: Ticket.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for number in 0..<Self.count { context.insert(Ticket(number: number)) }
        try context.save()
        return container
    }

    /// The ticket numbered `number`, fetched.
    func ticket(_ number: Int, in context: ModelContext) throws -> Ticket {
        try #require(try context.fetch(FetchDescriptor<Ticket>(predicate: #Predicate { $0.number == number })).first)
    }

    /// Fetches every ticket in pages of 500 without keeping any.
    func fetchAllInPages(_ context: ModelContext) throws {
        var page = FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.number)])
        page.fetchLimit = 500
        for offset in stride(from: 0, to: Self.count, by: 500) {
            page.fetchOffset = offset
            #expect(try context.fetch(page).count == 500)
        }
    }

    @Test func aModelNobodyHoldsIsKeptThenLetGo() throws {
        let context = ModelContext(try tickets())
        var first: Ticket? = try ticket(0, in: context)
        let address = first.map { ObjectIdentifier($0) }
        weak let unheld = first
        first = nil
        // Kept by the context: fetched again, the same instance.
        #expect(unheld != nil)
        #expect(try ObjectIdentifier(ticket(0, in: context)) == address)
        // Let go once the context registered thousands of others that nobody holds.
        try fetchAllInPages(context)
        #expect(unheld == nil)
        #expect(try ticket(0, in: context).number == 0)
    }

    @Test func aHeldOrChangedModelStaysTheOneInstance() throws {
        let context = ModelContext(try tickets())
        let held = try ticket(1, in: context)
        try ticket(2, in: context).number = -2  // changed, then no longer referenced here
        try fetchAllInPages(context)
        try fetchAllInPages(context)
        #expect(try ticket(1, in: context) === held)
        let changed = try ticket(-2, in: context)
        #expect(context.changedModelsArray.count == 1 && context.changedModelsArray.first as? Ticket === changed)
        try context.save()
        let other = ModelContext(context.container)
        #expect(try ticket(-2, in: other).persistentModelID == changed.persistentModelID)
    }
}
