// Beyond Cadmium: `try await Cd.transaction`, `Cd.read` snapshots on any thread, thrown
// validation failures from the implicit commit, completions, `cancelImplicitCommit`, `commit()`.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct AsyncAndRead {
        @Test func asyncTransactionReturnsItsValue() async throws {
            try initCd()
            let count = try await Cd.transaction { () -> Int in
                let item = try Cd.create(TestItem.self)
                item.name = "F"
                return try Cd.objects(TestItem.self).count()  // sees its own pending insert
            }
            #expect(count == 6)
            let ids = try await Cd.transaction { try Cd.objects(TestItem.self).sorted("id").fetch().map(\.id) }
            #expect(ids == [0, 1, 2, 3, 4, 5])
        }

        @Test func readSnapshotOnAnyThread() throws {
            try initCd()
            try background {
                // A background thread with no transaction: Cd.read gives it a context.
                let names = try Cd.read {
                    try Cd.objects(TestItem.self).sorted("name", ascending: false).fetch().map(\.name)
                }
                #expect(names == ["E", "D", "C", "B", "A"])
                // The snapshot is stable while other commits happen.
                try Cd.read { () throws in
                    let before = try Cd.objects(TestItem.self).count()
                    let done = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async {
                        do {
                            try Cd.transactAndWait { () throws in
                                if let first = try Cd.objects(TestItem.self).fetchOne() { Cd.delete(first) }
                            }
                        } catch {
                            Issue.record("\(error)")
                        }
                        done.signal()
                    }
                    done.wait()
                    #expect(try Cd.objects(TestItem.self).count() == before)
                    let item = try Cd.objects(TestItem.self).fetchOne()!
                    _ = item.name
                    expectMisuse(.j4) { item.name = "read-only" }
                }
                #expect(try Cd.read { try Cd.objects(TestItem.self).count() } == 4)
            }
            #expect(try Cd.read { try Cd.dictionaryQuery(for: TestItem.self).fetch().count } == 4)
        }

        @Test func validationFailureAtTheImplicitCommitIsThrown() throws {
            try initCd()
            try background { () throws in
                expectCdError(code: 1570) {
                    try Cd.transactAndWait { _ = try Cd.create(TestItem.self) }  // name is required
                }
                #expect(try Cd.transactAndWait { try Cd.objects(TestItem.self).count() } == 5, "nothing saved")
            }
            let failed = LockedBox<(any Error)?>(nil)
            let done = DispatchSemaphore(value: 0)
            Cd.transact(
                operation: { _ = try Cd.create(TestItem.self) },
                completion: { error in
                    failed.set(error)
                    done.signal()
                })
            done.wait()
            #expect((failed.get() as? CdError)?.code == 1570)
        }

        /// Cadmium's forms cannot throw: the implicit commit's failure goes to
        /// `Cd.commitFailureHandler`, never dropped; the throwing forms throw it.
        @Test func commitFailureOfTheNonThrowingFormsGoesToTheHandler() throws {
            try initCd()
            let handled = LockedBox<[Int]>([])
            let previous = Cd.commitFailureHandler
            Cd.commitFailureHandler = { error in handled.update { $0.append((error as? CdError)?.code ?? -1) } }
            defer { Cd.commitFailureHandler = previous }
            try background { () throws in
                Cd.transactAndWait { _ = try! Cd.create(TestItem.self) }  // name is required
                #expect(handled.get() == [1570])
                #expect(Cd.transactAndWait { (try! Cd.create(TestItem.self)).id = 9 } == nil, "failed: nil")
                let item = try Cd.transactAndWait { try Cd.objects(TestItem.self).fetchOne()! }
                Cd.transactAndWaitWith(item) { moved in moved?.name = "" }  // valid: committed
                Cd.transactAndWaitWith([item]) { _ in _ = try! Cd.create(TestItem.self) }
                #expect(handled.get() == [1570, 1570, 1570])
                expectCdError(code: 1570) {
                    try Cd.throwing.transactAndWait { _ = try! Cd.create(TestItem.self) }
                }
                #expect(try Cd.transactAndWait { try Cd.objects(TestItem.self).count() } == 5, "nothing saved")
            }
            // A `transact` with no completion hands its error over too.
            Cd.transact { _ = try Cd.create(TestItem.self) }
            let seen = try background { () -> Bool in
                for _ in 0..<1000 where handled.get().count < 4 { usleep(2000) }
                return handled.get() == [1570, 1570, 1570, 1570]
            }
            #expect(seen, "handled: \(handled.get())")
        }

        @Test func bodyErrorsAreRethrownAndNothingCommits() throws {
            struct Oops: Error {}
            try initCd()
            try background { () throws in
                #expect(throws: Oops.self) {
                    try Cd.transactAndWait {
                        let item = try Cd.create(TestItem.self)
                        item.name = "never"
                        throw Oops()
                    }
                }
                #expect(try Cd.transactAndWait { try Cd.objects(TestItem.self).count() } == 5)
            }
        }

        @Test func cancelImplicitCommitAndExplicitCommit() throws {
            try initCd()
            try background {
                try Cd.transactAndWait {
                    let item = try Cd.create(TestItem.self)
                    item.name = "cancelled"
                    Cd.cancelImplicitCommit()
                }
                #expect(try Cd.transactAndWait { try Cd.objects(TestItem.self).count() } == 5)
                try Cd.transactAndWait { () throws in
                    let item = try Cd.create(TestItem.self)
                    item.name = "committed early"
                    try Cd.commit()
                    // Visible to another transaction before this body ends.
                    let seen = try background { try Cd.transactAndWait { try Cd.objects(TestItem.self).count() } }
                    #expect(seen == 6)
                    #expect(!(try Cd.transactionContext().hasChanges))
                    item.id = 99
                    Cd.cancelImplicitCommit()
                }
                #expect(try Cd.transactAndWait { try Cd.objects(TestItem.self).filter("id = 99").count() } == 0)
            }
        }

        @Test func fileStorePersistsAcrossInit() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cadmium-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let url = folder.appendingPathComponent("items.cdstore")
            let model = try CdModel(classes: [TestItem.self])
            try Cd.initWithStore(model: model, storeURL: url)
            try background {
                try Cd.transactAndWait {
                    let item = try Cd.create(TestItem.self)
                    item.name = "durable"
                    item.id = 7
                }
            }
            Cd.reset()
            try Cd.initWithStore(model: model, storeURL: url)
            let read = try Cd.read { try Cd.objects(TestItem.self).fetch().map { "\($0.id):\($0.name)" } }
            #expect(read == ["7:durable"])
            Cd.reset()
        }
    }
}
