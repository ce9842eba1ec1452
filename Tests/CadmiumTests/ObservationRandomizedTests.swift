// Randomized: random commits of chores (inserts, deletes, priority and title changes, in
// bursts; batch updates, deletes and inserts of two objects per commit) while a task iterates
// `changes()` of a filtered, sorted request and an incremental fetched results controller
// (sorted and sectioned by priority, so a title change is an update in place) follows along.
// After every step both must equal a fresh fetch, and the differences they report must turn
// the old results into the new ones (deleted and inserted objects exactly, index paths
// pointing at the right objects, the untouched objects in their old relative order, updated
// objects reported).
// Prints its seed; replay one with CADMIUM_SEED.

import Foundation
import Testing
@_spi(Benchmarks) @testable import Cadmium

extension CadmiumSuites {
    @Suite struct ObservationRandomized {
        /// xorshift64*, seeded.
        struct Generator: RandomNumberGenerator {
            var state: UInt64
            mutating func next() -> UInt64 {
                state ^= state >> 12
                state ^= state << 25
                state ^= state >> 27
                return state &* 2_685_821_657_736_338_717
            }
        }

        /// One reported difference as flat positions, checked against the old and new results.
        struct Difference {
            var deleted: [Int] = []
            var inserted: [Int] = []
            var moved: [(from: Int, to: Int)] = []
            var updated: [(from: Int?, to: Int)] = []

