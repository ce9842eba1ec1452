// Foundation `#Predicate` → the store's predicate: the translation of each supported form, and a
// typed error naming the part that has no store equivalent, raised when the request is built and
// thrown by its terminals (never evaluated in memory).

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct FoundationPredicates {
        @Test func supportedFormsBecomeTheFormatPredicate() throws {
            let cases: [(CdTypedPredicate<Employee>, String)] = [
                (
                    CdTypedPredicate(#Predicate { $0.salary > 100_000 && $0.name.starts(with: "A") }),
                    "salary > 100000 AND name BEGINSWITH \"A\""
                ),
                (CdTypedPredicate(#Predicate { $0.department?.name == "R&D" }), "department.name == \"R&D\""),
                (
                    CdTypedPredicate(#Predicate { $0.email != nil || !($0.salary <= 5) }),
                    "email != nil OR NOT salary <= 5"
                ),
                (CdTypedPredicate(#Predicate { ["Ann", "Bob"].contains($0.name) }), "name IN {\"Ann\", \"Bob\"}"),
                (CdTypedPredicate(#Predicate { (1...5).contains($0.salary) }), "salary BETWEEN {1, 5}"),
                (CdTypedPredicate(#Predicate { (1..<5).contains($0.salary) }), "salary >= 1 AND salary < 5"),
                (CdTypedPredicate(#Predicate { $0.name.contains("x") }), "name CONTAINS \"x\""),
            ]
            for (typed, format) in cases {
                #expect(try typed.predicate() == CdPredicate(format: format), "\(format)")
            }
            let departments = CdTypedPredicate(#Predicate<Department> { $0.employees.contains { $0.salary > 5 } })
            #expect(try departments.predicate() == CdPredicate(format: "ANY employees.salary > 5"))
        }

        @Test func partsWithNoStoreEquivalentAreNamed() throws {
            let arithmetic = CdTypedPredicate(#Predicate<Employee> { $0.salary + 1 > 5 })
            #expect(throws: CdQueryError.self) { try arithmetic.predicate() }
            do {
                _ = try arithmetic.predicate()
            } catch let error as CdQueryError {
                #expect(error.kind == .unsupportedExpression)
                #expect(error.part.hasPrefix("Arithmetic<"))
            }
            let stringCount = CdTypedPredicate(#Predicate<Employee> { $0.name.count > 3 })
            #expect(throws: CdQueryError.self) { try stringCount.predicate() }
        }

        /// `??` in a comparison is taken apart so that a missing value takes the fallback, as in
        /// Swift (FT1).
        @Test func nilCoalescingInAComparisonTakesTheFallbackForNil() throws {
            let coalesce = CdTypedPredicate(#Predicate<Employee> { ($0.email ?? "") == "x" })
            #expect(
                try coalesce.predicate().description
                    == #"NOT email == nil AND email == "x" OR (email == nil AND "" == "x")"#)
        }

        @MainActor @Test func theErrorIsKeptByTheRequestAndThrownByItsTerminals() throws {
            try initTypedCompany()
            let request = Cd.objects(Employee.self).filter(#Predicate { $0.salary * 2 > 5 }).sorted(by: \.name)
            #expect(throws: CdQueryError.self) { _ = try request.fetch() }
            #expect(throws: CdQueryError.self) { _ = try request.count() }
            #expect(throws: CdQueryError.self) { _ = try request.or(\.salary > 1).fetch() }
            #expect(throws: CdQueryError.self) {
                _ = try Cd.objects(Employee.self).and(#Predicate { $0.salary * 2 > 5 }).count()
            }
        }
    }
}
