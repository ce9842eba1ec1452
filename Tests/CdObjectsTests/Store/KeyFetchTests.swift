// A fetch by ID read by primary key (FK1–FK3) answers exactly what the general PRIMARY KEY plan
// answers: the same request with a `TRUEPREDICATE` conjunct added, which the key read does not
// take, is run through the query executor and compared, for IDs of the entity, of a sub-entity,
// of its parent, of another entity, of a deleted object and of no object, with and without
// sub-entities and paging; with pending changes the key read declines and the overlay decides.
// The form by IDs (FK4) answers the same without a request.

import Foundation
import Testing
@testable import CdObjects

@Suite("Fetch by ID read by primary key")
struct KeyFetchTests {
    /// A store with employees, one manager, a department, and one deleted employee.
    private func populated() throws -> (ObjectStore, employees: [ObjectID], manager: ObjectID, department: ObjectID) {
        let store = try companyStore()
        let department = try store.insert("Department", ["name": str("D")])
        var employees: [ObjectID] = []
        for i in 0..<5 {
            employees.append(
                try store.insert(
                    "Employee", ["badge": str("E\(i)"), "name": str("e\(i)"), "department": .toOne(department)]))
        }
        let manager = try store.insert("Manager", ["badge": str("M"), "level": int(2), "department": .toOne(nil)])
        try store.apply(ChangeSet(deleted: [employees[4]]))
        return (store, employees, manager, department)
    }

    /// `request` with `format` and `arguments` as its predicate.
    private func request(
        _ entity: String, _ format: String, _ arguments: [Any], subentities: Bool = true, limit: Int? = nil,
        offset: Int = 0
    ) throws -> FetchRequest {
        var r = FetchRequest(entity: entity)
        r.predicate = try CdPredicate(format: format, argumentArray: arguments)
        r.includesSubentities = subentities
        r.limit = limit
        r.offset = offset
        return r
    }

