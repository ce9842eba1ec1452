// Commit notifications and `Cd.commits`: what a commit inserted, updated and deleted, by
// entity, posted after the merge; many subscribers; a cancelled subscriber is unregistered.

import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct CommitObservation {
        /// Collects the notifications posted while it lives.
        final class NotificationLog: @unchecked Sendable {
            let commits = LockedBox<[CdCommit]>([])
            let onMain = LockedBox<[Bool]>([])
            var token: (any NSObjectProtocol)?
            init() {
                token = NotificationCenter.default.addObserver(forName: .cdDidMergeCommit, object: nil, queue: nil) {
                    [commits, onMain] note in
                    onMain.update { $0.append(Thread.isMainThread || ThreadState.isMain) }
                    let info = note.userInfo ?? [:]
                    guard let commit = info[CdCommit.commitKey] as? CdCommit,
                        info[CdCommit.insertedKey] as? [String: Set<ObjectID>] == commit.inserted,
                        info[CdCommit.deletedKey] as? [String: Set<ObjectID>] == commit.deleted
                    else { return }
                    commits.update { $0.append(commit) }
                }
            }
            deinit { if let token { NotificationCenter.default.removeObserver(token) } }
        }

        @Test func notificationListsTheCommitByEntity() async throws {
            try initCompany()
            let log = NotificationLog()
            let ids = try await Cd.transaction { () -> [ObjectID] in
                let project = try Cd.create(Project.self)
                project.title = "p"
                let chore = try Cd.create(Chore.self)
                chore.title = "c"
                chore.project = project
                return [project.objectID!, chore.objectID!]
            }
            #expect(await waitUntil { log.commits.get().count == 1 })
            let first = try #require(log.commits.get().first)
            #expect(first.inserted == ["Project": [ids[0]], "Chore": [ids[1]]])
            #expect(first.updated.isEmpty && first.deleted.isEmpty)
            #expect(log.onMain.get() == [true], "posted on the main queue")
            try await Cd.transaction {
                let project = try #require(try Cd.objects(Project.self).fetchOne())
                Cd.delete(project)  // nullifies the chore's project: the chore is updated
            }
            #expect(await waitUntil { log.commits.get().count == 2 })
            let second = log.commits.get()[1]
            #expect(second.deleted == ["Project": [ids[0]]])
            #expect(second.updated == ["Chore": [ids[1]]])
            #expect(second.number == first.number + 1)
            #expect(second.entities == ["Project", "Chore"])
        }

        @Test func everySubscriberSeesEveryCommitInOrder() async throws {
            try initCompany()
            let before = Cd.defaultContainerCommits.count
            let streams = [Cd.commits, Cd.commits]
            #expect(Cd.defaultContainerCommits.count == before + 2)
            let readers = streams.map { stream in
                Task { () -> [Int] in
                    var counts: [Int] = []
                    for await commit in stream {
                        counts.append(commit.inserted["Chore"]?.count ?? 0)
                        if counts.count == 3 { break }
                    }
                    return counts
                }
            }
            for n in 1...3 {
                try await Cd.transaction { _ = try Cd.create(Chore.self, count: n).map { $0.title = "t" } }
            }
            for reader in readers { #expect(await reader.value == [1, 2, 3]) }
        }

        @Test func aCancelledSubscriberIsUnregistered() async throws {
            try initCompany()
            let before = Cd.defaultContainerCommits.count
            let started = LockedBox(false)
            let reader = Task {
                let stream = Cd.commits
                started.set(true)
                for await _ in stream {}
            }
            #expect(await waitUntil { started.get() })
            #expect(Cd.defaultContainerCommits.count == before + 1)
            reader.cancel()
            await reader.value
            #expect(await waitUntil { Cd.defaultContainerCommits.count == before })
        }
    }
}