            /// Records an issue for each way the difference fails to explain `old` → `new`.
            func check(old: [ObjectID], new: [ObjectID], committed: Set<ObjectID>, _ what: String) {
                let oldSet = Set(old), newSet = Set(new)
                #expect(Set(deleted.map { old[$0] }) == oldSet.subtracting(newSet), "\(what): deleted")
                #expect(Set(inserted.map { new[$0] }) == newSet.subtracting(oldSet), "\(what): inserted")
                for m in moved { #expect(old[m.from] == new[m.to], "\(what): move \(m)") }
                for u in updated {
                    if let from = u.from { #expect(old[from] == new[u.to], "\(what): update \(u)") }
                    #expect(committed.contains(new[u.to]), "\(what): update of an object the commit did not change")
                }
                let movedIDs = Set(moved.map { new[$0.to] }), updatedIDs = Set(updated.map { new[$0.to] })
                let still = new.filter { oldSet.contains($0) && !movedIDs.contains($0) }
                #expect(still == old.filter { newSet.contains($0) && !movedIDs.contains($0) }, "\(what): order kept")
                for id in still where committed.contains(id) {
                    #expect(updatedIDs.contains(id), "\(what): \(id) changed in place but was not reported")
                }
            }
        }

        @MainActor @Test func observersMatchAFreshFetchAfterEveryCommit() async throws {
            let seed =
                ProcessInfo.processInfo.environment["CADMIUM_SEED"].flatMap(UInt64.init)
                ?? UInt64.random(in: 1...UInt64.max)
            print("ObservationRandomized seed \(seed) (replay with CADMIUM_SEED=\(seed))")
            var random = Generator(state: seed | 1)
            try initCompany()
            // The commits, collected as the main queue merges them.
            let merged = LockedBox<[CdCommit]>([])
            let token = NotificationCenter.default.addObserver(forName: .cdDidMergeCommit, object: nil, queue: nil) {
                note in
                if let commit = note.userInfo?[CdCommit.commitKey] as? CdCommit { merged.update { $0.append(commit) } }
            }
            defer { NotificationCenter.default.removeObserver(token) }
            // Followed incrementally (0), and refetched (1: a limit makes the request a page).
            func query(_ way: Int) -> CdFetchRequest<Chore> {
                let request = Cd.objects(Chore.self).filter("priority >= 3").sorted("priority", ascending: false)
                    .sorted("title")
                return way == 0 ? request : request.limit(6)
            }
            var observations = [query(0).changes().makeAsyncIterator(), query(1).changes().makeAsyncIterator()]
            var seen: [[ObjectID]] = [[], []]
            for way in 0..<2 {
                seen[way] = try #require(try await observations[way].next()).results.map { $0.objectID! }
            }
            #expect(observations[0].observation.controller != nil && observations[1].observation.controller == nil)
            let controller = Cd.newFetchedResultsController(
                Cd.objects(Chore.self).sorted("priority"), sectionNameKeyPath: "priority",
                cacheName: nil)
            try controller.performFetch()
            let reported = LockedBox<[CdFetchedResultsChanges<Chore>]>([])
            controller.onChange = { change in reported.update { $0.append(change) } }
            var shown = controller.fetchedObjects!.map { $0.objectID! }
            var shownCounts = controller.sectionCounts.map(\.count)
            var keys = Set<ObjectID>()
            let titles = ["a", "b", "c", "d"]

            for step in 0..<60 {
                let context = "seed \(seed) step \(step)"
                // One commit, or a burst of up to three before anyone looks.
                var burst = random.next() % 4 == 0 ? Int(random.next() % 3) + 1 : 1
                var committed = Set<ObjectID>()
                if random.next() % 3 == 0 {
                    // A batch operation, two objects per commit.
                    let kind = random.next() % 4, title = titles[Int(random.next() % 4)]
                    let priority = Int64(random.next() % 8), count = Int(random.next() % 5)
                    try await Cd.transaction {
                        let matching = Cd.objects(Chore.self).filter("title == %@", title)
                        switch kind {
                        case 0: _ = try matching.batchUpdate(["priority": CdExpression("10 - priority")], batchSize: 2)
                        case 1: _ = try matching.batchUpdate(["priority": priority, "title": "c"], batchSize: 2)
                        case 2: _ = try matching.batchDelete(batchSize: 2)
                        default:
                            let rows = (0..<count).map { i -> [String: Any] in
                                ["title": titles[i % 4], "priority": priority + Int64(i)]
                            }
                            try Cd.batchInsert(Chore.self, rows, batchSize: 2)
                        }
                    }
                    burst = 0
                }
                for _ in 0..<burst {
                    let existing = Array(keys).sorted()
                    var plan: [(op: Int, id: ObjectID?, priority: Int64, title: String)] = []
                    for _ in 0..<(Int(random.next() % 6) + 1) {
                        let op = existing.isEmpty ? 0 : Int(random.next() % 4)
                        plan.append(
                            (
                                op, existing.isEmpty ? nil : existing[Int(random.next() % UInt64(existing.count))],
                                Int64(random.next() % 8), titles[Int(random.next() % 4)]
                            ))
                    }
                    let work = plan
                    try await Cd.transaction {
                        var gone = Set<ObjectID>()
                        for item in work {
                            if item.op == 0 {
                                let chore = try Cd.create(Chore.self)
                                chore.title = item.title
                                chore.priority = item.priority
                                continue
                            }
                            guard let id = item.id, !gone.contains(id),
                                let chore = try Cd.objects(Chore.self).filter("SELF == %@", id).fetchOne()
                            else { continue }
                            switch item.op {
                            case 1:
                                Cd.delete(chore)
                                gone.insert(id)
                            case 2: chore.priority = item.priority
                            default: chore.title = item.title
                            }
                        }
                    }
                }
                await drainMainQueue()
                let commits = merged.get()
                merged.set([])
                for commit in commits {
                    keys.formUnion(commit.inserted["Chore"] ?? [])
                    keys.subtract(commit.deleted["Chore"] ?? [])
                    committed.formUnion(commit.updated["Chore"] ?? [])
                }
                let single = commits.count == 1

                // The controller: equal to a fresh fetch, and its changes explain the step.
                let fresh = try Cd.objects(Chore.self).sorted("priority").fetch()
                #expect(controller.fetchedObjects!.map { $0.objectID! } == fresh.map { $0.objectID! }, "\(context)")
                let grouped = Dictionary(grouping: fresh, by: \.priority).keys.sorted().map(String.init)
                #expect(controller.sectionIndexTitles == grouped, "\(context): sections")
                #expect(
                    commits.isEmpty || controller.lastUpdate?.incremental == true,
                    "\(context): applied without a refetch")
                let now = controller.fetchedObjects!.map { $0.objectID! }
                var difference = Difference()
                let oldStarts = Self.starts(shownCounts)
                let newStarts = Self.starts(controller.sectionCounts.map(\.count))
                // A burst's merges each report against their own intermediate results.
                for change in single ? reported.get() : [] {
                    for o in change.objects {
                        func flat(_ path: CdIndexPath?, _ starts: [Int]) -> Int? {
                            guard let path else { return nil }
                            guard starts.indices.contains(path.section) else {
                                Issue.record("\(context): \(o.type) at \(path): no such section")
                                return 0
                            }
                            return starts[path.section] + path.row
                        }
                        let from = flat(o.indexPath, oldStarts), to = flat(o.newIndexPath, newStarts)
                        switch o.type {
                        case .delete: difference.deleted.append(from!)
                        case .insert: difference.inserted.append(to!)
                        case .move: difference.moved.append((from!, to!))
                        case .update: difference.updated.append((from, to!))
                        }
                    }
                }
                #expect(!single || reported.get().count <= 1, "\(context): one call per merge")
                if single { difference.check(old: shown, new: now, committed: committed, "\(context) controller") }
                reported.set([])
                shown = now
                shownCounts = controller.sectionCounts.map(\.count)

                // The observation: when the commit changed its results, the next change is a
                // fresh fetch, and its positions explain the step.
                for way in 0..<2 {
                    let expected = try query(way).fetch().map { $0.objectID! }
                    let touched = !committed.intersection(seen[way]).intersection(expected).isEmpty
                    guard expected != seen[way] || touched else { continue }
                    let change = try #require(try await observations[way].next(), "\(context)")
                    let ids = change.results.map { $0.objectID! }
                    #expect(ids == expected, "\(context): changes() \(way) equals a fresh fetch")
                    Difference(
                        deleted: change.deleted, inserted: change.inserted, moved: change.moved,
                        updated: change.updated.map { (nil, $0) }
                    ).check(old: seen[way], new: ids, committed: committed, "\(context) changes() \(way)")
                    seen[way] = ids
                }
            }
        }

        /// The flat position of each section's first row, from the section sizes.
        static func starts(_ counts: [Int]) -> [Int] {
            var starts: [Int] = []
            var at = 0
            for count in counts {
                starts.append(at)
                at += count
            }
            return starts
        }
    }
}
