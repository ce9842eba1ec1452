// `CdFetchedResultsController`: sections by key path, and the changes told to the delegate and
// `onChange` after each merge — inserts, deletes, moves between sections, moves from a sort
// order change, updates in place, section inserts and deletes, and no call at all for a commit
// that does not touch the results. The delegate's calls are logged as text and compared with
// the expected log.

import Foundation
import Testing
@testable import Cadmium

/// Logs every delegate call as one line.
final class ResultsLog: CdFetchedResultsControllerDelegate, @unchecked Sendable {
    // @unchecked: `lines` is locked.
    let lines = LockedBox<[String]>([])
    func controllerWillChangeContent(_ controller: AnyObject) { lines.update { $0.append("will") } }
    func controller(
        _ controller: AnyObject, didChangeSection name: String, atSectionIndex index: Int,
        for type: CdFetchedResultsChangeType
    ) {
        lines.update { $0.append("section \(type) \(index) '\(name)'") }
    }
    func controller(
        _ controller: AnyObject, didChange object: CdManagedObject, at indexPath: CdIndexPath?,
        for type: CdFetchedResultsChangeType, newIndexPath: CdIndexPath?
    ) {
        let title = (object as? Chore)?.title ?? "?"
        let from = indexPath.map { "\($0)" } ?? "-", to = newIndexPath.map { "\($0)" } ?? "-"
        lines.update { $0.append("\(type) \(title) \(from) -> \(to)") }
    }
    func controllerDidChangeContent(_ controller: AnyObject) { lines.update { $0.append("did") } }

    /// The lines logged since the last call, once a "did" arrived (or what there is at timeout).
    func next() async -> [String] {
        _ = await waitUntil { [lines] in lines.get().contains("did") }
        defer { lines.set([]) }
        return lines.get()
    }
}

/// Lets the main queue run everything queued so far (the merges of finished commits).
func drainMainQueue() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async { continuation.resume() }
    }
}

extension CadmiumSuites {
    @Suite struct FetchedResultsControllers {
        /// Chores a, b (priority 1) and c (priority 2).
        func seed() async throws {
            try initCompany()
            try await Cd.transaction {
                for (title, priority) in [("a", 1), ("b", 1), ("c", 2)] {
                    let chore = try Cd.create(Chore.self)
                    chore.title = title
                    chore.priority = Int64(priority)
                }
            }
        }

        @MainActor func choresByPriority() -> CdFetchedResultsController<Chore> {
            Cd.newFetchedResultsController(
                Cd.objects(Chore.self).sorted("priority").sorted("title"),
                sectionNameKeyPath: "priority", cacheName: "ignored")
        }

        @MainActor func layout(_ controller: CdFetchedResultsController<Chore>) -> [String] {
            (controller.sections ?? []).map { "\($0.name): \($0.objects.map(\.title).joined(separator: ","))" }
        }

        @MainActor @Test func sectionsFollowTheKeyPath() async throws {
            try await seed()
            let controller = choresByPriority()
            #expect(controller.fetchedObjects == nil && controller.sections == nil, "nothing before performFetch")
            try controller.performFetch()
            #expect(layout(controller) == ["1: a,b", "2: c"])
            #expect(controller.fetchedObjects?.map(\.title) == ["a", "b", "c"])
            #expect(controller.sections?[0].numberOfObjects == 2)
            let c = controller.object(at: CdIndexPath(row: 0, section: 1))
            #expect(c.title == "c")
            #expect(controller.indexPath(forObject: c) == CdIndexPath(row: 0, section: 1))
            #expect(controller.sectionIndexTitles == ["1", "2"])
            #expect(controller.cacheName == "ignored")

            let flat = Cd.newFetchedResultsController(
                Cd.objects(Chore.self).sorted("title", ascending: false),
                sectionNameKeyPath: nil, cacheName: nil)
            try flat.performFetch()
            #expect(flat.sections?.map(\.name) == [""])
            #expect(flat.sections?.first?.objects.map(\.title) == ["c", "b", "a"])
        }

        @MainActor @Test func insertsAndDeletesWithTheirSections() async throws {
            try await seed()
            let controller = choresByPriority()
            let log = ResultsLog()
            controller.delegate = log
            try controller.performFetch()

            try await Cd.transaction {
                let chore = try Cd.create(Chore.self)
                chore.title = "aa"
                chore.priority = 1
                let other = try Cd.create(Chore.self)
                other.title = "d"
                other.priority = 3
            }
            let logged = await log.next()
            #expect(logged == ["will", "section insert 2 '3'", "insert aa - -> [0, 1]", "insert d - -> [2, 0]", "did"])
            #expect(layout(controller) == ["1: a,aa,b", "2: c", "3: d"])

            try await Cd.transaction { try Cd.objects(Chore.self).filter("title IN %@", ["c", "a"]).delete() }
            let deletes = await log.next()
            #expect(deletes == ["will", "section delete 1 '2'", "delete a [0, 0] -> -", "delete c [1, 0] -> -", "did"])
            #expect(layout(controller) == ["1: aa,b", "3: d"])
            withExtendedLifetime(log) {}
        }

