// The predicate fixture cases (Fixtures/predicates/cases.json) run as queries against an object
// store loaded with the fixture data set: the ids fetchIDs returns from stored data (through
// whatever plan the planner picks: age, name and email are indexed) must be the cases' ids.

import Foundation
import Testing
@testable import CdObjects

enum PredicateFixtureStore {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Person",
                attributes: [
                    .init(name: "id", type: .integer64), .init(name: "name", type: .string, isIndexed: true),
                    .init(name: "age", type: .integer16, isIndexed: true), .init(name: "salary", type: .double),
                    .init(name: "birthday", type: .date), .init(name: "nickname", type: .string),
                    .init(name: "email", type: .string), .init(name: "active", type: .boolean),
                    .init(name: "uuid", type: .uuid),
                ],
                relationships: [
                    .init(name: "department", destination: "Department", inverse: "employees"),
                    .toMany("friends", destination: "Person"),
                ],
                uniquenessConstraints: [["email"]],
                fetchIndexes: [
                    FetchIndexDescription(name: "bySalary", elements: [.ascending("salary"), .ascending("name")])
                ]),
            EntityDescription(
                name: "Department",
                attributes: [
                    .init(name: "id", type: .integer64), .init(name: "name", type: .string),
                    .init(name: "budget", type: .integer64, isIndexed: true), .init(name: "rating", type: .decimal),
                ],
                relationships: [.toMany("employees", destination: "Person", inverse: "department")]),
        ])
    }

    static let shared: Result<ObjectStore, any Error> = Result {
        let store = try ObjectStore.open(path: nil, model: model())
        let dataset = try PredicateFixture.dataset()
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for d in dataset.objects(of: "Department") {
            inserted[ObjectID(entity: "Department", primaryKey: Int64(d.id))] = d.attributes.mapValues {
                .attribute($0)
            }
        }
        for p in dataset.objects(of: "Person") {
            var values: [String: PropertyValue] = p.attributes.mapValues { .attribute($0) }
            if let d = p.toOne["department"] ?? nil {
                values["department"] = .toOne(ObjectID(entity: "Department", primaryKey: Int64(d.id)))
            }
            values["friends"] = .toMany(
                (p.toMany["friends"] ?? []).map { ObjectID(entity: "Person", primaryKey: Int64($0.id)) })
            inserted[ObjectID(entity: "Person", primaryKey: Int64(p.id))] = values
        }
        try store.apply(ChangeSet(inserted: inserted))
        return store
    }

    /// Arguments with fixture objects replaced by their object IDs.
    static func argument(_ a: FixtureArgument, _ dataset: FixtureDataset) -> Any {
        switch a {
        case let .person(id): return ObjectID(entity: "Person", primaryKey: Int64(id))
        case let .department(id): return ObjectID(entity: "Department", primaryKey: Int64(id))
        case let .array(elements): return elements.map { argument($0, dataset) }
        case let .set(elements): return Set(elements.map { argument($0, dataset) as! AnyHashable })
        default: return a.value(in: dataset)
        }
    }

    static func cases() -> [PredicateCase] {
        ((try? PredicateFixture.cases()) ?? []).filter { $0.expect != nil }
    }
}

@Suite("ObjectStore queries over the predicate fixtures")
struct ObjectStorePredicateFixtureTests {
    @Test func fixtureCasesAreLoaded() {
        #expect(PredicateFixtureStore.cases().count >= 250)
    }

    @Test(arguments: PredicateFixtureStore.cases())
    func fetchIDsMatchesTheFixture(_ c: PredicateCase) throws {
        let store = try PredicateFixtureStore.shared.get()
        let dataset = try PredicateFixture.dataset()
        var predicate = try CdPredicate(
            format: c.format, argumentArray: c.args.map { PredicateFixtureStore.argument($0, dataset) })
        if let variables = c.variables {
            predicate = try predicate.withSubstitutionVariables(
                variables.mapValues { PredicateFixtureStore.argument($0, dataset) })
        }
        var request = FetchRequest(entity: c.entity)
        request.predicate = predicate
        let ids = try store.read { try $0.fetchIDs(request) }
        let plan = try store.read { try $0.explain(request) }
        #expect(ids.map { Int($0.primaryKey) } == c.expect, "\(plan)")
        #expect(try store.read { try $0.count(request) } == c.expect?.count)
    }

    @Test func fixtureStoreVerifies() throws {
        #expect(try PredicateFixtureStore.shared.get().verify() == [])
    }
}
