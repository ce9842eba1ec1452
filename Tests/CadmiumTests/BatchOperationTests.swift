// Batch operations: `batchDelete`, `batchUpdate` (constants and `CdExpression`) and
// `Cd.batchInsert` go through the store's commit path in batches — validation, delete rules,
// inverses — and their commits reach the main context, controllers and observers.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct BatchOperations {
        /// Departments A (employees a0…a4, salaries 100…104) and B (b0…b2, 200…202).
        func seed() async throws {
            try initCompany()
            try await Cd.transaction {
                for (name, base, count) in [("A", 100, 5), ("B", 200, 3)] {
                    let department = try Cd.create(Department.self)
                    department.name = name
                    for i in 0..<count {
                        let e = try Cd.create(Employee.self)
                        e.name = "\(name.lowercased())\(i)"
                        e.salary = Int64(base + i)
                        e.department = department
                    }
                }
            }
        }

        func salaries() throws -> [String: Int64] {
            try Dictionary(uniqueKeysWithValues: Cd.objects(Employee.self).fetch().map { ($0.name, $0.salary) })
        }

        @MainActor @Test func batchUpdateSetsConstantsAndExpressionsInBatches() async throws {
            try await seed()
            let commits = Cd.commits
            let n = try await Cd.transaction {
                try Cd.objects(Employee.self).filter("salary >= 200").batchUpdate(["salary": 0], batchSize: 2)
            }
            #expect(n == 3)
            #expect(try salaries().filter { $0.key.hasPrefix("b") }.values.allSatisfy { $0 == 0 })
            let raised = try await Cd.transaction {
                try Cd.objects(Employee.self).filter("salary > 0").batchUpdate([
                    "salary": CdExpression("salary * 1.1 + 1")
                ])
            }
            #expect(raised == 5)
            #expect(try salaries()["a0"] == 111 && salaries()["a4"] == 115)
            var iterator = commits.makeAsyncIterator()
            var sizes: [Int] = []
            for _ in 0..<3 { sizes.append(await iterator.next()?.updated["Employee"]?.count ?? -1) }
            #expect(sizes == [2, 1, 5], "two batches of the first update, one of the second")
        }

        @MainActor @Test func batchUpdateValidatesBeforeWriting() async throws {
            try await seed()
            await #expect(throws: CdError.self) {
                try await Cd.transaction { _ = try Cd.objects(Employee.self).batchUpdate(["nope": 1]) }
            }
            await #expect(throws: CdExpressionError.self) {
                try await Cd.transaction {
                    _ = try Cd.objects(Employee.self).batchUpdate(["salary": CdExpression("salary * (2")])
                }
            }
            await #expect(throws: CdExpressionError.self) {
                try await Cd.transaction {
                    _ = try Cd.objects(Employee.self).batchUpdate(["salary": CdExpression("name * 2")])
                }
            }
            await #expect(throws: CdPredicateError.self) {
                try await Cd.transaction {
                    _ = try Cd.objects(Employee.self).filter("salary >>> 1").batchUpdate(["salary": 1])
                }
            }
            // A required attribute set to nil fails the store's validation.
            await #expect(throws: CdError.self) {
                try await Cd.transaction { _ = try Cd.objects(Employee.self).batchUpdate(["name": CdValue.null]) }
            }
            #expect(try salaries()["a0"] == 100, "nothing was written")
        }

        @MainActor @Test func batchDeleteRunsDeleteRulesAndNotifiesTheMainContext() async throws {
            try await seed()
            let controller = Cd.newFetchedResultsController(
                Cd.objects(Employee.self).sorted("name"), sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let a = try #require(try Cd.objects(Department.self).filter("name == 'A'").fetchOne())
            let events = LockedBox<[CdManagedObjectUpdateEvent]>([])
            a.updateHandler = { event in events.update { $0.append(event) } }
            // Cascade: deleting department A deletes its five employees, not counted.
            let n = try await Cd.transaction { try Cd.objects(Department.self).filter("name == 'A'").batchDelete() }
            #expect(n == 1)
            #expect(try Cd.objects(Employee.self).count() == 3)
            #expect(await waitUntil { events.get() == [.deleted] })
            #expect(controller.fetchedObjects?.map(\.name) == ["b0", "b1", "b2"])
            // Nullify: deleting employees updates their department's list.
            let m = try await Cd.transaction {
                try Cd.objects(Employee.self).filter("salary > 200").batchDelete(batchSize: 1)
            }
            #expect(m == 2)
            #expect(try Cd.objects(Department.self).fetchOne()?.employees.map(\.name) == ["b0"])
            await drainMainQueue()
            #expect(controller.fetchedObjects?.map(\.name) == ["b0"])
        }

        @MainActor @Test func batchInsertValidatesAndKeepsInverses() async throws {
            try await seed()
            let b = try #require(try Cd.objects(Department.self).filter("name == 'B'").fetchOne()?.objectID)
            let n = try await Cd.transaction {
                try Cd.batchInsert(
                    Employee.self,
                    (0..<25).lazy.map { i -> [String: Any] in ["name": "n\(i)", "salary": i, "department": b] },
                    batchSize: 10)
            }
            #expect(n == 25)
            #expect(try Cd.objects(Employee.self).filter("name BEGINSWITH 'n'").count() == 25)
            #expect(try Cd.objects(Department.self).filter("name == 'B'").fetchOne()?.employees.count == 28)
            await #expect(throws: CdError.self) {
                try await Cd.transaction { try Cd.batchInsert(Employee.self, [["salary": 1]]) }  // no name: 1570
            }
            await #expect(throws: CdError.self) {
                try await Cd.transaction { try Cd.batchInsert(Employee.self, [["name": "x", "wage": 1]]) }
            }
        }

        @MainActor @Test func batchOperationsOutsideATransactionAreMisuse() async throws {
            try await seed()
            let recorder = MisuseRecorder()
            recorder.install()
            #expect(throws: CdMisuse.self) { try Cd.objects(Employee.self).batchDelete() }
            #expect(throws: CdMisuse.self) { try Cd.objects(Employee.self).batchUpdate(["salary": 1]) }
            #expect(throws: CdMisuse.self) { try Cd.batchInsert(Employee.self, [["name": "x"]]) }
            try background {
                _ = try? Cd.objects(Employee.self).batchDelete()
                _ = try? Cd.objects(Employee.self).batchUpdate(["salary": 1])
                _ = try? Cd.batchInsert(Employee.self, [["name": "x"]])
            }
            #expect(recorder.kinds == [.e1, .j1, .b2, .e2, .j3, .b3])
            #expect(try Cd.objects(Employee.self).count() == 8)
        }
    }
}