    @Test func keyReadsEqualTheGeneralPlan() throws {
        let (store, employees, manager, department) = try populated()
        let missing = ObjectID(entity: "Employee", primaryKey: 9_999)
        let asManager = ObjectID(entity: "Manager", primaryKey: employees[0].primaryKey)
        let asEmployee = ObjectID(entity: "Employee", primaryKey: manager.primaryKey)
        let cases: [(String, [ObjectID], Bool, Int?, Int)] = [
            ("Employee", [employees[1]], true, nil, 0),
            ("Employee", [manager], true, nil, 0),  // a sub-entity's object
            ("Employee", [manager], false, nil, 0),  // … not asked for
            ("Manager", [employees[1]], true, nil, 0),  // the parent's object
            ("Manager", [manager], true, nil, 0),
            ("Employee", [department], true, nil, 0),  // another entity's ID
            ("Employee", [employees[4]], true, nil, 0),  // deleted
            ("Employee", [missing], true, nil, 0),  // never existed
            ("Employee", [asManager], true, nil, 0),  // an employee's key named as a manager
            ("Employee", [asEmployee], true, nil, 0),  // the manager's key named as an employee
            ("Employee", [employees[3], employees[0], manager, employees[3], missing, department], true, nil, 0),
            ("Employee", [employees[3], employees[0], manager, employees[2]], true, 2, 1),
            ("Employee", [employees[3], employees[0], manager, employees[2]], true, 0, 0),
            ("Employee", [employees[3], employees[0]], true, nil, 5),
            ("Employee", [], true, nil, 0),
        ]
        let s = try store.beginRead()
        defer { s.end() }
        for (entity, ids, subentities, limit, offset) in cases {
            let format = ids.count == 1 ? "SELF == %@" : "SELF IN %@"
            let argument: Any = ids.count == 1 ? ids[0] : ids
            let keyed = try request(entity, format, [argument], subentities: subentities, limit: limit, offset: offset)
            let general = try request(
                entity, "(\(format)) AND TRUEPREDICATE", [argument], subentities: subentities, limit: limit,
                offset: offset)
            let label =
                "\(entity) \(ids) subentities \(subentities) limit \(limit.map(String.init) ?? "-") offset \(offset)"
            #expect(general.keyedIDs == nil, "\(label)")
            let direct = try #require(try s.keyedSlotObjects(keyed, pending: nil), "\(label)")
            let planned = try s.fetchSlotObjects(general)
            #expect(direct.map(\.id) == planned.map(\.id), "\(label)")
            #expect(direct.map(\.values) == planned.map(\.values), "\(label)")
            // Through the public entry point too, which takes the key read.
            #expect(try s.fetchSlotObjects(keyed).map(\.id) == planned.map(\.id), "\(label)")
            // The form by IDs, without a request (FK4).
            let byIDs = try #require(
                try s.keyedSlotObjects(
                    ids, entity: entity, includesSubentities: subentities, offset: offset, limit: limit),
                "\(label)")
            #expect(byIDs.map(\.id) == planned.map(\.id), "\(label)")
            #expect(byIDs.map(\.values) == planned.map(\.values), "\(label)")
        }
    }

    @Test func requestsTheKeyReadDoesNotAnswerAreLeftToTheGeneralPath() throws {
        let (store, employees, _, _) = try populated()
        var sorted = try request("Employee", "SELF IN %@", [employees])
        sorted.sortDescriptors = [SortDescriptor("name", ascending: false)]
        var unknown = try request("Employee", "SELF == %@", [employees[0]])
        unknown.entity = "Nobody"
        let negative = try request("Employee", "SELF == %@", [employees[0]], offset: -1)
        let conjunction = try request("Employee", "SELF == %@ AND name == 'e0'", [employees[0]])
        let s = try store.beginRead()
        defer { s.end() }
        for r in [sorted, unknown, negative, conjunction] {
            let answer = try s.keyedSlotObjects(r, pending: nil)
            #expect(answer == nil, "\(r)")
        }
        // The form by IDs declines what the general path reports: an unknown entity, negative paging.
        for (entity, offset, limit) in [("Nobody", 0, nil), ("Employee", -1, nil), ("Employee", 0, -1)]
            as [(String, Int, Int?)]
        {
            let answer = try s.keyedSlotObjects(
                [employees[0]], entity: entity, includesSubentities: true, offset: offset, limit: limit)
            #expect(answer == nil, "\(entity) offset \(offset) limit \(limit.map(String.init) ?? "-")")
        }
        // The general path answers (and reports) them as it always did.
        let byName = try s.fetchSlotObjects(sorted).map(\.id)
        #expect(byName == Array(employees[0..<4].reversed()))
        #expect(throws: CdPredicateError.self) { try s.fetchSlotObjects(unknown) }
        #expect(throws: CdPredicateError.self) { try s.fetchSlotObjects(negative) }
    }

    @Test func pendingChangesAreOverlaidByTheGeneralPath() throws {
        let (store, employees, _, _) = try populated()
        let fresh = try store.newObjectIDs(entity: "Employee", count: 1)[0]
        var pending = ChangeSet()
        pending.inserted[fresh] = ["badge": str("N"), "name": str("new"), "department": .toOne(nil)]
        pending.deleted.insert(employees[1])
        pending.updated[employees[2]] = ["name": str("renamed")]
        let ids = [fresh, employees[1], employees[2], employees[3]]
        let keyed = try request("Employee", "SELF IN %@", [ids])
        let general = try request("Employee", "(SELF IN %@) AND TRUEPREDICATE", [ids])
        let s = try store.beginRead()
        defer { s.end() }
        let declined = try s.keyedSlotObjects(keyed, pending: pending)
        let answered = try s.keyedSlotObjects(keyed, pending: ChangeSet())
        #expect(declined == nil && answered != nil)
        let found = try s.fetchSlotObjects(keyed, pending: pending)
        #expect(found.map(\.id) == [employees[2], employees[3], fresh])
        #expect(found.map(\.id) == (try s.fetchSlotObjects(general, pending: pending)).map(\.id))
    }
}
