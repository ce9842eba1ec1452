// A query with a `pending` change set must answer what the same query answers after the change
// set is saved. Seeded; set CD_SEED to replay.

import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore pending overlay")
struct ObjectStorePendingTests {
    /// Builds a company with random salaries and departments.
    static func populate(
        _ store: ObjectStore, _ g: inout SeededGenerator
    ) throws -> (departments: [ObjectID], employees: [ObjectID]) {
        let departments = try store.newObjectIDs(entity: "Department", count: 4)
        let employees = try store.newObjectIDs(entity: "Employee", count: 30)
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for (i, d) in departments.enumerated() { inserted[d] = ["name": str("D\(i)")] }
        for (i, e) in employees.enumerated() {
            inserted[e] = [
                "badge": str("E\(i)"), "salary": int(Int64.random(in: 0...50, using: &g)),
                "name": str(["ann", "bob", "cy"][i % 3]),
                "department": .toOne(Bool.random(using: &g) ? departments[Int.random(in: 0..<4, using: &g)] : nil),
            ]
        }
        try store.apply(ChangeSet(inserted: inserted))
        return (departments, employees)
    }

    static let requests: [(String, String?, [Sort])] = [
        ("Employee", nil, []),
        ("Employee", "salary >= 25", [Sort("salary"), Sort("badge")]),
        ("Employee", "salary BETWEEN {10, 30}", [Sort("salary")]),
        ("Employee", "name == 'bob'", []),
        ("Employee", "department.name == 'D1'", [Sort("badge", ascending: false)]),
        ("Employee", "department == nil", []),
        ("Department", "employees.@count > 2", []),
        ("Department", "ANY employees.salary > 40", [Sort("name")]),
        ("Manager", "level > 1", []),
    ]

    @Test func pendingResultsEqualResultsAfterSaving() throws {
        let seed = testSeed("pendingResultsEqualResultsAfterSaving")
        var g = SeededGenerator(seed: seed)
        for round in 0..<12 {
            let store = try companyStore()
            let (departments, employees) = try Self.populate(store, &g)
            var pending = ChangeSet()
            let newIDs = try store.newObjectIDs(entity: "Employee", count: 3)
            for (i, id) in newIDs.enumerated() {
                pending.inserted[id] = [
                    "badge": str("N\(i)"), "salary": int(Int64.random(in: 0...50, using: &g)),
                    "department": .toOne(departments[Int.random(in: 0..<3, using: &g)]),
                ]
            }
            let manager = try store.newObjectIDs(entity: "Manager", count: 1)[0]
            pending.inserted[manager] = ["badge": str("M"), "level": int(2), "department": .toOne(departments[0])]
            for e in employees.shuffled(using: &g).prefix(6) {
                pending.updated[e] = ["salary": int(Int64.random(in: 0...50, using: &g))]
            }
            for e in employees.shuffled(using: &g).prefix(3) {
                pending.updated[e, default: [:]]["department"] = .toOne(departments[Int.random(in: 0..<3, using: &g)])
            }
            pending.updated[departments[2]] = ["name": str("D1x")]
            for e in employees.shuffled(using: &g).prefix(3) where pending.updated[e] == nil {
                pending.deleted.insert(e)
            }
            if Bool.random(using: &g) { pending.deleted.insert(departments[3]) }  // cascades to its employees

            var requests: [FetchRequest] = []
            for (entity, format, sort) in Self.requests {
                var r = FetchRequest(entity: entity)
                r.predicate = try format.map { try CdPredicate(format: $0) }
                r.sortDescriptors = sort
                requests.append(r)
                var limited = r
                limited.limit = 4
                limited.offset = 1
                requests.append(limited)
            }
            // `SELF IN` a list of IDs takes the PRIMARY KEY path, which skips re-testing the list on
            // each candidate; the same condition under NOT NOT is a full scan that tests it.
            // Repeats, another entity's ID with a used key, pending and deleted IDs included.
            let picked =
                Array(employees.shuffled(using: &g).prefix(8)) + [employees[0], employees[0], departments[1]]
                + newIDs.prefix(2) + Array(pending.deleted.prefix(1))
            for extra in ["", " AND salary >= 20"] {
                var byKey = FetchRequest(entity: "Employee")
                byKey.predicate = try CdPredicate(format: "SELF IN %@" + extra, picked)
                var scanned = FetchRequest(entity: "Employee")
                scanned.predicate = try CdPredicate(format: "NOT (NOT (SELF IN %@))" + extra, picked)
                requests.append(byKey)
                requests.append(scanned)
            }
            // fetchObjects answers what fetchIDs then values(of:) answer, in one read of each record.
            for changes in [nil, pending] as [ChangeSet?] {
                try store.read { s in
                    for r in requests {
                        let objects = try s.fetchObjects(r, pending: changes)
                        let ids = try s.fetchIDs(r, pending: changes)
                        #expect(objects.map(\.id) == ids, "round \(round) seed \(seed)")
                        for (id, values) in objects { #expect(try values == s.values(of: id), "\(id)") }
                    }
                }
            }
            let before = try store.read { s in try requests.map { try s.fetchIDs($0, pending: pending) } }
            let counts = try store.read { s in try requests.map { try s.count($0, pending: pending) } }
            try store.apply(pending)
            #expect(try store.verify() == [], "round \(round) seed \(seed)")
            let after = try store.read { s in try requests.map { try s.fetchIDs($0) } }
            let n = requests.count
            for (byKey, scanned) in [(n - 4, n - 3), (n - 2, n - 1)] {
                #expect(
                    Set(after[byKey]) == Set(after[scanned]),
                    "round \(round) seed \(seed): \(requests[byKey].predicate!)")
                #expect(Set(before[byKey]) == Set(before[scanned]), "pending, round \(round) seed \(seed)")
                #expect(after[byKey].count == Set(after[byKey]).count, "no repeats")
            }
            for i in requests.indices {
                #expect(
                    before[i] == after[i],
                    "round \(round) seed \(seed): \(requests[i].entity) \(requests[i].predicate?.description ?? "-")")
                #expect(counts[i] == after[i].count)
            }
        }
    }

    @Test func pendingChangesAreNotStored() throws {
        let store = try companyStore()
        let id = try store.newObjectIDs(entity: "Office", count: 1)[0]
        let pending = ChangeSet(inserted: [id: ["city": str("Lima")]])
        #expect(try store.fetch(FetchRequest(entity: "Office"), pending: pending) == [id])
        #expect(try store.fetch(FetchRequest(entity: "Office")) == [])
    }
}
