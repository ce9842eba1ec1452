// PredicateTemplate keeps invariant PT1: for every fixture case, binding the template gives what
// the direct parse gives (the same tree, or an error of the same kind, message and offset), and
// the formats whose shape depends on an argument have no template.

import Foundation
import Testing
@testable import CdObjects

private let templateCases: [PredicateCase] = (try? PredicateFixture.cases()) ?? []

@Suite("Predicate templates")
struct PredicateTemplateTests {
    private static func direct(_ format: String, _ arguments: [Any]) -> Result<CdPredicate, CdPredicateError> {
        do { return .success(try CdPredicate(format: format, argumentArray: arguments)) } catch let error
            as CdPredicateError
        { return .failure(error) } catch { return .failure(CdPredicateError(.syntax, "unexpected \(error)")) }
    }

    @Test(arguments: templateCases)
    func bindingMatchesTheDirectParse(_ fixture: PredicateCase) throws {
        let dataset = try PredicateFixture.dataset()
        let arguments = fixture.args.map { $0.value(in: dataset) }
        guard let template = PredicateTemplate(format: fixture.format) else {
            // No template: the format does not parse, or its shape depends on an argument.
            if case .success = Self.direct(fixture.format, arguments) {
                let why = ["%K", "BETWEEN", "-%", "CAST"].contains { fixture.format.uppercased().contains($0) }
                #expect(why, "a format that parses has no template, and no %K, BETWEEN, -% or CAST explains it")
            }
            return
        }
        let viaTemplate: Result<CdPredicate, CdPredicateError>
        do {
            guard let bound = try template.bind(arguments) else { return }  // an expression argument
            viaTemplate = .success(bound)
        } catch let error as CdPredicateError { viaTemplate = .failure(error) }
        #expect(viaTemplate == Self.direct(fixture.format, arguments))
        // A second binding is independent of the first.
        #expect((try? template.bind(arguments)) == (try? viaTemplate.get()))
    }

    @Test func mostFormatsWithArgumentsHaveATemplate() {
        let withArguments = templateCases.filter { !$0.args.isEmpty && $0.error == nil }
        let templated = withArguments.filter { PredicateTemplate(format: $0.format) != nil }
        #expect(withArguments.count >= 5)
        #expect(templated.count * 2 >= withArguments.count, "\(templated.count) of \(withArguments.count)")
    }

    @Test func shapeChangingFormatsHaveNoTemplate() {
        for format in ["%K == 1", "age BETWEEN %@", "age > -%d", "CAST(%@, 'NSNumber') > 2"] {
            #expect(PredicateTemplate(format: format) == nil, "\(format)")
        }
    }

    @Test func oneTemplateManyBindings() throws {
        let template = try #require(PredicateTemplate(format: "salary >= %@ AND name BEGINSWITH[c] %@ AND age IN %@"))
        for (low, prefix, ages) in [(1, "a", [1, 2]), (7, "bo", [3]), (70_000, "", [])] as [(Int, String, [Int])] {
            let arguments: [Any] = [low, prefix, ages]
            #expect(
                try template.bind(arguments)
                    == (try CdPredicate(
                        format: "salary >= %@ AND name BEGINSWITH[c] %@ AND age IN %@",
                        argumentArray: arguments)))
        }
        #expect(throws: CdPredicateError.self) { try template.bind([1, "a"]) }
        #expect(throws: CdPredicateError.self) { try template.bind([1, "a", [1], 4]) }
        // An expression argument is left to the direct parse.
        #expect(try template.bind([CdPredicateExpression.keyPath(.evaluatedObject, ["age"]), "a", [1]]) == nil)
    }
}
