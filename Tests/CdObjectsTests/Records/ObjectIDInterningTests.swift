// ObjectID over interned entity names (OI1–OI3): one code per name whichever thread interns it,
// names read back from codes, the public order (entity name, then key) kept although codes follow
// interning order, equality and hashing in agreement, and identifiers made by the store's paths
// (by code) equal to those made by name.

import CdStore
import Dispatch
import Foundation
import Testing
@testable import CdObjects

/// Entity names no other test uses, so that this suite decides the order they are interned in.
private func freshNames(_ count: Int, _ label: String) -> [String] {
    let run = UUID().uuidString
    return (0..<count).map { "OI.\(label).\(run).\($0)" }
}

@Suite("ObjectID interning")
struct ObjectIDInterningTests {
    @Test("one code per name when many threads intern the same names in different orders (OI2)")
    func sameCodeAcrossThreads() {
        // More names than the first two segments hold, so codes cross segment boundaries.
        let names = freshNames(300, "threads")
        let threads = 8
        let results = LockedResults(count: threads)
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var order = Array(names.indices)
            if t % 2 == 1 { order.reverse() }
            let k = t * 37 % order.count
            order = Array(order[k...] + order[..<k])
            var codes = [UInt32](repeating: 0, count: names.count)
            for i in order { codes[i] = EntityNames.shared.code(for: names[i]).rawValue }
            results.set(t, codes)
        }
        let all = results.values
        for t in 1..<threads { #expect(all[t] == all[0], "thread \(t) got other codes") }
        #expect(Set(all[0]).count == names.count, "distinct names share a code")
        for (i, name) in names.enumerated() {
            let id = ObjectID(entity: name, primaryKey: Int64(i))
            #expect(id.entityCode.rawValue == all[0][i])
            #expect(id.entity == name)
        }
    }

    @Test("names read back from codes on other threads than the one that interned them (OI3)")
    func namesReadOnOtherThreads() {
        let names = freshNames(200, "read")
        let ids = names.enumerated().map { ObjectID(entity: $1, primaryKey: Int64($0 + 1)) }
        let mismatches = LockedResults(count: 4)
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            let wrong = ids.enumerated().filter { $1.entity != names[$0] || $1.description != "\(names[$0])/\($0 + 1)" }
            mismatches.set(t, wrong.map { UInt32($0.offset) })
        }
        #expect(mismatches.values == Array(repeating: [], count: 4))
    }

    @Test("order is by entity name, then key, whatever order the names were interned in")
    func orderByName() {
        // Interned from the last name to the first: codes run against the names.
        let names = freshNames(20, "order").sorted().reversed().map { $0 }
        let firstIDs = names.map { ObjectID(entity: $0, primaryKey: 1) }
        #expect(zip(firstIDs, firstIDs.dropFirst()).allSatisfy { $0.entityCode.rawValue < $1.entityCode.rawValue })
        var g = SystemRandomNumberGenerator()
        let ids = (0..<400).map { _ in
            ObjectID(entity: names.randomElement(using: &g)!, primaryKey: Int64.random(in: 1...50, using: &g))
        }
        let sorted = ids.sorted()
        let expected = ids.sorted { ($0.entity, $0.primaryKey) < ($1.entity, $1.primaryKey) }
        #expect(sorted.map(\.description) == expected.map(\.description))
        for a in ids.prefix(60) {
            for b in ids.prefix(60) {
                #expect((a < b) == ((a.entity, a.primaryKey) < (b.entity, b.primaryKey)))
                #expect((a == b) == (a.entity == b.entity && a.primaryKey == b.primaryKey))
            }
        }
    }

    @Test("description is Entity/key")
    func description() {
        #expect(ObjectID(entity: "Employee", primaryKey: 42).description == "Employee/42")
        #expect("\(ObjectID(entity: "Manager", primaryKey: 7))" == "Manager/7")
    }

    @Test("equal IDs hash equally; same key in two entities or two keys in one entity differ")
    func hashableAgreesWithEquatable() {
        let a = ObjectID(entity: "Employee", primaryKey: 5)
        let b = ObjectID(entity: String("Emp" + "loyee"), primaryKey: 5)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ObjectID(entity: "Manager", primaryKey: 5))
        #expect(a != ObjectID(entity: "Employee", primaryKey: 6))
        let set: Set<ObjectID> = [
            a, b, ObjectID(entity: "Manager", primaryKey: 5), ObjectID(entity: "Employee", primaryKey: 6),
        ]
        #expect(set.count == 3)
        // Canonically equivalent spellings are one String, so one entity (as String equality has it).
        let composed = ObjectID(entity: "Caf\u{E9}", primaryKey: 1)
        let decomposed = ObjectID(entity: "Cafe\u{301}", primaryKey: 1)
        #expect(composed == decomposed)
        #expect(composed.hashValue == decomposed.hashValue)
    }

    @Test("IDs made by code equal IDs made by name")
    func byCodeEqualsByName() {
        for name in freshNames(5, "code") + ["Employee", "Department"] {
            let byName = ObjectID(entity: name, primaryKey: 9)
            let byCode = ObjectID(entityCode: EntityNames.shared.code(for: name), primaryKey: 9)
            #expect(byName == byCode)
            #expect(byName.hashValue == byCode.hashValue)
            #expect(!(byName < byCode) && !(byCode < byName))
        }
    }

    @Test("an entity-code map finds each entity's value by ID, and nothing for other entities")
    func entityCodeMap() {
        let before = freshNames(1, "before")[0]
        _ = ObjectID(entity: before, primaryKey: 1)
        let names = freshNames(6, "map")
        let map = EntityCodeMap(Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) }))
        for (i, name) in names.enumerated() { #expect(map[ObjectID(entity: name, primaryKey: 3)] == i) }
        #expect(map[ObjectID(entity: before, primaryKey: 1)] == nil)
        #expect(map[ObjectID(entity: freshNames(1, "after")[0], primaryKey: 1)] == nil)
        #expect(EntityCodeMap<Int>([:])[ObjectID(entity: names[0], primaryKey: 1)] == nil)
    }

    @Test("IDs the store hands out, decodes from records and fetches equal IDs made by name")
    func storePathsEqualByName() throws {
        let store = try companyStore()
        let department = try store.insert("Department", ["name": str("Sales")])
        #expect(department == ObjectID(entity: "Department", primaryKey: department.primaryKey))
        let employee = try store.insert(
            "Employee",
            [
                "badge": str("b1"),
                "department": .toOne(ObjectID(entity: "Department", primaryKey: department.primaryKey)),
            ])
        let values = try #require(try store.values(employee))
        #expect(values["department"] == .toOne(department))
        let employeeByName = ObjectID(entity: "Employee", primaryKey: employee.primaryKey)
        #expect(try store.related(department, "employees") == [employeeByName])
        #expect(try store.fetch(FetchRequest(entity: "Employee")) == [employeeByName])
        // A name the model does not know is no object of the store.
        #expect(try !store.exists(ObjectID(entity: freshNames(1, "unknown")[0], primaryKey: 1)))
    }
}

/// Per-thread results written under a lock.
private final class LockedResults: @unchecked Sendable {
    private let lock = Lock()
    private var slots: [[UInt32]]
    init(count: Int) { slots = Array(repeating: [], count: count) }
    func set(_ i: Int, _ value: [UInt32]) { lock.withLock { slots[i] = value } }
    var values: [[UInt32]] { lock.withLock { slots } }
}
