// Persistent history through the `Cd` API: the issue's example verbatim, authors and context
// names, filters, tombstones of attributes marked in Swift, batch operations, the flushing
// path of a large transaction, and expired tokens.

import Foundation
import Testing
@testable import Cadmium

/// An entity whose `title` is kept in history tombstones.
final class Ledger: CdManagedObject {
    @Attribute(.preservesValueInHistoryOnDeletion) var title: String
    @Attribute var note: String?
}

extension CadmiumSuites {
    @Suite struct History {
        /// A fresh store file with history tracked and the README's Department/Employee, plus Ledger.
        func initTracked() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID()).cdstore")
            let model = try CdModel(classes: [Department.self, Employee.self, Ledger.self])
            var options = StoreOptions()
            options.history = .tracked
            try Cd.initWithStore(model: model, storeURL: url, options: options)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            return url
        }

        func remove(_ url: URL) {
            Cd.reset()
            for suffix in ["", "-wal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }

        /// The example of issue 30, verbatim between the markers.
        @Test func theIssueExampleCompilesAndBehavesAsCommented() throws {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID()).cdstore")
            defer { remove(url) }
            let model = try CdModel(classes: [Department.self, Employee.self])
            // --- issue 30, verbatim ---
            var options = StoreOptions()
            options.history = .tracked  // off by default
            try Cd.initWithStore(model: model, storeURL: url, options: options)
            try Cd.transactAndWait {
                try Cd.transactionContext().transactionAuthor = "importer"
                let ann = try Cd.create(Employee.self)
                ann.name = "Ann"
            }
            let all = try Cd.history(after: nil)  // [CdHistoryTransaction], oldest first
            let last = all.last!
            print(last.author ?? "-", last.timestamp, last.changes.count)  // importer <date> 1
            let change = last.changes[0]  // CdHistoryChange
            print(change.objectID.entity, change.kind, change.updatedProperties.sorted())  // Employee insert [...]
            let newer = try Cd.history(after: last.token)  // [] until the next commit, from any process
            let data = try JSONEncoder().encode(last.token)  // CdHistoryToken: Codable, Comparable, Sendable
            try Cd.deleteHistory(before: last.token)
            // a token older than what is kept: a CdError whose code is 134301 (persistentHistoryTokenExpired)
            // --- end of the example ---
            #expect(all.count == 1)
            #expect(last.author == "importer" && last.changes.count == 1)
            #expect(abs(last.timestamp.timeIntervalSinceNow) < 60)
            #expect(change.objectID.entity == "Employee" && "\(change.kind)" == "insert")
            #expect(change.updatedProperties.sorted() == ["name", "salary"], "the properties holding a value")
            #expect(newer.isEmpty)
            #expect(try JSONDecoder().decode(CdHistoryToken.self, from: data) == last.token)
            let sendable: any Sendable = last.token
            _ = sendable
            // Two more commits, then delete before the newest: the first token has expired.
            for name in ["Bo", "Cy"] {
                try Cd.transactAndWait { try Cd.create(Employee.self).name = name }
            }
            let three = try Cd.history(after: nil)
            #expect(three.map(\.token.number) == [1, 2, 3])
            #expect(three[0].token < three[1].token && three[1].token < three[2].token)
            #expect(try Cd.history(after: last.token).count == 2, "the token follows its own transaction")
            try Cd.deleteHistory(before: three[2].token)
            #expect(try Cd.history(after: nil).map(\.token) == [three[2].token])
            #expect(
                try Cd.history(after: three[1].token).map(\.token) == [three[2].token], "nothing after it was deleted")
            expectCdError(code: 134301) { _ = try Cd.history(after: last.token) }
        }

        @Test func authorsContextNamesAndFilters() throws {
            let url = try initTracked()
            defer { remove(url) }
            try Cd.transactAndWait {
                let context = try Cd.transactionContext()
                context.transactionAuthor = "sync"
                context.name = "background"
                let d = try Cd.create(Department.self)
                d.name = "R&D"
                let e = try Cd.create(Employee.self)
                e.name = "Ann"
                e.department = d
            }
            try Cd.transactAndWait {
                let e = try Cd.objects(Employee.self).fetch()[0]
                e.salary = 10
            }
            let all = try Cd.history(after: nil)
            #expect(all.map(\.author) == ["sync", nil])
            #expect(all.map(\.contextName) == ["background", nil])
            #expect(try Cd.history(after: nil, author: "sync").map(\.token) == [all[0].token])
            let departments = try Cd.history(after: nil, entity: Department.self)
            #expect(departments.count == 1 && departments[0].changes.map(\.objectID.entity) == ["Department"])
            #expect(departments[0].changes[0].updatedProperties == ["name", "employees"])
            let employees = try Cd.history(after: nil, entity: "Employee")
            #expect(employees.map { $0.changes.map(\.kind) } == [[.insert], [.update]])
            #expect(employees[1].changes[0].updatedProperties == ["salary"])
            #expect(throws: CdError.self) { _ = try Cd.history(after: nil, entity: "Nope") }
        }

        @Test func deletesKeepMarkedAttributesAndCascadesAreRecorded() throws {
            let url = try initTracked()
            defer { remove(url) }
            try Cd.transactAndWait {
                let l = try Cd.create(Ledger.self)
                l.title = "Q3"
                l.note = "draft"
                let d = try Cd.create(Department.self)
                d.name = "Ops"
                for n in ["a", "b"] {
                    let e = try Cd.create(Employee.self)
                    e.name = n
                    e.department = d
                }
            }
            try Cd.transactAndWait {
                Cd.delete(try Cd.objects(Ledger.self).fetch()[0])
                Cd.delete(try Cd.objects(Department.self).fetch()[0])
            }
            let last = try #require(try Cd.history(after: nil).last)
            let byEntity = Dictionary(grouping: last.changes, by: \.objectID.entity)
            #expect(last.changes.allSatisfy { $0.kind == .delete })
            #expect(byEntity["Ledger"]?.first?.tombstone == ["title": .string("Q3")], "only the marked attribute")
            #expect(byEntity["Department"]?.first?.tombstone == [:])
            #expect(byEntity["Employee"]?.count == 2, "the cascade's deletes are recorded")
        }

        @Test func batchOperationsAndLargeTransactionsAreRecorded() async throws {
            let url = try initTracked()
            defer { remove(url) }
            // More than one flush (CdContainer.flushThreshold): the writer's batches make one transaction.
            let count = 4_500
            try Cd.transactAndWait {
                for i in 0..<count { try Cd.create(Employee.self).name = "e\(i)" }
            }
            var history = try Cd.history(after: nil)
            #expect(history.count == 1 && history[0].changes.count == count)
            #expect(Set(history[0].changes.map(\.objectID)).count == count)
            let inserted = try await Cd.transaction {
                try Cd.batchInsert(Employee.self, (0..<30).lazy.map { i in ["name": "x\(i)"] }, batchSize: 20)
            }
            let batches = try Cd.history(after: history[0].token)
            #expect(inserted == 30 && batches.map(\.changes.count) == [20, 10], "one transaction per batch")
            #expect(batches.allSatisfy { $0.changes.allSatisfy { $0.kind == .insert } })
            history = [batches[1]]
            let n = try await Cd.transaction {
                try Cd.objects(Employee.self).filter("name BEGINSWITH 'e1'").batchUpdate(["salary": 5], batchSize: 400)
            }
            history = try Cd.history(after: history[0].token)
            #expect(history.reduce(0) { $0 + $1.changes.count } == n)
            #expect(
                history.allSatisfy {
                    $0.changes.allSatisfy { $0.kind == .update && $0.updatedProperties == ["salary"] }
                })
            let deleted = try await Cd.transaction { try Cd.objects(Employee.self).filter("salary == 5").batchDelete() }
            let deletes = try Cd.history(after: history.last?.token)
            #expect(deletes.reduce(0) { $0 + $1.changes.count } == deleted)
            #expect(deletes.allSatisfy { $0.changes.allSatisfy { $0.kind == .delete } })
        }
    }
}
