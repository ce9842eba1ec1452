import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore query plans")
struct ObjectStoreExplainTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let entity: String
        let format: String?
        var sort: [Sort] = []
        var limit: Int?
        let plan: String
        var testDescription: String { "\(entity) \(format ?? "-") → \(plan)" }
    }

    static let cases: [Case] = [
        Case(entity: "Employee", format: nil, plan: "FULL SCAN Employee"),
        Case(entity: "Employee", format: "badge == 'B7'", plan: "INDEX SCAN Employee(badge) = 'B7'"),
        Case(entity: "Employee", format: "salary == 5 AND badge == 'B7'", plan: "INDEX SCAN Employee(badge) = 'B7'"),
        Case(entity: "Manager", format: "salary IN {1, 2}", plan: "INDEX SCAN Employee(salary) IN (1, 2)"),
        Case(
            entity: "Employee", format: "salary > 10 AND salary <= 20",
            plan: "INDEX SCAN Employee(salary) > 10 AND <= 20"),
        Case(entity: "Employee", format: "10 < salary", plan: "INDEX SCAN Employee(salary) > 10"),
        Case(entity: "Employee", format: "salary BETWEEN {1, 9}", plan: "INDEX SCAN Employee(salary) >= 1 AND <= 9"),
        Case(entity: "Employee", format: "name BEGINSWITH 'Al'", plan: "INDEX SCAN Employee(name) BEGINSWITH 'Al'"),
        Case(entity: "Employee", format: "name BEGINSWITH[c] 'Al'", plan: "FULL SCAN Employee"),
        Case(entity: "Employee", format: "name ==[c] 'al'", plan: "FULL SCAN Employee"),
        Case(entity: "Employee", format: "email == 'a@b'", plan: "FULL SCAN Employee"),
        Case(entity: "Employee", format: "salary > 5 OR salary < 2", plan: "FULL SCAN Employee"),
        Case(
            entity: "Employee", format: "department.name == 'D'",
            plan: #"RELATED employees OF Department WHERE name == "D""#),
        Case(entity: "Employee", format: "department.name != 'D'", plan: "FULL SCAN Employee"),
        Case(
            entity: "Employee", format: "salary > 3", sort: [Sort("salary")], limit: 5,
            plan: "INDEX SCAN Employee(salary) > 3 (ORDERED); LIMIT 5"),
        Case(
            entity: "Employee", format: "salary > 3", sort: [Sort("salary", ascending: false)],
            plan: "INDEX SCAN Employee(salary) > 3; SORT BY salary DESC"),
        Case(entity: "Employee", format: nil, sort: [Sort("name")], plan: "INDEX ORDER Employee(name) (ORDERED)"),
        Case(
            entity: "Employee", format: nil, sort: [Sort("name", caseInsensitive: true)],
            plan: "FULL SCAN Employee; SORT BY name[c]"),
        Case(entity: "Desk", format: "floor == 2", plan: "INDEX SCAN Desk(floor, number) = 2"),
        Case(entity: "Desk", format: "number == 2", plan: "FULL SCAN Desk"),
        Case(entity: "Department", format: "SELF == %@", plan: "PRIMARY KEY Department = Department/3"),
        Case(
            entity: "Employee", format: "department == %@ AND salary > 3", plan: "RELATIONSHIP Department/3.employees"),
        Case(entity: "Employee", format: "department == %@ AND badge == 'x'", plan: "INDEX SCAN Employee(badge) = 'x'"),
        Case(entity: "Employee", format: "desk == %@", plan: "FULL SCAN Employee"),
    ]

    @Test(arguments: cases)
    func explainNamesThePlan(_ c: Case) throws {
        let store = try companyStore()
        var request = FetchRequest(entity: c.entity)
        request.predicate = try c.format.map { format in
            format.contains("%@")
                ? try CdPredicate(format: format, ObjectID(entity: "Department", primaryKey: 3))
                : try CdPredicate(format: format)
        }
        request.sortDescriptors = c.sort
        request.limit = c.limit
        #expect(try store.read { try $0.explain(request) } == c.plan)
    }

    @Test func primaryKeyPlansFetchTheObjects() throws {
        let store = try companyStore()
        let a = try store.insert("Department", ["name": str("A")])
        let b = try store.insert("Department", ["name": str("B")])
        var request = FetchRequest(entity: "Department")
        request.predicate = try CdPredicate(
            format: "SELF IN %@ AND name != 'A'", [b, a, ObjectID(entity: "Department", primaryKey: 99)])
        #expect(
            try store.read { try $0.explain(request) }
                == "PRIMARY KEY Department IN (Department/1, Department/2, Department/99)")
        #expect(try store.fetch(request) == [b])
    }

    @Test func relationshipPlansReadTheInverseList() throws {
        let store = try companyStore()
        let d = try store.insert("Department", ["name": str("D")])
        let other = try store.insert("Department", ["name": str("O")])
        let e = try store.insert("Employee", ["badge": str("1"), "salary": int(5), "department": .toOne(d)])
        let m = try store.insert("Manager", ["badge": str("2"), "salary": int(9), "department": .toOne(d)])
        let x = try store.insert("Employee", ["badge": str("3"), "salary": int(9), "department": .toOne(other)])
        var request = FetchRequest(entity: "Employee")
        request.predicate = try CdPredicate(format: "department == %@", d)
        #expect(try store.read { try $0.explain(request) } == "RELATIONSHIP Department/1.employees")
        #expect(try store.fetch(request) == [e, m])
        request.includesSubentities = false
        #expect(try store.fetch(request) == [e])
        request.includesSubentities = true
        request.predicate = try CdPredicate(format: "department == %@ AND salary > 6", d)
        #expect(try store.fetch(request) == [m])
        let pending = ChangeSet(updated: [x: ["department": .toOne(d)], m: ["salary": int(1)]])
        #expect(try store.fetch(request, pending: pending) == [x])
    }

    @Test func queriesWithUnknownKeysOrWrongTypesThrowPredicateErrors() throws {
        let store = try companyStore()
        var request = FetchRequest(entity: "Employee")
        request.predicate = try CdPredicate(format: "nope == 1")
        #expect(throws: CdPredicateError.self) { try store.fetch(request) }
        request.predicate = try CdPredicate(format: "salary == 'x'")
        #expect(throws: CdPredicateError.self) { try store.fetch(request) }
        request.predicate = nil
        request.sortDescriptors = [Sort("department.nope")]
        #expect(throws: CdPredicateError.self) { try store.fetch(request) }
    }

    @Test func sortsOnToOneKeyPathsAndCaseInsensitively() throws {
        let store = try companyStore()
        let d1 = try store.insert("Department", ["name": str("b")])
        let d2 = try store.insert("Department", ["name": str("A")])
        let e1 = try store.insert("Employee", ["badge": str("1"), "name": str("x"), "department": .toOne(d1)])
        let e2 = try store.insert("Employee", ["badge": str("2"), "name": str("Y"), "department": .toOne(d2)])
        let e3 = try store.insert("Employee", ["badge": str("3"), "name": str("z")])
        var request = FetchRequest(entity: "Employee")
        request.sortDescriptors = [Sort("department.name")]
        #expect(try store.fetch(request) == [e3, e2, e1], "nil first, then A < b")
        request.sortDescriptors = [Sort("department.name", caseInsensitive: true)]
        #expect(try store.fetch(request) == [e3, e2, e1])
        request.sortDescriptors = [Sort("name", ascending: false)]
        #expect(try store.fetch(request) == [e3, e1, e2], "case-sensitive: z > x > Y")
        request.sortDescriptors = [Sort("name", ascending: false, caseInsensitive: true)]
        #expect(try store.fetch(request) == [e3, e2, e1])
        request.includesSubentities = false
        let m = try store.insert("Manager", ["badge": str("m")])
        #expect(try !store.fetch(request).contains(m))
        request.includesSubentities = true
        #expect(try store.fetch(request).contains(m))
    }
}
