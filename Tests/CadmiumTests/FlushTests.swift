// A transaction that flushes its changes into the store before its commit
// (CdManagedObjectContext+Flush.swift, BW4–BW8): with the threshold lowered to a few objects,
// reads inside the body still see every object, flushed objects stay usable, the commit stays
// atomic (a failure or a throw leaves the store as it was), and the commit's notification lists
// every object.

import CdObjects
import CdStore
import Foundation
import Testing
@testable import Cadmium

/// An entity with a unique code, for conflicts found by a flush.
final class Badge: CdManagedObject {
    @Attribute(.unique) var code: String
    @Attribute var rank: Int64 = 0
}

extension CadmiumSuites {
    @Suite struct Flush {
        /// Department, Employee and Badge in memory, flushing past `threshold` pending objects.
        private func initFlushing(threshold: Int = 3) throws {
            let model = try CdModel(classes: [Department.self, Employee.self, Badge.self])
            try Cd.initWithStore(model: model, storeURL: nil, serialTX: false)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            Cd.container!.flushThreshold.store(threshold, ordering: .relaxed)
        }

        private func committedCount<T: CdManagedObject>(_ type: T.Type) throws -> Int {
            try Cd.read { try Cd.objects(type).count() }
        }

        @Test func readsInsideTheBodySeeFlushedObjects() throws {
            try initFlushing()
            try background {
                try Cd.transactAndWait {
                    for i in 0..<10 {
                        let e = try Cd.create(Employee.self)
                        e.name = "e\(i)"
                        e.salary = Int64(100 - i)
                    }
                    #expect(try Cd.transactionContext().writer != nil, "the body flushed")
                    #expect(try Cd.objects(Employee.self).count() == 10)
                    let sorted = try Cd.objects(Employee.self).sorted(by: \.salary).fetch().map(\.name)
                    #expect(sorted == (0..<10).reversed().map { "e\($0)" })
                    #expect(try Cd.objects(Employee.self).filter("salary >= 95").count() == 6)
                    #expect(try committedCount(Employee.self) == 0, "nothing is visible before the commit")
                }
                #expect(try committedCount(Employee.self) == 10)
            }
        }

        @Test func flushedObjectsCanBeReadChangedAndDeleted() throws {
            try initFlushing()
            try background {
                try Cd.transactAndWait {
                    let first = try Cd.create(Employee.self)
                    first.name = "first"
                    let second = try Cd.create(Employee.self)
                    second.name = "second"
                    for i in 0..<6 { try Cd.create(Employee.self).name = "more\(i)" }
                    #expect(try Cd.transactionContext().writer != nil)
                    #expect(!first.hasChanges, "flushed: clean")
                    #expect(first.name == "first", "read back through the writer")
                    first.salary = 7
                    Cd.delete(second)
                    let again = try Cd.objects(Employee.self).filter("name == 'first'").fetchOne()
                    #expect(again === first, "still the one object of its ID")
                    #expect(try Cd.objects(Employee.self).count() == 7)
                }
                let rows = try Cd.read {
                    try Cd.objects(Employee.self).sorted(by: \.name).fetch().map { ($0.name, $0.salary) }
                }
                #expect(rows.count == 7)
                #expect(rows.first { $0.0 == "first" }?.1 == 7)
                #expect(!rows.contains { $0.0 == "second" })
            }
        }

        @Test func aFlushLetsGoOfObjectsNobodyHolds() throws {
            try initFlushing()
            try background {
                try Cd.transactAndWait {
                    weak var first: Employee?
                    do {
                        let e = try Cd.create(Employee.self)
                        e.name = "first"
                        first = e
                    }
                    #expect(first != nil, "pending: the context holds it")
                    for i in 0..<5 { try Cd.create(Employee.self).name = "e\(i)" }
                    #expect(first == nil, "flushed and not held: gone")
                    let again = try #require(try Cd.objects(Employee.self).filter("name == 'first'").fetchOne())
                    #expect(again.name == "first")
                }
                #expect(try committedCount(Employee.self) == 6)
            }
        }

