// `CdManagedObject.updateHandler`: events for main-context objects, delivered on the main queue
// after each commit is merged — `.updated` for properties a commit changed, `.refreshed` for
// changes the store made on its own (an inverse kept in step), `.deleted` for deletes, cascades
// included. Also: `onMainWith` and `transactWith` hand objects between contexts.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct UpdateHandlers {
        @MainActor @Test func updatedThenDeleted() async throws {
            try initCd()
            let a = try #require(try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne())
            let events = LockedBox<[CdManagedObjectUpdateEvent]>([])
            a.updateHandler = { event in
                #expect(ThreadState.isMain, "delivered on the main queue")
                events.update { $0.append(event) }
            }
            try await Cd.transaction {
                try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()?.name = "A2"
            }
            #expect(await waitUntil { events.get() == [.updated] })
            #expect(a.name == "A2", "the merge refaulted the main-context object")
            try await Cd.transaction { try Cd.objects(TestItem.self).filter("name = %@", "A2").delete() }
            #expect(await waitUntil { events.get() == [.updated, .deleted] })
            #expect(a.isDeleted)
        }

        @MainActor @Test func inverseChangeIsRefreshedAndCascadeIsDeleted() async throws {
            try initCompany()
            try await Cd.transaction {
                let d = try Cd.create(Department.self)
                d.name = "R&D"
            }
            let department = try #require(try Cd.objects(Department.self).fetchOne())
            let events = LockedBox<[CdManagedObjectUpdateEvent]>([])
            department.updateHandler = { event in events.update { $0.append(event) } }
            // An employee joins: the department changes only through the inverse.
            try await Cd.transaction {
                let e = try Cd.create(Employee.self)
                e.name = "Ann"
                let d = try Cd.objects(Department.self).fetchOne()
                e.department = d
            }
            #expect(department.employees.map(\.name) == ["Ann"], "a fresh read after the merge")
            #expect(await waitUntil { !events.get().isEmpty })
            #expect(events.get().allSatisfy { $0 == .refreshed || $0 == .updated })
            // Deleting the employee's department cascades; the employee object is told too.
            let ann = try #require(try Cd.objects(Employee.self).fetchOne())
            let annEvents = LockedBox<[CdManagedObjectUpdateEvent]>([])
            ann.updateHandler = { event in annEvents.update { $0.append(event) } }
            try await Cd.transaction { try Cd.objects(Department.self).delete() }
            #expect(await waitUntil { annEvents.get() == [.deleted] })
        }

        @MainActor @Test func mainThreadFetchSeesTheCommitBeforeTheMerge() throws {
            try initCd()
            let a = try #require(try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne())
            try background {
                try Cd.transactAndWait { try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()?.id = 42 }
            }
            // The main queue has been blocked: the merge has not run, but a fetch reads the commit
            // and refreshes the objects it returns.
            let again = try #require(try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne())
            #expect(again === a, "one object per ID in the main context")
            #expect(again.id == 42)
        }

        @Test func onMainWithAndTransactWith() async throws {
            try initCd()
            let created = try background {
                try Cd.transactAndWait { () -> TestItem in
                    let item = try Cd.create(TestItem.self)
                    item.name = "F"
                    return item
                }
            }
            let box = Unchecked(created)
            let seen = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                Cd.onMainWith(box.value) { item in
                    #expect(item?.managedObjectContext?.description == "the main context")
                    continuation.resume(returning: item?.name)
                }
            }
            #expect(seen == "F")
            let names = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
                Cd.onMainWith([box.value]) { items in continuation.resume(returning: items.map(\.name)) }
            }
            #expect(names == ["F"])
            let nilObject: TestItem? = nil
            let none = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                Cd.onMainWith(nilObject) { item in continuation.resume(returning: item == nil) }
            }
            #expect(none)

            // transactWith moves the object into the transaction; its completion sees the result.
            let error = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
                Cd.transactWith(
                    box.value, operation: { item in item?.name = "G" },
                    completion: { continuation.resume(returning: $0) })
            }
            #expect(error == nil)
            let renamed = try background {
                Cd.transactAndWaitWith([box.value]) { items in items.map(\.name) }
            }
            #expect(renamed == ["G"])
        }
    }
}

extension CadmiumSuites.UpdateHandlers {
    @MainActor @Test func movingAnObjectOntoMainRefreshesTheMainCopy() async throws {
        try initCd()
        let a = try #require(try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne())
        let events = LockedBox<[CdManagedObjectUpdateEvent]>([])
        a.updateHandler = { event in events.update { $0.append(event) } }
        let fromTransaction = try await Cd.transaction {
            Unchecked(try Cd.objects(TestItem.self).filter("name = %@", "A").fetchOne()!)
        }
        let moved = Cd.useInCurrentContext(fromTransaction.value)
        #expect(moved === a, "the main context's own copy")
        #expect(await waitUntil { events.get() == [.refreshed] })
    }
}
