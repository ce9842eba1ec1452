// A container translates each `#Predicate` shape once and binds each fetch's values into it
// (PredicateRequestCache): predicates of one shape with other values, other operators or other
// key paths of the same type must each find what they say, never the first one's answer.

import Foundation
import SwiftData
import Testing

@Model
final class Reading {
    var low: Int
    var high: Int
    var flagged: Bool

    init(low: Int, high: Int, flagged: Bool = false) {
        self.low = low
        self.high = high
        self.flagged = flagged
    }
}

@Suite struct PredicateShapeTests {
    /// A context with readings (1, 10), (2, 20), (3, 30), (4, 4) saved; (4, 4) is flagged.
    func readings() throws -> ModelContext {
        let container = try ModelContainer(
            for: Reading.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for (low, high) in [(1, 10), (2, 20), (3, 30)] { context.insert(Reading(low: low, high: high)) }
        context.insert(Reading(low: 4, high: 4, flagged: true))
        try context.save()
        return context
    }

    /// `$0.low == low` for one value.
    func lowEquals(_ low: Int) -> Predicate<Reading> { #Predicate { $0.low == low } }

    @Test func oneShapeWithOtherValuesFindsEachValue() throws {
        let context = try readings()
        for low in [1, 2, 3, 4, 5] {
            let found = try context.fetch(FetchDescriptor(predicate: lowEquals(low)))
            #expect(found.map(\.low) == (low <= 4 ? [low] : []))
        }
    }

    /// `$0.low < bound` or `$0.low > bound`: one expression type, two operators.
    func lowCompared(below: Bool, _ bound: Int) -> Predicate<Reading> {
        below ? #Predicate { $0.low < bound } : #Predicate { $0.low > bound }
    }

    @Test func otherOperatorsOfOneTypeAreOtherShapes() throws {
        let context = try readings()
        let sort = [SortDescriptor(\Reading.low)]
        let below = try context.fetch(FetchDescriptor(predicate: lowCompared(below: true, 3), sortBy: sort))
        let above = try context.fetch(FetchDescriptor(predicate: lowCompared(below: false, 3), sortBy: sort))
        #expect(below.map(\.low) == [1, 2])
        #expect(above.map(\.low) == [4])
    }

    /// `$0.low == value` or `$0.high == value`: one expression type, two key paths.
    func either(_ low: Bool, _ value: Int) -> Predicate<Reading> {
        low ? #Predicate { $0.low == value } : #Predicate { $0.high == value }
    }

    @Test func otherKeyPathsOfOneTypeAreOtherShapes() throws {
        let context = try readings()
        #expect(try context.fetch(FetchDescriptor(predicate: either(true, 2))).map(\.high) == [20])
        #expect(try context.fetch(FetchDescriptor(predicate: either(false, 2))).isEmpty)
        #expect(try context.fetch(FetchDescriptor(predicate: either(false, 30))).map(\.low) == [3])
    }

    /// `$0.low == low && $0.high == high`.
    func both(_ low: Int, _ high: Int) -> Predicate<Reading> { #Predicate { $0.low == low && $0.high == high } }

    @Test func equalValuesInOneTreeDoNotFixTheShape() throws {
        let context = try readings()
        #expect(try context.fetch(FetchDescriptor(predicate: both(4, 4))).map(\.low) == [4])
        #expect(try context.fetch(FetchDescriptor(predicate: both(2, 20))).map(\.low) == [2])
        #expect(try context.fetch(FetchDescriptor(predicate: both(20, 2))).isEmpty)
        #expect(try context.fetch(FetchDescriptor(predicate: both(3, 30))).map(\.low) == [3])
    }

    /// `$0.flagged == flag && $0.low > 0`.
    func flagged(_ flag: Bool) -> Predicate<Reading> { #Predicate { $0.flagged == flag && $0.low > 0 } }

    @Test func capturedBooleansAndIdentifiersAreBoundPerFetch() throws {
        let context = try readings()
        #expect(try context.fetchCount(FetchDescriptor(predicate: flagged(true))) == 1)
        #expect(try context.fetchCount(FetchDescriptor(predicate: flagged(false))) == 3)
        let all = try context.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.low)]))
        for reading in all {
            let id = reading.persistentModelID
            let found = try context.fetch(
                FetchDescriptor<Reading>(predicate: #Predicate { $0.persistentModelID == id }))
            #expect(found.count == 1 && found.first === reading)
        }
    }
}
