// `$VARIABLE` substitution and evaluation-time variables.

import Foundation
import Testing
@testable import CdObjects

@Suite("Predicate substitution")
struct PredicateSubstitutionTests {
    @Test func substitutionReplacesFreeVariablesOnly() throws {
        let template = try CdPredicate(format: "age > $MIN AND SUBQUERY(friends, $f, $f.age > $MIN).@count > 0")
        #expect(template.variableNames == ["MIN"])
        let p = try template.withSubstitutionVariables(["MIN": 30, "f": "ignored"])
        #expect(p == (try CdPredicate(format: "age > 30 AND SUBQUERY(friends, $f, $f.age > 30).@count > 0")))
        #expect(p.variableNames.isEmpty)
    }

    @Test func missingVariablesStayAndFailAtEvaluation() throws {
        let dataset = try PredicateFixture.dataset()
        let p = try CdPredicate(format: "age > $MIN AND name == $NAME").withSubstitutionVariables(["MIN": 1])
        #expect(p.variableNames == ["NAME"])
        let error = try #require(throws: CdPredicateError.self) { try p.evaluate(with: dataset.people[1]!) }
        #expect(error.kind == .unknownVariable && error.message.contains("$NAME"))
        #expect(try p.evaluate(with: dataset.people[1]!, substitutionVariables: ["NAME": "Alice"]))
    }

    @Test func substitutedValuesAreConverted() throws {
        let p = try CdPredicate(format: "a IN $S").withSubstitutionVariables(["S": Set([2, 1])])
        #expect(p == (try CdPredicate(format: "a IN {1, 2}")))
        struct Gadget {}
        let error = try #require(throws: CdPredicateError.self) {
            try CdPredicate(format: "a == $G").withSubstitutionVariables(["G": Gadget()])
        }
        #expect(error.kind == .unsupportedArgument && error.message.contains("$G"))
    }

    @Test func evaluatingAgainstACollection() throws {
        let dataset = try PredicateFixture.dataset()
        let team = PredicateValue.collection([1, 2, 3].map { .object(dataset.people[$0]!) })
        // 85000 + 72000.5 + 91000
        #expect(try CdPredicate(format: "@sum.salary == 248000.5").evaluate(withValue: team))
        #expect(
            try CdPredicate(format: "@count == 3 AND @max.age == 45 AND @min.name == 'Alice'").evaluate(withValue: team)
        )
        #expect(try CdPredicate(format: "SELF.@avg.age == 36").evaluate(withValue: team))
        #expect(try CdPredicate(format: "SELF BEGINSWITH 'ab'").evaluate(withValue: .value(.string("abc"))))
    }
}
