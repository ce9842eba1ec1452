// `ObjectStore.read` reuses the reader of its last snapshot (ObjectStore+SnapshotReuse SR1–SR4):
// each read sees the last commit, including trees created since, holds no reader between reads,
// never reuses a snapshot that escaped its read, and does not keep the store alive.

import CdStore
import Foundation
import Testing
@testable import CdObjects

@Suite struct SnapshotReuseTests {
    @Test func eachReadSeesTheLastCommitAndNoReaderIsHeldBetweenReads() throws {
        let store = try companyStore()
        defer { try? store.close() }
        let department = try store.insert("Department", ["name": str("R&D")])
        // No employee yet: the employee trees do not exist, and the reused reader learns so.
        let employees = FetchRequest(entity: "Employee")
        #expect(try store.read { try $0.fetchIDs(employees) }.isEmpty)
        let reader = try store.read { ObjectIdentifier($0.stored) }
        #expect(try store.read { ObjectIdentifier($0.stored) } == reader)  // reused (SR3)
        var inserted: [ObjectID] = []
        for i in 0..<5 {
            inserted.append(try store.insert("Employee", ["badge": str("E\(i)"), "name": str("e\(i)")]))
            // The next read sees the new commit, the tree created by the first insert too (SR2).
            #expect(try store.read { try $0.fetchIDs(employees) } == inserted)
            #expect(store.engine.statistics.activeReaders == 0)
        }
        try store.apply(ChangeSet(updated: [department: ["name": str("Labs")]]))
        let name = try store.read { try $0.values(of: department)?["name"] }
        #expect(name == str("Labs"))
        #expect(store.engine.statistics.activeReaders == 0)
    }

    @Test func aSnapshotThatEscapedItsReadIsNotReused() throws {
        let store = try companyStore()
        defer { try? store.close() }
        let department = try store.insert("Department", ["name": str("R&D")])
        let escaped = try store.read { $0 }
        let next = try store.read { snapshot in (snapshot === escaped, ObjectIdentifier(snapshot.stored)) }
        #expect(!next.0 && next.1 != ObjectIdentifier(escaped.stored))
        // The escaped snapshot was ended with its read (SR1).
        #expect(throws: CdError.self) { try escaped.values(of: department) }
        #expect(store.engine.statistics.activeReaders == 0)
    }

    @Test func aStoreNobodyHoldsIsFreedAfterReads() throws {
        weak var freed: ObjectStore?
        do {
            let store = try companyStore()
            freed = store
            _ = try store.insert("Department", ["name": str("R&D")])
            for _ in 0..<3 { _ = try store.read { try $0.fetchIDs(FetchRequest(entity: "Department")) } }
        }
        #expect(freed == nil)  // SR4: the park holds no snapshot, so no cycle
    }
}
