// The common-argument path (`PredicateArgument.commonExpression`: object IDs, Int64, Int,
// String found by their exact type) gives what the general path gives for the same value, and
// leaves every other type, an optional included, to the general path.

import Foundation
import Testing
@testable import CdObjects

@Suite("Predicate common arguments")
struct CommonArgumentTests {
    private static let source = PredicateArgument.Source.argument(0)

    /// The general path's answer: an optional takes it, as `unwrapOptional` unwraps it there.
    private static func general(_ value: some Any) throws -> CdPredicateExpression {
        try PredicateArgument.expression(Optional(value) as Any, source: source)
    }

    @Test func commonTypesBindAsTheGeneralPathDoes() throws {
        let values: [Any] = [
            ObjectID(entity: "Employee", primaryKey: 7), Int64(-3), Int64.max, 42, Int.min, "", "Zoë",
        ]
        for value in values {
            let common = try #require(PredicateArgument.commonExpression(value), "\(type(of: value))")
            #expect(common == (try PredicateArgument.expression(value, source: Self.source)))
            #expect(common == (try Self.general(value)), "\(value)")
        }
    }

    @Test func otherTypesTakeTheGeneralPath() throws {
        let others: [Any] = [Int32(1), 1.5, true, Optional<Int64>.some(1) as Any, NSNull(), Substring("a"), [1, 2]]
        for value in others { #expect(PredicateArgument.commonExpression(value) == nil, "\(type(of: value))") }
        #expect(try PredicateArgument.expression(Optional<Int64>.none as Any, source: Self.source) == .constant(.null))
    }

    @Test func templateBindsCommonArgumentsAsTheParserDoes() throws {
        let template = try #require(PredicateTemplate(format: "SELF == %@ AND salary > %@ AND name == %@ AND age < %@"))
        let arguments: [Any] = [ObjectID(entity: "Employee", primaryKey: 3), Int64(5), "ann", 40]
        #expect(
            try template.bind(arguments)
                == (try CdPredicate(
                    format: "SELF == %@ AND salary > %@ AND name == %@ AND age < %@", argumentArray: arguments)))
        // A template's second binding with other values is independent of the first.
        let other: [Any] = [ObjectID(entity: "Employee", primaryKey: 4), Optional(Int64(6)) as Any, "bo", 41]
        #expect(
            try template.bind(other)
                == (try CdPredicate(
                    format: "SELF == %@ AND salary > %@ AND name == %@ AND age < %@", argumentArray: other)))
        #expect(try template.bind(other) != (try template.bind(arguments)))
    }
}
