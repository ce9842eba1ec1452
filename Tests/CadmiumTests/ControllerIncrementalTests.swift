// The fetched results controller's two ways of applying a commit: incrementally for attribute
// sort keys (a move reported from the commit's objects alone), and by refetching when a sort key
// goes through a relationship whose other side changed.

import Foundation
import Testing
@_spi(Benchmarks) @testable import Cadmium

extension CadmiumSuites {
    @Suite struct ControllerFallback {
        @MainActor @Test func aSortThroughARelationshipRefetchesWhenTheOtherSideChanges() async throws {
            try initCompany()
            try await Cd.transaction {
                for (name, chores) in [("x", ["a", "b"]), ("y", ["c"])] {
                    let project = try Cd.create(Project.self)
                    project.title = name
                    for title in chores {
                        let chore = try Cd.create(Chore.self)
                        chore.title = title
                        chore.project = project
                    }
                }
            }
            let controller = Cd.newFetchedResultsController(
                Cd.objects(Chore.self).sorted("project.title").sorted("title"), sectionNameKeyPath: "project.title",
                cacheName: nil)
            try controller.performFetch()
            #expect(controller.fetchedObjects?.map(\.title) == ["a", "b", "c"])
            let calls = LockedBox(0)
            controller.onChange = { _ in calls.update { $0 += 1 } }
            // Renaming project y to "a" moves c (and its section) to the front: only a refetch
            // can know, since no chore changed.
            try await Cd.transaction { try Cd.objects(Project.self).filter("title == 'y'").fetchOne()?.title = "a" }
            await drainMainQueue()
            #expect(controller.fetchedObjects?.map(\.title) == ["c", "a", "b"])
            #expect(controller.sectionIndexTitles == ["a", "x"])
            #expect(controller.lastUpdate?.incremental == false)
            #expect(calls.get() == 1)
        }

        @MainActor @Test func attributeSortsAreAppliedIncrementally() async throws {
            try initCompany()
            try await Cd.transaction { for t in ["b", "d"] { try Cd.create(Chore.self).title = t } }
            let controller = Cd.newFetchedResultsController(
                Cd.objects(Chore.self).filter("title != 'z'").sorted("title"), sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let log = ResultsLog()
            controller.delegate = log
            try await Cd.transaction {
                try Cd.create(Chore.self).title = "c"
                try Cd.create(Chore.self).title = "z"
                try Cd.objects(Chore.self).filter("title == 'b'").fetchOne()?.title = "e"
            }
            #expect(
                await log.next() == [
                    "will", "insert c - -> [0, 0]", "move e [0, 0] -> [0, 2]", "did",
                ])
            #expect(controller.lastUpdate?.incremental == true)
            #expect(controller.fetchedObjects?.map(\.title) == ["c", "d", "e"])
            #expect(controller.indexPath(forObject: controller.fetchedObjects![2]) == CdIndexPath(row: 2, section: 0))
            #expect(controller.object(at: CdIndexPath(row: 1, section: 0)).title == "d")
        }
    }
}
