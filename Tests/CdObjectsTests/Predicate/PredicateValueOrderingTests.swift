// The total order on CdValue used for sorting, and the partial order predicates use.

import Foundation
import Testing
@testable import CdObjects

@Suite("Predicate value ordering")
struct PredicateValueOrderingTests {
    private func ascending(_ values: [CdValue], options: CdValueComparisonOptions = []) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { CdValue.compare($0, $1, options: options) == .orderedAscending }
    }

    @Test func classesOrderWithNilFirst() {
        let ordered: [CdValue] = [
            .null, .integer(-5), .bool(true), .double(1.5), .decimal(2), .string("a"),
            .date(Date(timeIntervalSinceReferenceDate: 0)), .data(Data([1])),
            .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!), .uri(URL(string: "a:b")!),
        ]
        #expect(ascending(ordered))
        #expect(ordered.reversed().sorted { CdValue.compare($0, $1) == .orderedAscending } == ordered)
    }

    @Test func numbersCompareAcrossRepresentations() throws {
        #expect(CdValue.compare(.integer(3), .double(3.0)) == .orderedSame)
        #expect(CdValue.compare(.integer(3), .decimal(Decimal(string: "3.01")!)) == .orderedAscending)
        #expect(CdValue.compare(.double(2.5), .integer(2)) == .orderedDescending)
        #expect(CdValue.compare(.bool(true), .integer(1)) == .orderedSame)
        // Exact for integers beyond 2^53, where Double would round.
        #expect(CdValue.compare(.integer(9_007_199_254_740_993), .integer(9_007_199_254_740_992)) == .orderedDescending)
        #expect(CdValue.compare(.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992)) == .orderedDescending)
        #expect(CdValue.compare(.double(.nan), .integer(Int64.min)) == .orderedAscending)
    }

    @Test func stringOptions() {
        #expect(CdValue.compare(.string("B"), .string("a")) == .orderedAscending)
        #expect(CdValue.compare(.string("B"), .string("a"), options: .caseInsensitive) == .orderedDescending)
        #expect(
            CdValue.compare(.string("École"), .string("ecole"), options: [.caseInsensitive, .diacriticInsensitive])
                == .orderedSame)
        #expect(CdValue.compare(.string("École"), .string("ecole"), options: .caseInsensitive) != .orderedSame)
    }

    @Test func predicateOrderRejectsMixedClasses() throws {
        let error = try #require(throws: CdPredicateError.self) {
            try CdValue.predicateCompare(.string("1"), .integer(1))
        }
        #expect(error.kind == .typeMismatch)
        #expect(
            try CdValue.predicateCompare(.date(Date(timeIntervalSince1970: 1)), .date(Date(timeIntervalSince1970: 2)))
                == .orderedAscending)
    }
}