        @Test func relationshipsJoinFlushedAndPendingObjects() throws {
            try initFlushing()
            try background {
                try Cd.transactAndWait {
                    let early = try Cd.create(Department.self)
                    early.name = "early"
                    var staff: [Employee] = []
                    for i in 0..<8 {
                        let e = try Cd.create(Employee.self)
                        e.name = "e\(i)"
                        e.department = early
                        staff.append(e)
                    }
                    let late = try Cd.create(Department.self)
                    late.name = "late"
                    staff[0].department = late  // flushed long ago, moves to an unflushed department
                    #expect(early.employees.count == 7)
                    #expect(late.employees.map(\.name) == ["e0"])
                }
                let counts = try Cd.read {
                    try Cd.objects(Department.self).sorted(by: \.name).fetch().map { ($0.name, $0.employees.count) }
                }
                #expect(counts.map(\.0) == ["early", "late"] && counts.map(\.1) == [7, 1])
            }
        }

        @Test func deletingAFlushedOwnerCascadesAsWithoutFlushing() throws {
            for threshold in [3, 1_000] {
                try initFlushing(threshold: threshold)
                try background {
                    try Cd.transactAndWait {
                        let d = try Cd.create(Department.self)
                        d.name = "gone"
                        for i in 0..<8 {
                            let e = try Cd.create(Employee.self)
                            e.name = "e\(i)"
                            e.department = d  // the last ones are still pending when `d` is deleted
                        }
                        Cd.delete(d)
                        #expect(try Cd.objects(Employee.self).count() == 0, "threshold \(threshold)")
                    }
                }
                #expect(try committedCount(Department.self) == 0, "threshold \(threshold)")
                #expect(try committedCount(Employee.self) == 0, "threshold \(threshold)")
            }
        }

        @Test func aConflictFoundByAFlushFailsTheCommitAsWithoutFlushing() throws {
            for threshold in [3, 1_000] {
                try initFlushing(threshold: threshold)
                let code = try background { () -> Int? in
                    do {
                        try Cd.transactAndWait {
                            for i in 0..<12 { try Cd.create(Badge.self).code = i == 9 ? "b1" : "b\(i)" }
                        }
                        return nil
                    } catch let e as CdError {
                        return e.code
                    }
                }
                #expect(code == 1551, "threshold \(threshold)")
                #expect(try committedCount(Badge.self) == 0)
                // The writer was let go: the next transaction commits.
                try background { try Cd.transactAndWait { try Cd.create(Badge.self).code = "ok" } }
                #expect(try committedCount(Badge.self) == 1)
            }
        }

        @Test func anExplicitCommitAfterAFlushCommitsAndTheBodyGoesOn() throws {
            try initFlushing()
            try background {
                try Cd.transactAndWait {
                    for i in 0..<6 { try Cd.create(Employee.self).name = "a\(i)" }
                    try Cd.commit()
                    #expect(try Cd.transactionContext().writer == nil, "the commit let the writer go")
                    #expect(try committedCount(Employee.self) == 6)
                    for i in 0..<6 { try Cd.create(Employee.self).name = "b\(i)" }
                    #expect(try Cd.objects(Employee.self).count() == 12)
                }
                #expect(try committedCount(Employee.self) == 12)
            }
        }

        @Test func aBodyThatThrowsRollsBackEveryFlush() throws {
            struct Stop: Error {}
            try initFlushing()
            try background {
                #expect(throws: Stop.self) {
                    try Cd.transactAndWait {
                        for i in 0..<9 { try Cd.create(Employee.self).name = "e\(i)" }
                        #expect(try Cd.transactionContext().writer != nil)
                        throw Stop()
                    }
                }
                try Cd.transactAndWait {
                    for i in 0..<9 { try Cd.create(Employee.self).name = "f\(i)" }
                    Cd.cancelImplicitCommit()
                }
                #expect(try committedCount(Employee.self) == 0)
                try Cd.transactAndWait { try Cd.create(Employee.self).name = "kept" }
                #expect(try committedCount(Employee.self) == 1)
            }
        }

