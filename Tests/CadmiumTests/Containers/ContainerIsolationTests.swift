// Isolated containers in parallel tests (CN1–CN3 of CdContainer.swift): each test case opens a
// container of its own and runs `Cd` code against it with `Cd.withContainer`, while the other
// cases (and the serialized suites, which use the default container) run at the same time. None
// sees another's objects, commits or notifications, and none can disturb another's store.
// This suite is deliberately not nested in `CadmiumSuites`: its cases run in parallel.

import Foundation
import Testing
@testable import Cadmium

@Suite(.timeLimit(.minutes(2))) struct ContainerIsolation {
    /// What one isolated run saw.
    struct Seen: Sendable {
        var fetchedNames: [String]
        var readCount: Int
        var commitInsertCounts: [Int]
        var ownNotifications: Int
        var foreignNotificationObjects: Int
    }

    /// Counts the `cdDidMergeCommit` notifications of `container` and of any other object.
    final class NotificationCounter: @unchecked Sendable {
        let own = LockedBox(0)
        let foreign = LockedBox(0)
        var tokens: [any NSObjectProtocol] = []
        init(_ container: CdContainer) {
            tokens.append(
                NotificationCenter.default.addObserver(forName: .cdDidMergeCommit, object: container, queue: nil) {
                    [own] _ in own.update { $0 += 1 }
                })
            tokens.append(
                NotificationCenter.default.addObserver(forName: .cdDidMergeCommit, object: nil, queue: nil) {
                    [foreign] note in
                    if note.object as AnyObject? !== container { foreign.update { $0 += 1 } }
                })
        }
        deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }
    }

    /// One isolated run: `transactions` transactions of `perTransaction` items named after `tag`
    /// (async transactions, a waiting one on a queue of its own, and a `Cd.transact` with a
    /// completion), then a main-thread fetch, a background read and the commits observed.
    static func run(tag: String, file: URL?, transactions: Int = 6, perTransaction: Int = 25) async throws -> Seen {
        let model = try CdModel(classes: [TestItem.self])
        let container = try CdContainer(model: model, storeURL: file)
        defer { try? container.close() }
        let counter = NotificationCounter(container)
        return try await Cd.withContainer(container) {
            #expect(Cd.currentContainer === container)
            let commits = Cd.commits
            @Sendable func insert(_ batch: Int) throws {
                for k in 0..<perTransaction {
                    let item = try Cd.create(TestItem.self)
                    item.id = Int64(batch * 1000 + k)
                    item.name = "\(tag)-\(batch)-\(k)"
                }
            }
            for batch in 0..<(transactions - 2) {
                try await Cd.transaction { try insert(batch) }
            }
            // A waiting transaction on a queue the test made: the container goes with it explicitly,
            // since a dispatch queue does not carry task-local values.
            let waiting = transactions - 2
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                DispatchQueue.global().async {
                    done.resume(
                        with: Result {
                            try Cd.withContainer(container) { try Cd.transactAndWait { try insert(waiting) } }
                        })
                }
            }
            // `Cd.transact` carries the container to its queue and to its completion.
            let last = transactions - 1
            let completionContainer = LockedBox<CdContainer?>(nil)
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
                Cd.transact(operation: { try insert(last) }) { error in
                    completionContainer.set(Cd.currentContainer)
                    if let error { done.resume(throwing: error) } else { done.resume() }
                }
            }
            #expect(completionContainer.get() === container, "the completion runs against the container")
            let names = try await MainActor.run { try Cd.objects(TestItem.self).sorted("name").fetch().map(\.name) }
            let readCount = try await Task.detached {
                try Cd.withContainer(container) { try Cd.read { try Cd.objects(TestItem.self).count() } }
            }.value
            var insertCounts: [Int] = []
            for await commit in commits {
                insertCounts.append(commit.inserted.values.reduce(0) { $0 + $1.count })
                if insertCounts.count == transactions { break }
            }
            #expect(await waitUntil { counter.own.get() == transactions })
            return Seen(
                fetchedNames: names, readCount: readCount, commitInsertCounts: insertCounts,
                ownNotifications: counter.own.get(), foreignNotificationObjects: counter.foreign.get())
        }
    }

    /// Checks what `run(tag:)` saw: only its own objects and commits.
    static func check(_ seen: Seen, tag: String, transactions: Int = 6, perTransaction: Int = 25) {
        #expect(seen.fetchedNames.count == transactions * perTransaction)
        #expect(seen.fetchedNames.allSatisfy { $0.hasPrefix("\(tag)-") }, "another container's objects were seen")
        #expect(seen.readCount == transactions * perTransaction)
        #expect(seen.commitInsertCounts == Array(repeating: perTransaction, count: transactions))
        #expect(seen.ownNotifications == transactions)
    }

    /// Eight cases in parallel (Swift Testing runs the arguments of a test concurrently), half
    /// in memory and half on files of their own.
    @Test(arguments: 0..<8) func anIsolatedContainerSeesOnlyItsOwnObjectsAndCommits(_ index: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cd-iso-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = index.isMultiple(of: 2) ? nil : folder.appendingPathComponent("items.cdstore")
        let tag = "case\(index)"
        Self.check(try await Self.run(tag: tag, file: file), tag: tag)
    }

    /// Eight containers driven at once from one test, interleaving on the main actor and the
    /// global queues; each sees only its own objects, and the others' notifications carry their
    /// own container as the object.
    @Test func eightConcurrentContainersDoNotSeeEachOther() async throws {
        let seen = try await withThrowingTaskGroup(of: (String, Seen).self) { group in
            for index in 0..<8 {
                group.addTask {
                    let tag = "task\(index)"
                    return (tag, try await Self.run(tag: tag, file: nil))
                }
            }
            var all: [(String, Seen)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(seen.count == 8)
        for (tag, result) in seen { Self.check(result, tag: tag) }
        // Every run overlapped others: the notifications of other containers reached the
        // unfiltered observers, never the filtered ones.
        #expect(seen.contains { $0.1.foreignNotificationObjects > 0 })
    }

    /// Outside any scope, `Cd` calls do not reach a container made with `CdContainer(...)`: it
    /// is never the default, and it closes without touching the default.
    @Test func aContainerIsNotTheDefault() throws {
        let container = try CdContainer(model: try CdModel(classes: [TestItem.self]), storeURL: nil)
        #expect(Cd.defaultContainer !== container)
        #expect(Cd.withContainer(container) { Cd.currentContainer } === container)
        #expect(!container.isClosed)
        try container.close()
        #expect(container.isClosed)
        try container.close()  // twice: nothing
        #expect("\(container)" == "CdContainer(in memory, closed)")
    }
}
