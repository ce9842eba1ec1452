// Runs every case of Fixtures/predicates/cases.json against the fixture data set: parse with the
// typed arguments, evaluate over every object of the case's entity, and compare the matching ids
// (or the error kind and offset) with the expectation the Python oracle wrote.

import Foundation
import Testing
@testable import CdObjects

private let fixtureCases: [PredicateCase] = (try? PredicateFixture.cases()) ?? []

@Suite("Predicate fixture cases")
struct PredicateFixtureTests {
    @Test func fixtureFileHasEnoughCases() throws {
        let cases = try PredicateFixture.cases()
        #expect(cases.count >= 150)
        #expect(cases.count == fixtureCases.count)
        #expect(cases.filter { $0.error == "syntax" }.allSatisfy { $0.offset != nil })
    }

    @Test(arguments: fixtureCases)
    func caseMatchesExpectation(_ fixture: PredicateCase) throws {
        let dataset = try PredicateFixture.dataset()
        let arguments = fixture.args.map { $0.value(in: dataset) }
        let variables = (fixture.variables ?? [:]).mapValues { $0.value(in: dataset) }
        do {
            let predicate = try CdPredicate(format: fixture.format, argumentArray: arguments)
            let matched = try matches(predicate, fixture, dataset, variables: variables)
            if let kind = fixture.error {
                Issue.record("expected a \(kind) error, but the predicate matched \(matched)")
                return
            }
            #expect(matched == fixture.expect, "\(predicate)")
            if !variables.isEmpty {
                // Substituting first must give the same result as binding at evaluation.
                let substituted = try predicate.withSubstitutionVariables(variables)
                #expect(substituted.variableNames.isEmpty)
                #expect(try matches(substituted, fixture, dataset, variables: [:]) == fixture.expect)
            }
        } catch let error as CdPredicateError {
            guard let kind = fixture.error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(error.kind.rawValue == kind, "\(error)")
            if let offset = fixture.offset {
                #expect(error.offset == offset, "\(error)")
                #expect(error.message.contains("at offset \(offset)"), "\(error)")
            }
        }
    }

    /// description → parse gives back an equal AST, and printing is stable.
    @Test(arguments: fixtureCases.filter { $0.error == nil })
    func descriptionRoundTrips(_ fixture: PredicateCase) throws {
        let dataset = try PredicateFixture.dataset()
        let predicate = try CdPredicate(
            format: fixture.format, argumentArray: fixture.args.map { $0.value(in: dataset) })
        let text = predicate.description
        let reparsed = try CdPredicate(format: text, argumentArray: predicate.objectArguments)
        #expect(reparsed == predicate, "\(text)")
        #expect(reparsed.description == text)
    }

    private func matches(
        _ predicate: CdPredicate, _ fixture: PredicateCase, _ dataset: FixtureDataset, variables: [String: Any]
    ) throws -> [Int] {
        try dataset.objects(of: fixture.entity)
            .filter { try predicate.evaluate(with: $0, substitutionVariables: variables) }
            .map(\.id)
    }
}