        @Test func theNotificationAndTheMainContextSeeEveryInsertedObject() async throws {
            try initFlushing()
            let seen = LockedBox<[CdCommit]>([])
            let token = NotificationCenter.default.addObserver(forName: .cdDidMergeCommit, object: nil, queue: nil) {
                note in
                if let commit = note.userInfo?[CdCommit.commitKey] as? CdCommit { seen.update { $0.append(commit) } }
            }
            defer { NotificationCenter.default.removeObserver(token) }
            let ids = try await Cd.transaction { () -> Set<ObjectID> in
                let d = try Cd.create(Department.self)
                d.name = "d"
                var ids: Set<ObjectID> = [d.objectID!]
                for i in 0..<20 {
                    let e = try Cd.create(Employee.self)
                    e.name = "e\(i)"
                    e.department = d
                    ids.insert(e.objectID!)
                }
                return ids
            }
            #expect(await waitUntil { seen.get().count == 1 })
            let commit = try #require(seen.get().first)
            #expect(commit.inserted.values.reduce(into: Set<ObjectID>()) { $0.formUnion($1) } == ids)
            #expect(commit.updated.isEmpty && commit.deleted.isEmpty)
            let onMain = await MainActor.run { try? Cd.objects(Employee.self).count() }
            #expect(onMain == 20)
        }

        @Test func aFailedCommitAfterAFlushIsNotRetriedWithTheRestOnly() throws {
            try initFlushing()
            let codes = try background { () -> Int? in
                do {
                    try Cd.transactAndWait {
                        for i in 0..<6 { try Cd.create(Badge.self).code = "a\(i)" }
                        try Cd.create(Badge.self).code = "a0"  // a conflict in the last batch
                        let first = try #require(throws: CdError.self) { try Cd.commit() }
                        #expect(first.code == 1551)
                        // The flushed batches were rolled back: the transaction is lost, and
                        // reads and commits say so rather than go on without them.
                        #expect(throws: CdError.self) { try Cd.objects(Badge.self).count() }
                        try Cd.create(Badge.self).code = "late"
                    }
                    return nil
                } catch let e as CdError {
                    return e.code
                }
            }
            #expect(codes == 1551, "the implicit commit throws the failure again")
            #expect(try committedCount(Badge.self) == 0, "nothing of the transaction is committed")
            try background { try Cd.transactAndWait { try Cd.create(Badge.self).code = "ok" } }
            #expect(try committedCount(Badge.self) == 1)
        }

        @Test func aNestedCommitFailsInsteadOfWaitingForItsOuterTransaction() throws {
            try initFlushing()
            try background {
                try Cd.transactAndWait {
                    for i in 0..<6 { try Cd.create(Employee.self).name = "outer\(i)" }
                    #expect(try Cd.transactionContext().writer != nil)
                    #expect(throws: CdError.self) {
                        try Cd.transactAndWait { try Cd.create(Employee.self).name = "nested" }
                    }
                }
                #expect(try committedCount(Employee.self) == 6)
            }
        }

        @Test func anotherThreadsCommitWaitsForTheFlushingTransaction() throws {
            try initFlushing()
            let flushed = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                flushed.wait()
                try? Cd.transactAndWait { try Cd.create(Department.self).name = "other" }
                done.signal()
            }
            try background {
                try Cd.transactAndWait {
                    for i in 0..<6 { try Cd.create(Employee.self).name = "e\(i)" }
                    flushed.signal()
                    for i in 6..<12 { try Cd.create(Employee.self).name = "e\(i)" }
                }
            }
            done.wait()
            #expect(try committedCount(Employee.self) == 12)
            #expect(try committedCount(Department.self) == 1)
        }
    }
}