        @MainActor @Test func anUpdateThatChangesTheSectionIsAMove() async throws {
            try await seed()
            let controller = choresByPriority()
            let log = ResultsLog()
            controller.delegate = log
            try controller.performFetch()
            try await Cd.transaction { try Cd.objects(Chore.self).filter("title == 'b'").fetchOne()?.priority = 2 }
            let logged = await log.next()
            #expect(logged == ["will", "move b [0, 1] -> [1, 0]", "did"])
            #expect(layout(controller) == ["1: a", "2: b,c"])
            withExtendedLifetime(log) {}
        }

        @MainActor @Test func sortOrderChangesAreMovesAndOtherChangesAreUpdates() async throws {
            try await seed()
            let controller = Cd.newFetchedResultsController(
                Cd.objects(Chore.self).sorted("title"),
                sectionNameKeyPath: nil, cacheName: nil)
            let log = ResultsLog()
            controller.delegate = log
            let changes = LockedBox<[CdFetchedResultsChangeType]>([])
            controller.onChange = { all in changes.update { $0 += all.objects.map(\.type) } }
            try controller.performFetch()

            try await Cd.transaction { try Cd.objects(Chore.self).filter("title == 'a'").fetchOne()?.title = "z" }
            let logged = await log.next()
            #expect(logged == ["will", "move z [0, 0] -> [0, 2]", "did"])
            #expect(controller.fetchedObjects?.map(\.title) == ["b", "c", "z"])
            #expect(changes.get() == [.move], "onChange gets the same changes")

            try await Cd.transaction { try Cd.objects(Chore.self).filter("title == 'c'").fetchOne()?.priority = 5 }
            let updates = await log.next()
            #expect(updates == ["will", "update c [0, 1] -> [0, 1]", "did"])
            #expect(changes.get() == [.move, .update])
            withExtendedLifetime(log) {}
        }

        @MainActor @Test func commitsThatDoNotTouchTheResultsMakeNoCall() async throws {
            try await seed()
            let controller = Cd.newFetchedResultsController(
                Cd.objects(Chore.self).filter("priority == 1").sorted("title"),
                sectionNameKeyPath: nil, cacheName: nil)
            let log = ResultsLog()
            controller.delegate = log
            let calls = LockedBox(0)
            controller.onChange = { _ in calls.update { $0 += 1 } }
            try controller.performFetch()
            try await Cd.transaction {
                let department = try Cd.create(Department.self)  // another entity
                department.name = "R&D"
                try Cd.objects(Chore.self).filter("title == 'c'").fetchOne()?.title = "cc"  // outside the filter
            }
            await drainMainQueue()  // the merge was queued before the transaction returned
            #expect(log.lines.get().isEmpty && calls.get() == 0)
            // A change that enters the results is told.
            try await Cd.transaction { try Cd.objects(Chore.self).filter("title == 'cc'").fetchOne()?.priority = 1 }
            let logged = await log.next()
            #expect(logged == ["will", "insert cc - -> [0, 2]", "did"])
            #expect(calls.get() == 1)
            withExtendedLifetime(log) {}
        }

        @MainActor @Test func theSectionKeyPathMustBeTheFirstSortKey() async throws {
            try await seed()
            let controller = Cd.newFetchedResultsController(
                Cd.objects(Chore.self).sorted("title"),
                sectionNameKeyPath: "priority", cacheName: nil)
            do {
                try controller.performFetch()
                Issue.record("performFetch accepted a section key path that is not the first sort key")
            } catch let CdError.validation(failure) {
                #expect(failure.message.contains("first sort key") && failure.key == "priority")
            }
            #expect(controller.fetchedObjects == nil)
        }

        @Test func misuseBeforeInitAndOffMain() throws {
            Cd.reset()
            expectMisuse(.a1) {
                _ = Cd.newFetchedResultsController(
                    Cd.objects(Chore.self).sorted("title"), sectionNameKeyPath: nil, cacheName: nil)
            }
            let early = LockedBox<CdFetchedResultsController<Chore>?>(nil)
            let previous = Cd.misuseHandler
            Cd.misuseHandler = { _ in }
            early.set(Cd.newFetchedResultsController(Cd.objects(Chore.self), sectionNameKeyPath: nil, cacheName: nil))
            Cd.misuseHandler = previous
            expectMisuse(.a1) { try early.get()!.performFetch() }

            try initCompany()
            try background {
                expectMisuse(.i1) {
                    try Cd.newFetchedResultsController(Cd.objects(Chore.self), sectionNameKeyPath: nil, cacheName: nil)
                        .performFetch()
                }
            }
        }
    }
}
