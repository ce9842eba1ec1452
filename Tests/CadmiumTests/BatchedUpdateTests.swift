// An update of many fetched objects in one transaction is handed to the store in batches of about
// the flush threshold (CdManagedObjectContext+Flush.swift, BW9), so the store's working set is one
// batch's and not the whole update's, while the result is exactly one commit's: every value and
// index entry changed, the store verifies, and history records one transaction of every update.

import CdObjects
import CdStore
import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct BatchedUpdate {
        static let threshold = 20
        static let staff = 300
        static let changed = 200

        /// A tracked store of `staff` employees, flushing past `threshold` pending objects.
        private func initStaffed() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("batched-\(UUID()).cdstore")
            let model = try CdModel(classes: [Department.self, Employee.self])
            var options = StoreOptions()
            options.history = .tracked
            try Cd.initWithStore(model: model, storeURL: url, options: options)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            Cd.stack!.flushThreshold.store(Self.threshold, ordering: .relaxed)
            try background {
                try Cd.transactAndWait {
                    for i in 0..<Self.staff {
                        let e = try Cd.create(Employee.self)
                        e.name = "e\(i)"
                        e.salary = Int64(i)
                        e.email = "m\(i)"
                    }
                }
            }
            return url
        }

        private func remove(_ url: URL) {
            Cd.reset()
            for suffix in ["", "-wal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }

        @Test func anUpdateOfManyFetchedObjectsIsAppliedInBatchesAsOneCommit() throws {
            let url = try initStaffed()
            defer { remove(url) }
            let before = try #require(try Cd.history(after: nil).last).token
            try background {
                try Cd.transactAndWait {
                    let chosen = try Cd.objects(Employee.self).filter("salary < %d", Self.changed).fetch()
                    #expect(chosen.count == Self.changed)
                    for e in chosen {
                        e.salary += 1000
                        e.email = "n\(e.name)"
                    }
                    let context = try Cd.transactionContext()
                    #expect(context.writer != nil, "the update flushed before its commit")
                    #expect(context.largestBatch > 0 && context.largestBatch <= Self.threshold + 1)
                    #expect(try Cd.objects(Employee.self).filter("salary >= 1000").count() == Self.changed)
                }
            }
            let rows = try Cd.read {
                try Cd.objects(Employee.self).sorted(by: \.name).fetch().map { ($0.name, $0.salary, $0.email) }
            }
            #expect(rows.count == Self.staff)
            for (name, salary, email) in rows {
                let i = Int64(name.dropFirst())!
                let isChanged = i < Int64(Self.changed)
                #expect(salary == (isChanged ? i + 1000 : i), "\(name)")
                #expect(email == (isChanged ? "ne\(i)" : "m\(i)"), "\(name)")
            }
            // The index holds exactly the new entries.
            let renamed = try Cd.read { try Cd.objects(Employee.self).filter("email BEGINSWITH 'ne'").count() }
            #expect(renamed == Self.changed)
            #expect(try Cd.read { try Cd.objects(Employee.self).filter("email == 'm5'").count() } == 0)
            #expect(try Cd.read { try Cd.objects(Employee.self).filter("email == 'm250'").count() } == 1)
            let store = try #require(Cd.stack?.store as? ObjectStore)
            let problems = try store.engine.read { try ObjectStoreVerifier().verify($0) }
            #expect(problems.isEmpty, "the store does not verify: \(problems)")
            // History: one transaction holding every update.
            let history = try Cd.history(after: before)
            #expect(history.count == 1)
            let changes = try #require(history.first).changes
            #expect(changes.count == Self.changed)
            #expect(changes.allSatisfy { $0.kind == .update && Set($0.updatedProperties) == ["salary", "email"] })
        }
    }
}
