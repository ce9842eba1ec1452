// Static validation against a schema: every fixture case that parses must validate unless it is
// one whose evaluation fails for a static reason (unknown key, type mismatch) — those must be
// caught by validation with the same kind, before any object is touched.

import Foundation
import Testing
@testable import CdObjects

/// The schema of the fixture data set.
struct FixtureSchema: PredicateSchema {
    static let entities: [String: [String: PredicateSchemaProperty]] = [
        "Person": [
            "id": .attribute(.integer), "name": .attribute(.string), "age": .attribute(.integer),
            "salary": .attribute(.double), "birthday": .attribute(.date), "nickname": .attribute(.string),
            "email": .attribute(.string), "active": .attribute(.bool), "uuid": .attribute(.uuid),
            "photo": .attribute(.opaque),
            "department": .toOne(entity: "Department"), "friends": .toMany(entity: "Person"),
        ],
        "Department": [
            "id": .attribute(.integer), "name": .attribute(.string), "budget": .attribute(.integer),
            "rating": .attribute(.decimal), "employees": .toMany(entity: "Person"),
        ],
    ]

    func property(_ key: String, ofEntity entity: String) -> PredicateSchemaProperty? {
        Self.entities[entity]?[key]
    }
}

private let parsableCases: [PredicateCase] = ((try? PredicateFixture.cases()) ?? []).filter {
    $0.error == nil || ["unknownKey", "typeMismatch", "invalidRegex", "unknownVariable"].contains($0.error!)
}

@Suite("Predicate validation")
struct PredicateValidationTests {
    @Test(arguments: parsableCases)
    func fixtureCaseValidatesAsItEvaluates(_ fixture: PredicateCase) throws {
        let dataset = try PredicateFixture.dataset()
        let predicate = try CdPredicate(
            format: fixture.format, argumentArray: fixture.args.map { $0.value(in: dataset) })
        let staticKind = fixture.error.flatMap { ["unknownKey", "typeMismatch"].contains($0) ? $0 : nil }
        do {
            try predicate.validate(entity: fixture.entity, schema: FixtureSchema())
            #expect(staticKind == nil, "validation accepted '\(predicate)'")
        } catch let error as CdPredicateError {
            #expect(error.kind.rawValue == staticKind, "\(error)")
        }
    }

    @Test func unknownKeyNamesKeyAndEntity() throws {
        let error = try #require(throws: CdPredicateError.self) {
            try CdPredicate(format: "department.budgett > 5").validate(entity: "Person", schema: FixtureSchema())
        }
        #expect(error.kind == .unknownKey)
        #expect(error.message.contains("budgett"))
        #expect(error.message.contains("Department"))
    }

    @Test func unknownKeyInsideSubqueryIsFound() throws {
        let p = try CdPredicate(format: "SUBQUERY(employees, $e, $e.salry > 1).@count > 0")
        let error = try #require(throws: CdPredicateError.self) {
            try p.validate(entity: "Department", schema: FixtureSchema())
        }
        #expect(error.kind == .unknownKey)
        #expect(error.message.contains("salry") && error.message.contains("Person"))
    }

    @Test func stringAttributeComparedWithNumberIsAMismatch() throws {
        let error = try #require(throws: CdPredicateError.self) {
            try CdPredicate(format: "name == 5").validate(entity: "Person", schema: FixtureSchema())
        }
        #expect(error.kind == .typeMismatch)
        #expect(error.message.contains("string") && error.message.contains("integer"))
    }

    @Test(arguments: [
        "name BEGINSWITH 5", "age LIKE 'x'", "ANY name == 'x'", "ALL department.name == 'x'",
        "birthday > 'yesterday'", "photo == 1", "uuid < %@", "employees.@avg.name > 1",
        "SUBQUERY(name, $x, TRUEPREDICATE).@count > 0", "age IN {1, 'two'}", "friends.@sum.age == 'x'",
    ])
    func mismatchesAreRejected(_ format: String) throws {
        let p = try CdPredicate(format: format, argumentArray: format.contains("%@") ? [UUID()] : [])
        let entity = format.contains("employees") ? "Department" : "Person"
        let error = try #require(throws: CdPredicateError.self) {
            try p.validate(entity: entity, schema: FixtureSchema())
        }
        #expect(error.kind == .typeMismatch, "\(error)")
    }

    @Test(arguments: [
        "photo == nil", "photo != nil", "age > $X", "$X == name", "ANY friends.age > 1",
        "department.employees.name CONTAINS 'x'", "SELF IN friends", "active == 1", "age BETWEEN {1, 2.5}",
    ])
    func compatibleComparisonsPass(_ format: String) throws {
        try CdPredicate(format: format).validate(entity: "Person", schema: FixtureSchema())
    }
}
