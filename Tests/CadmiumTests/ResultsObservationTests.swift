// `request.changes()`: the current results first, then after each commit that changes them the
// new results with positions inserted, deleted, moved and updated; commits of entities the
// request does not read are skipped; bursts coalesce; many observers; cancellation leaves
// nothing registered.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct QueryObservation {
        /// Chores a (1), b (2), c (3), d (4).
        func seed() async throws {
            try initCompany()
            try await Cd.transaction {
                for (title, priority) in [("a", 1), ("b", 2), ("c", 3), ("d", 4)] {
                    let chore = try Cd.create(Chore.self)
                    chore.title = title
                    chore.priority = Int64(priority)
                }
            }
        }

        func edit(_ body: @escaping @Sendable () throws -> Void) async throws {
            try await Cd.transaction { try body() }
        }

        static func chore(_ title: String) throws -> Chore {
            try #require(try Cd.objects(Chore.self).filter("title == %@", title).fetchOne())
        }

        @MainActor @Test func firstTheResultsThenEachDifference() async throws {
            try await seed()
            var changes = Cd.objects(Chore.self).filter("priority >= 2").sorted("priority").changes()
                .makeAsyncIterator()
            let first = try #require(try await changes.next())
            #expect(first.isInitial && first.results.map(\.title) == ["b", "c", "d"] && first.inserted == [0, 1, 2])

            // b leaves (priority 1), e arrives in b's place (priority 2), c is updated in place.
            try await edit {
                try Self.chore("b").priority = 1
                let e = try Cd.create(Chore.self)
                e.title = "e"
                e.priority = 2
                try Self.chore("c").title = "c2"
            }
            let second = try #require(try await changes.next())
            #expect(second.results.map(\.title) == ["e", "c2", "d"])
            #expect(second.deleted == [0] && second.inserted == [0] && second.updated == [1])
            #expect(second.moved.isEmpty && !second.isInitial)

            // d moves to the front: priority 2 ties with e, and d's primary key is the lower.
            try await edit { try Self.chore("d").priority = 2 }
            let third = try #require(try await changes.next())
            #expect(third.results.map(\.title) == ["d", "e", "c2"])
            #expect(
                third.moved.map { [$0.from, $0.to] } == [[2, 0]] && third.inserted.isEmpty && third.deleted.isEmpty)
            #expect(third.updated.isEmpty, "a moved object is reported as moved only")
            #expect(
                third.results.map(\.title)
                    == (try Cd.objects(Chore.self).filter("priority >= 2").sorted("priority")
                        .fetch().map(\.title)))
        }

        @MainActor @Test func commitsOfOtherEntitiesAreSkippedAndBurstsCoalesce() async throws {
            try await seed()
            let sequence = Cd.objects(Chore.self).sorted("title").changes()
            var changes = sequence.makeAsyncIterator()
            _ = try await changes.next()
            #expect(changes.observation.steps == 0)
            try await edit { try Cd.create(Owner.self).name = "o" }
            try await edit { try Cd.create(Pet.self).name = "p" }
            await drainMainQueue()
            for title in ["x", "y", "z"] {
                try await edit { try Cd.create(Chore.self).title = title }
            }
            await drainMainQueue()
            let change = try #require(try await changes.next())
            #expect(change.inserted == [4, 5, 6], "three commits, one change")
            #expect(changes.observation.steps == 1, "the Owner and Pet commits were skipped")
        }

        @MainActor @Test func manyObserversEachSeeTheirResults() async throws {
            try await seed()
            var low = Cd.objects(Chore.self).filter("priority < 3").sorted("title").changes().makeAsyncIterator()
            var high = Cd.objects(Chore.self).filter("priority >= 3").sorted("title").changes().makeAsyncIterator()
            var all = Cd.objects(Chore.self).sorted("title", ascending: false).changes().makeAsyncIterator()
            _ = try await (low.next(), high.next(), all.next())
            try await edit { try Self.chore("a").priority = 9 }
            #expect(try await low.next()?.results.map(\.title) == ["b"])
            #expect(try await high.next()?.results.map(\.title) == ["a", "c", "d"])
            let change = try #require(try await all.next())
            #expect(change.updated == [3] && change.results.map(\.title) == ["d", "c", "b", "a"])
        }

        @MainActor @Test func cancellingTheTaskEndsTheObservation() async throws {
            try await seed()
            let live = ResultsObservations.live.load(ordering: .relaxed)
            let seen = LockedBox<[Int]>([])
            let watcher = Task { @MainActor in
                for try await change in Cd.objects(Chore.self).changes() {
                    seen.update { $0.append(change.results.count) }
                }
            }
            #expect(await waitUntil { seen.get() == [4] })
            #expect(ResultsObservations.live.load(ordering: .relaxed) == live + 1)
            try await edit { try Cd.create(Chore.self).title = "e" }
            #expect(await waitUntil { seen.get() == [4, 5] })
            watcher.cancel()
            _ = await watcher.result
            #expect(await waitUntil { ResultsObservations.live.load(ordering: .relaxed) == live })
            try await edit { try Cd.create(Chore.self).title = "f" }
            await drainMainQueue()
            #expect(seen.get() == [4, 5], "nothing after cancellation")
        }

        @MainActor @Test func aSortThroughARelationshipSeesTheOtherSide() async throws {
            try initCompany()
            try await Cd.transaction {
                for (name, title) in [("x", "a"), ("y", "b")] {
                    let project = try Cd.create(Project.self)
                    project.title = name
                    let chore = try Cd.create(Chore.self)
                    chore.title = title
                    chore.project = project
                }
            }
            var changes = Cd.objects(Chore.self).sorted("project.title").changes().makeAsyncIterator()
            #expect(try await changes.next()?.results.map(\.title) == ["a", "b"])
            // Only a project changes: the observation reads Project through the sort key.
            try await edit { try Cd.objects(Project.self).filter("title == 'y'").fetchOne()?.title = "w" }
            let change = try #require(try await changes.next())
            #expect(change.results.map(\.title) == ["b", "a"] && change.moved.count == 1)
        }

        @MainActor @Test func aPredicateThatDoesNotParseIsThrown() async throws {
            try await seed()
            var changes = Cd.objects(Chore.self).filter("priority >>> 2").changes().makeAsyncIterator()
            do {
                _ = try await changes.next()
                Issue.record("a predicate that does not parse must be thrown")
            } catch {
                #expect(error is CdPredicateError, "\(error)")
            }
        }
    }
}
