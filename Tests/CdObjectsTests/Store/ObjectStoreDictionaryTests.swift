import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore dictionary results and grouping")
struct ObjectStoreDictionaryTests {
    static func itemStore() throws -> ObjectStore {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    .init(name: "id", type: .integer64), .init(name: "name", type: .string),
                ])
        ])
        let store = try ObjectStore.open(path: nil, model: model)
        var rows: [(Int64, String)] = zip(1...5, ["A", "B", "C", "D", "E"]).map { ($0, $1) }
        rows += (1...10).map { ($0, "TEST") } + (1...10).map { ($0, "TEST2") }
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for (id, row) in zip(try store.newObjectIDs(entity: "Item", count: rows.count), rows) {
            inserted[id] = ["id": int(row.0), "name": str(row.1)]
        }
        try store.apply(ChangeSet(inserted: inserted))
        return store
    }

    /// Cadmium's grouping scenario: 7 groups, TEST has sum 55 and count 10.
    @Test func groupByNameWithSumAndCount() throws {
        let store = try Self.itemStore()
        var request = FetchRequest(entity: "Item")
        request.resultType = .dictionaries
        request.expressions = [
            FetchExpression(name: "total", format: "@sum.id", resultType: .integer64),
            FetchExpression(name: "count", format: "name.@count", resultType: .integer64),
        ]
        request.propertiesToFetch = ["name", "total", "count"]
        request.groupBy = ["name"]
        request.sortDescriptors = [Sort("name")]
        let rows = try store.read { try $0.fetchRows(request) }
        #expect(rows.count == 7)
        #expect(rows.map { $0["name"] } == ["A", "B", "C", "D", "E", "TEST", "TEST2"].map { str($0) })
        let test = try #require(rows.first { $0["name"] == str("TEST") })
        #expect(test["total"] == int(55))
        #expect(test["count"] == int(10))
        #expect(rows[0]["total"] == int(1) && rows[0]["count"] == int(1))
        #expect(try store.read { try $0.count(request) } == 7)
    }

    @Test func aggregatesWithoutGroupingGiveOneRow() throws {
        let store = try Self.itemStore()
        var request = FetchRequest(entity: "Item")
        request.resultType = .dictionaries
        request.predicate = try CdPredicate(format: "name == 'TEST'")
        request.expressions = [
            FetchExpression(name: "min", format: "@min.id", resultType: .integer64),
            FetchExpression(name: "max", format: "@max.id", resultType: .integer64),
            FetchExpression(name: "avg", format: "@avg.id", resultType: .double),
            FetchExpression(name: "n", format: "@count", resultType: .integer64),
        ]
        request.propertiesToFetch = ["min", "max", "avg", "n"]
        let rows = try store.read { try $0.fetchRows(request) }
        #expect(rows == [["min": int(1), "max": int(10), "avg": .attribute(.double(5.5)), "n": int(10)]])
        request.predicate = try CdPredicate(format: "name == 'none'")
        #expect(try store.read { try $0.fetchRows(request) } == [["n": int(0)]])
    }

    @Test func propertiesDistinctLimitAndOffset() throws {
        let store = try Self.itemStore()
        var request = FetchRequest(entity: "Item")
        request.resultType = .dictionaries
        request.propertiesToFetch = ["name"]
        request.distinct = true
        request.sortDescriptors = [Sort("name", ascending: false)]
        #expect(
            try store.read { try $0.fetchRows(request) }.map { $0["name"] }
                == ["TEST2", "TEST", "E", "D", "C", "B", "A"].map { str($0) })
        request.offset = 2
        request.limit = 2
        #expect(try store.read { try $0.fetchRows(request) } == [["name": str("E")], ["name": str("D")]])
        var all = FetchRequest(entity: "Item")
        all.resultType = .dictionaries
        all.predicate = try CdPredicate(format: "id == 3 AND name == 'C'")
        #expect(try store.read { try $0.fetchRows(all) } == [["id": int(3), "name": str("C")]])
    }

    @Test func rowsFollowToOneKeyPathsAndOmitNils() throws {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("Ops")])
        let e = try store.insert("Employee", ["badge": str("1"), "department": .toOne(d)])
        let f = try store.insert("Employee", ["badge": str("2")])
        var request = FetchRequest(entity: "Employee")
        request.resultType = .dictionaries
        request.propertiesToFetch = ["badge", "department", "department.name"]
        let rows = try store.read { try $0.fetchRows(request) }
        #expect(
            rows == [["badge": str("1"), "department": .toOne(d), "department.name": str("Ops")], ["badge": str("2")]])
        _ = (e, f)
        request.propertiesToFetch = ["nope"]
        #expect(throws: CdPredicateError.self) { try store.read { try $0.fetchRows(request) } }
    }
}
