// The request of a fetch by identifier (PC5 of PredicateRequestCache.swift): read straight out of
// the tree, it is exactly what translating the predicate gives, in either order, so that the store
// reads it by primary key (FE2) as before.

import CdObjects
import Foundation
@testable import SwiftData
import Testing

@Suite struct IdentifierRequestTests {
    @Test func theIdentifierRequestIsTheTranslatedOne() throws {
        let container = try ModelContainer(
            for: Dial.self, Panel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let dial = Dial(label: "boiler")
        context.insert(dial)
        try context.save()
        let id = dial.persistentModelID
        let expected = CdPredicate.comparison(
            PredicateComparison(.evaluatedObject, .equal, .object(PredicateObjectID(id.objectID.predicateIdentity))))
        let direct = #Predicate<Dial> { $0.persistentModelID == id }
        let reversed = #Predicate<Dial> { id == $0.persistentModelID }
        // The translation without the cache: `SELF == id`, and the mirror of it.
        #expect(try PredicateTranslation.translate(direct) == expected)
        guard case let .comparison(mirror) = expected else { return }
        #expect(
            try PredicateTranslation.translate(reversed)
                == .comparison(PredicateComparison(mirror.right, .equal, mirror.left)))
        // Through the context (and so the container's cache), twice each: both are `SELF == id`.
        for predicate in [direct, reversed, direct, reversed] {
            #expect(try context.request(FetchDescriptor(predicate: predicate)).predicate == expected)
        }
    }
}
