// Every misuse check (A1 to K2, `CdMisuse.Kind`), each triggered at its offending call and
// observed through `Cd.misuseHandler`. Cadmium's non-throwing forms then do nothing (nil, `[]`);
// throwing calls, and the `Cd.throwing` twins, also throw the `CdMisuse`.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct MisuseChecks {
        // MARK: A, B

        @Test func a1UseBeforeInit() throws {
            Cd.reset()
            expectMisuse(.a1) { _ = try Cd.create(TestItem.self, transient: true) }
            try background {
                expectMisuse(.a1) { Cd.transactAndWait {} }
                expectThrownMisuse(.a1) { try Cd.throwing.transactAndWait {} }
            }
        }

        @MainActor @Test func c1FetchOnMainBeforeInit() {
            Cd.reset()
            expectMisuse(.c1) { _ = try Cd.objects(TestItem.self).fetch() }
        }

        @Test func b1NoEntityForClass() throws {
            try initCd()
            try background {
                try Cd.transactAndWait { () throws in
                    expectMisuse(.b1) { _ = try Cd.create(Stranger.self) }
                }
            }
            expectMisuse(.b1) { _ = try Cd.create(Stranger.self, transient: true) }
        }

        @Test func b3CreateOutsideTransaction() throws {
            try initCd()
            try background { () throws in
                expectMisuse(.b3) { _ = try Cd.create(TestItem.self) }
                expectMisuse(.b3) { _ = try Cd.create(TestItem.self, count: 3) }
                #expect(try Cd.create(TestItem.self, count: 0).isEmpty, "count <= 0 returns [] before any check")
            }
        }

        // MARK: C

        @Test func c1FetchAndCountWithoutContext() throws {
            try initCd()
            try background {
                expectMisuse(.c1) { _ = try Cd.objects(TestItem.self).fetch() }
                expectMisuse(.c1) { _ = try Cd.objects(TestItem.self).count() }
                expectMisuse(.c1) { _ = try Cd.objects(TestItem.self).fetchOne() }
            }
        }

        @MainActor @Test func c2toC4QueryShapes() throws {
            try initCd()
            expectMisuse(.c2) {
                _ = try Cd.dictionaryQuery(for: TestItem.self).onlyProperties(["id"]).groupBy("name").fetch()
            }
            expectMisuse(.c3) {
                _ = try Cd.objects(TestItem.self).includeExpression("s", resultType: .integer64, withFormat: "@sum.id")
                    .fetch()
            }
            expectMisuse(.c4) { _ = try Cd.objects(TestItem.self).groupBy("name").fetch() }
            // The expression check runs before the grouping check.
            expectMisuse(.c3) {
                _ = try Cd.objects(TestItem.self).groupBy("name")
                    .includeExpression("s", resultType: .integer64, withFormat: "@sum.id").fetchOne()
            }
        }

        // MARK: D

        @MainActor @Test func d1InsertOnMain() throws {
            try initCd()
            let item = try Cd.create(TestItem.self, transient: true)
            expectMisuse(.d1) { Cd.insert(item) }
            expectMisuse(.d1) { Cd.insert([item]) }
            expectThrownMisuse(.d1) { try Cd.throwing.insert(item) }
            expectThrownMisuse(.d1) { try Cd.throwing.insert([item]) }
            #expect(item.managedObjectContext == nil, "the refused insert did nothing")
        }

        @Test func d2andD3Insert() throws {
            try initCd()
            try background {
                let item = try Cd.create(TestItem.self, transient: true)
                expectMisuse(.d2) { Cd.insert(item) }
                expectThrownMisuse(.d2) { try Cd.throwing.insert(item) }
                #expect(item.managedObjectContext == nil, "the refused insert did nothing")
                let saved = try Cd.transactAndWait { try Cd.objects(TestItem.self).fetchOne()! }
                try Cd.transactAndWait { () throws in
                    expectMisuse(.d3) { Cd.insert(saved) }
                    expectThrownMisuse(.d3) { try Cd.throwing.insert(saved) }
                    let own = try Cd.create(TestItem.self)
                    own.name = "own"
                    Cd.insert(own)  // already in this context: nothing happens
                }
            }
        }

        // MARK: E

        @Test func e2toE4Delete() throws {
            try initCd()
            try background {
                let saved = try Cd.transactAndWait { try Cd.objects(TestItem.self).fetchOne()! }
                expectMisuse(.e2) { Cd.delete(saved) }
                expectThrownMisuse(.e2) { try Cd.throwing.delete(saved) }
                try Cd.transactAndWait { () throws in
                    Cd.cancelImplicitCommit()
                    expectMisuse(.e3) { Cd.delete(saved) }
                    expectThrownMisuse(.e3) { try Cd.throwing.delete([saved]) }
                    let transient = try Cd.create(TestItem.self, transient: true)
                    expectMisuse(.e4) { Cd.delete([transient]) }
                    expectThrownMisuse(.e4) { try Cd.throwing.delete(transient) }
                }
                let count = try Cd.transactAndWait { try Cd.objects(TestItem.self).count() }
                #expect(count == 5, "the refused deletes did nothing")
            }
        }

        // MARK: F

        @MainActor @Test func f1toF4OnMain() throws {
            try initCd()
            let a = try #require(try Cd.objects(TestItem.self).fetchOne())
            expectMisuse(.f1) { Cd.transactAndWait { Issue.record("the body must not run") } }
            expectMisuse(.f1) { #expect(Cd.transactAndWait { 1 } == nil) }
            expectMisuse(.f1) { Cd.transactAndWaitWith(a) { _ in Issue.record("the body must not run") } }
            expectMisuse(.f1) { Cd.transactAndWaitWith([a]) { _ in Issue.record("the body must not run") } }
            expectThrownMisuse(.f1) { try Cd.transactAndWait { () throws in } }
            expectThrownMisuse(.f1) { try Cd.throwing.transactAndWait {} }
            expectThrownMisuse(.f1) { try Cd.throwing.transactAndWaitWith(a) { _ in } }
            expectThrownMisuse(.f1) { try Cd.throwing.transactAndWaitWith([a]) { _ in } }
            expectMisuse(.f2) { Cd.cancelImplicitCommit() }
            expectThrownMisuse(.f2) { try Cd.throwing.cancelImplicitCommit() }
            expectMisuse(.f3) { _ = try Cd.transactionContext() }
            expectMisuse(.f4) { try Cd.commit() }
        }

        @Test func f2toF4OutsideTransaction() throws {
            try initCd()
            try background {
                expectMisuse(.f2) { Cd.cancelImplicitCommit() }
                expectThrownMisuse(.f2) { try Cd.throwing.cancelImplicitCommit() }
                expectMisuse(.f3) { _ = try Cd.transactionContext() }
                expectMisuse(.f4) { try Cd.commit() }
            }
        }

        @Test func f5TransactionOnTheMainQueue() async throws {
            try initCd()
            let recorder = MisuseRecorder()
            recorder.install()
            let error = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                Cd.transact(
                    on: DispatchQueue.main,
                    operation: {
                        Issue.record("the body must not run on the main queue")
                    },
                    completion: { error in
                        continuation.resume(returning: error.map { "\($0)" })
                    })
            }
            #expect(recorder.kinds == [.f5])
            #expect(error?.contains("F5") == true)
        }

        // MARK: G

        @Test func g1andG2UseInCurrentContext() throws {
            try initCd()
            try background {
                let saved = try Cd.transactAndWait { try Cd.objects(TestItem.self).fetchOne()! }
                expectMisuse(.g1) { #expect(Cd.useInCurrentContext(saved) == nil) }
                expectMisuse(.g1) { #expect(Cd.useInCurrentContext([saved]).isEmpty) }
                expectThrownMisuse(.g1) { _ = try Cd.throwing.useInCurrentContext(saved) }
                expectThrownMisuse(.g1) { _ = try Cd.throwing.useInCurrentContext([saved]) }
                try Cd.transactAndWait { () throws in
                    let fresh = try Cd.create(TestItem.self)
                    fresh.name = "uncommitted"
                    #expect(fresh.objectID != nil, "a permanent ID at create")
                    try Cd.transactAndWait { () throws in
                        expectMisuse(.g2) { #expect(Cd.useInCurrentContext(fresh) == nil) }
                        expectThrownMisuse(.g2) { _ = try Cd.throwing.useInCurrentContext(fresh) }
                    }
                }
            }
        }

        @Test func useInCurrentContextOfADeletedObjectIsNil() throws {
            try initCd()
            try background {
                let a = try Cd.transactAndWait { try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()! }
                Cd.transactAndWait { Cd.delete(Cd.useInCurrentContext(a)!) }
                try Cd.transactAndWait { () throws in
                    #expect(Cd.useInCurrentContext(a) == nil)
                    #expect(Cd.useInCurrentContext([a]).isEmpty)
                    #expect(try Cd.throwing.useInCurrentContext(a) == nil)
                    #expect(try Cd.throwing.useInCurrentContext([a]).isEmpty)
                }
            }
        }

        // MARK: H

        @Test func h1UpdateHandlerOutsideMainContext() throws {
            try initCd()
            try background {
                try Cd.transactAndWait { () throws in
                    let a = try Cd.objects(TestItem.self).fetchOne()!
                    expectMisuse(.h1) { a.updateHandler = { _ in } }
                    expectMisuse(.h1) { a.updateHandler = nil }
                }
            }
            let transient = try Cd.create(TestItem.self, transient: true)
            expectMisuse(.h1) { transient.updateHandler = { _ in } }
        }

        // MARK: I

        @Test func i1MainObjectReadInTransaction() async throws {
            try initCd()
            let object = try await MainActor.run {
                Unchecked(try Cd.objects(TestItem.self).filter("id = 1").fetchOne()!)
            }
            try await Cd.transaction {
                expectMisuse(.i1) { _ = object.value.name }
            }
        }

        @Test func i2toI4Reads() throws {
            try initCd()
            let fromTransaction = try background {
                try Cd.transactAndWait { try Cd.objects(TestItem.self).filter("id = 2").fetchOne()! }
            }
            try background {
                expectMisuse(.i2) { _ = fromTransaction.name }
                try Cd.transactAndWait { () throws in
                    expectMisuse(.i4) { _ = fromTransaction.id }
                }
            }
            DispatchQueue.main.sync {
                expectMisuse(.i3) { _ = fromTransaction.name }
            }
        }

        // MARK: J

        @Test func j3WriteWithoutContext() throws {
            try initCd()
            try background {
                let item = try Cd.transactAndWait { try Cd.objects(TestItem.self).fetchOne()! }
                expectMisuse(.j3) { item.name = "no context" }
            }
        }

        @Test func transientObjectsAreWritableAnywhere() throws {
            try initCd()
            let item = try Cd.create(TestItem.self, transient: true)
            item.name = "anywhere"
            try background { item.id = 7 }
            #expect(item.name == "anywhere" && item.id == 7)
        }

        // MARK: K

        @Test func k1ToManyWrites() throws {
            try initCompany()
            let department = try background { () -> Department in
                try Cd.transactAndWait {
                    let d = try Cd.create(Department.self)
                    d.name = "R&D"
                    return d
                }
            }
            try background {
                expectMisuse(.k1) { department.employees = [] }  // no context (J3's case)
                try Cd.transactAndWait { () throws in
                    expectMisuse(.k1) { department.employees = [] }  // another transaction (J4's case)
                }
            }
            let onMain = DispatchQueue.main.sync { Cd.useInCurrentContext(department)! }
            DispatchQueue.main.sync {
                expectMisuse(.k1) { onMain.employees = [] }  // main (J1's case)
            }
        }

        @Test func k2ToManyTargetFromAnotherContext() throws {
            try initCompany()
            let outsider = try background { () -> Employee in
                try Cd.transactAndWait {
                    let e = try Cd.create(Employee.self)
                    e.name = "outsider"
                    return e
                }
            }
            try background {
                try Cd.transactAndWait { () throws in
                    let d = try Cd.create(Department.self)
                    d.name = "Ops"
                    expectMisuse(.k2) { d.employees = [outsider] }
                    #expect(d.employees.isEmpty, "the write did nothing")
                    // The to-one side does not check targets (as in Cadmium) and works by ID.
                    let local = Cd.useInCurrentContext(outsider)!
                    d.employees = [local]
                }
            }
        }

        @Test func everyKindHasATest() {
            // Kinds covered above (E4, F5 and K1 are ours; J2/C5 are passes, not checks); A2 in
            // CloseTests.swift; I5 and J5 (editing contexts) in EditingContextTests.swift.
            #expect(CdMisuse.Kind.allCases.count == 36)
        }
    }
}
