// The AST the parser builds (the shape the query planner will pattern-match), the canonical
// description, and lexer details not covered by the fixture cases.

import Foundation
import Testing
@testable import CdObjects

@Suite("Predicate parser")
struct PredicateParserTests {
    private func comparison(_ format: String, _ args: Any...) throws -> PredicateComparison {
        guard case let .comparison(c) = try CdPredicate(format: format, argumentArray: args) else {
            Issue.record("'\(format)' is not a single comparison")
            return PredicateComparison(.evaluatedObject, .equal, .evaluatedObject)
        }
        return c
    }

    @Test func plannerShapes() throws {
        #expect(try comparison("name == 'x'") == PredicateComparison(.key("name"), .equal, .constant(.string("x"))))
        #expect(
            try comparison("age IN {1, 2}")
                == PredicateComparison(
                    .key("age"), .in, .aggregate([.constant(.integer(1)), .constant(.integer(2))])))
        #expect(
            try comparison("age BETWEEN %@", [1, 9])
                == PredicateComparison(
                    .key("age"), .between, .aggregate([.constant(.integer(1)), .constant(.integer(9))])))
        #expect(
            try comparison("name BEGINSWITH[cd] 'ab'")
                == PredicateComparison(
                    .key("name"), .beginsWith, .constant(.string("ab")),
                    options: [.caseInsensitive, .diacriticInsensitive]))
        #expect(
            try comparison("ANY employees.salary > 5")
                == PredicateComparison(
                    .key("employees.salary"), .greaterThan, .constant(.integer(5)), quantifier: .any))
        #expect(try comparison("employees.@sum.salary > 5").left == .function(.sum, .key("employees.salary")))
        #expect(try comparison("employees.@count > 5").left == .function(.count, .key("employees")))
        #expect(try comparison("@avg.salary > 5").left == .function(.avg, .key("salary")))
        #expect(try comparison("$x.name == 1").left == .keyPath(.variable("x"), ["name"]))
        #expect(try comparison("SELF == nil") == PredicateComparison(.evaluatedObject, .equal, .constant(.null)))
    }

    @Test func precedenceIsNotThenAndThenOr() throws {
        let a = CdPredicate.comparison(.init(.key("a"), .equal, .constant(.integer(1))))
        let b = CdPredicate.comparison(.init(.key("b"), .equal, .constant(.integer(2))))
        let c = CdPredicate.comparison(.init(.key("c"), .equal, .constant(.integer(3))))
        #expect(try CdPredicate(format: "a = 1 OR b = 2 AND c = 3") == .or(a, .and(b, c)))
        #expect(try CdPredicate(format: "NOT a = 1 AND b = 2") == .and(.not(a), b))
        #expect(try CdPredicate(format: "a = 1 or b = 2 or c = 3") == .or(.or(a, b), c))
        #expect(
            try CdPredicate(format: "NONE a = 1")
                == .not(.comparison(.init(.key("a"), .equal, .constant(.integer(1)), quantifier: .any))))
    }

    @Test func operatorSpellingsAreNormalized() throws {
        for (spelling, op) in [
            ("=", PredicateOperator.equal), ("<>", .notEqual), ("=<", .lessThanOrEqual), ("=>", .greaterThanOrEqual),
        ] {
            #expect(try comparison("a \(spelling) 1").op == op)
        }
        #expect(try comparison("a beginswith 'x'").op == .beginsWith)
        #expect(try comparison("a Like[C] 'x'").options == .caseInsensitive)
    }

    @Test func literals() throws {
        #expect(try comparison("a == -0x10").right == .constant(.integer(-16)))
        #expect(try comparison("a == 1.5e3").right == .constant(.double(1500)))
        #expect(try comparison("a == -2.5").right == .constant(.double(-2.5)))
        #expect(try comparison("a == 'it\\'s'").right == .constant(.string("it's")))
        #expect(try comparison("a == \"tab\\there\\n\"").right == .constant(.string("tab\there\n")))
        #expect(try comparison("a == yes").right == .constant(.bool(true)))
        #expect(try comparison("a == Null").right == .constant(.null))
        #expect(
            try comparison("a == CAST(0, 'NSDate')").right == .constant(.date(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(try comparison("a == {}").right == .aggregate([]))
    }

    @Test func hashEscapesReservedWords() throws {
        #expect(try comparison("#in == 1").left == .key("in"))
        #expect(try CdPredicate(format: "#in == 1").description == "#in == 1")
    }

    @Test func integerOverflowIsASyntaxError() throws {
        let error = try #require(throws: CdPredicateError.self) { try CdPredicate(format: "a == 99999999999999999999") }
        #expect(error.kind == .syntax && error.offset == 5)
    }

    @Test func descriptionIsCanonical() throws {
        let cases: [(String, String)] = [
            ("a = 1 and (b = 2 or c = 3)", "a == 1 AND (b == 2 OR c == 3)"),
            ("(a = 1 or b = 2) and c = 3", "(a == 1 OR b == 2) AND c == 3"),
            ("not (a = 1 && b = 2)", "NOT (a == 1 AND b == 2)"),
            ("some x.y =< 3", "ANY x.y <= 3"),
            ("none x.y != 'q'", "NOT ANY x.y != \"q\""),
            ("x CONTAINS[dc] 'é'", "x CONTAINS[cd] \"é\""),
            ("employees.@sum.salary > 1", "employees.@sum.salary > 1"),
            ("{1, 2}.@max == 2", "{1, 2}.@max == 2"),
            ("SUBQUERY(e, $v, $v.a == 1).@count > 0", "SUBQUERY(e, $v, $v.a == 1).@count > 0"),
            ("truepredicate", "TRUEPREDICATE"),
        ]
        for (input, expected) in cases {
            #expect(try CdPredicate(format: input).description == expected)
        }
    }

    @Test func constantsWithoutLiteralsRoundTripAsCasts() throws {
        let values: [Any] = [
            Date(timeIntervalSinceReferenceDate: 123.456), UUID(), URL(string: "file:///tmp/a%20b")!,
            Data([0, 255, 7]), Decimal(string: "12.345")!, Double.infinity, "quote \" and \\ and \n",
        ]
        for value in values {
            let p = try CdPredicate(format: "a == %@", value)
            #expect(try CdPredicate(format: p.description) == p, "\(p)")
        }
    }

    @Test func objectArgumentsRoundTripThroughObjectArguments() throws {
        struct Ref: PredicateObjectReference { let predicateIdentity: AnyHashable }
        let p = try CdPredicate(format: "a == %@ AND %@ IN b", Ref(predicateIdentity: 1), Ref(predicateIdentity: "two"))
        #expect(p.description == "a == %@ AND %@ IN b")
        #expect(p.objectArguments == [PredicateObjectID(1), PredicateObjectID("two")])
        #expect(try CdPredicate(format: p.description, argumentArray: p.objectArguments) == p)
    }

    @Test func quotedSpecifierIsLiteralText() throws {
        #expect(try comparison("a == '%@'").right == .constant(.string("%@")))
    }

    @Test func offsetsCountCharactersNotBytes() throws {
        let error = try #require(throws: CdPredicateError.self) { try CdPredicate(format: "ñañá == 'ü' ~") }
        #expect(error.offset == 12)
        #expect(error.message == "unexpected character '~' at offset 12")
    }
}
