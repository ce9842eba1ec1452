// Other processes' commits through `Cd`: `Cd.remoteChanges` and the `cdStoreRemoteChange`
// notification announce them, after the main context merged them; with history the events carry
// the token and the other processes' transactions, without it none; this process's own commits
// are not announced. The "other process" here is a second `ObjectStore` on the same file: it has
// its own open file descriptions, so its locks and its slot in the shared file are another
// process's (RemoteChangeProcessTests runs real child processes).

import CdObjects
import CdStore
import Foundation
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct RemoteChanges {
        /// Collects the remote change events and notifications while it lives.
        final class RemoteLog: @unchecked Sendable {
            let events = LockedBox<[CdRemoteChange]>([])
            let notified = LockedBox<[CdHistoryToken?]>([])
            let onMain = LockedBox<[Bool]>([])
            private var task: Task<Void, Never>?
            private var token: (any NSObjectProtocol)?

            init() {
                let stream = Cd.remoteChanges
                task = Task { [events] in
                    for await change in stream { events.update { $0.append(change) } }
                }
                token = NotificationCenter.default.addObserver(forName: .cdStoreRemoteChange, object: nil, queue: nil) {
                    [notified, onMain] note in
                    onMain.update { $0.append(Thread.isMainThread || ThreadState.isMain) }
                    let change = note.userInfo?[CdRemoteChange.changeKey] as? CdRemoteChange
                    let token = note.userInfo?[CdRemoteChange.historyTokenKey] as? CdHistoryToken
                    if change?.historyToken == token { notified.update { $0.append(token) } }
                }
            }

            deinit {
                task?.cancel()
                if let token { NotificationCenter.default.removeObserver(token) }
            }
        }

        func open(history: Bool) throws -> (URL, CdModel, StoreOptions) {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID()).cdstore")
            let model = try CdModel(classes: [Department.self, Employee.self])
            var options = StoreOptions()
            if history { options.history = .tracked }
            try Cd.initWithStore(model: model, storeURL: url, options: options)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            return (url, model, options)
        }

        func remove(_ url: URL) {
            Cd.reset()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }

        /// A department made through `Cd`, and the same object fetched in the main context.
        func mainDepartment(named name: String) async throws -> (ObjectID, Unchecked<Department>) {
            let id = try background {
                try Cd.transactAndWait { () -> ObjectID in
                    let d = try Cd.create(Department.self)
                    d.name = name
                    return d.objectID!
                }
            }
            let object = try await MainActor.run {
                Unchecked(try #require(try Cd.objects(Department.self).filter("name == %@", name).fetchOne()))
            }
            return (id, object)
        }

        @Test func anotherProcessesCommitsAreMergedAndAnnouncedWithTheirHistory() async throws {
            let (url, model, options) = try open(history: true)
            defer { remove(url) }
            let (id, department) = try await mainDepartment(named: "Sales")
            let log = RemoteLog()
            let other = try ObjectStore.open(path: url.path, model: model.objectModel, options: options)
            try other.apply(ChangeSet(updated: [id: ["name": .attribute(.string("Support"))]]))
            let newcomer = try other.newObjectIDs(entity: "Department", count: 1)[0]
            try other.apply(ChangeSet(inserted: [newcomer: ["name": .attribute(.string("Legal"))]]))
            let last = try #require(try other.lastHistoryToken())
            try other.close()

            #expect(await waitUntil { log.events.get().last?.historyToken == last })
            let events = log.events.get()
            #expect(events.map(\.storeCommit) == events.map(\.storeCommit).sorted(), "in commit order")
            let theirs = events.flatMap(\.transactions)
            #expect(theirs.count == 2, "the other store's two transactions, not this process's: \(theirs)")
            #expect(theirs.flatMap(\.changes).map(\.objectID) == [id, newcomer])
            #expect(theirs.flatMap(\.changes).map(\.kind) == [.update, .insert])
            #expect(await waitUntil { log.notified.get().last == last }, "the notification carries the token")
            #expect(log.onMain.get().allSatisfy { $0 }, "posted on the main queue")
            // Merged before the event: the main context's object reads the other store's value.
            let name = await MainActor.run { department.value.name }
            #expect(name == "Support")
            let count = try await MainActor.run { try Cd.objects(Department.self).count() }
            #expect(count == 2)

            // Once every commit of the other store (its close writes too) is announced, this
            // process's own commits are not announced as remote.
            let engine = try #require(Cd.container?.store as? ObjectStore).engine
            _ = try background { try Cd.transactAndWait { try Cd.objects(Department.self).count() } }
            let end = engine.lastCommit.rawValue
            #expect(await waitUntil { log.events.get().last?.storeCommit == end })
            let before = log.events.get().count
            try background { try Cd.transactAndWait { try Cd.create(Department.self).name = "Ops" } }
            try await Task.sleep(nanoseconds: 150_000_000)
            #expect(log.events.get().count == before)
        }

        @Test func withoutHistoryTheEventCarriesNoTokenAndTheMainContextIsRefreshed() async throws {
            let (url, model, options) = try open(history: false)
            defer { remove(url) }
            let (id, department) = try await mainDepartment(named: "Sales")
            let (goneID, gone) = try await mainDepartment(named: "Archive")
            let log = RemoteLog()
            let other = try ObjectStore.open(path: url.path, model: model.objectModel, options: options)
            try other.apply(ChangeSet(updated: [id: ["name": .attribute(.string("Support"))]], deleted: [goneID]))
            try other.close()

            #expect(await waitUntil { !log.events.get().isEmpty })
            let event = try #require(log.events.get().first)
            #expect(event.historyToken == nil && event.transactions.isEmpty)
            #expect(event.storeURL == url)
            let (name, deleted) = await MainActor.run { (department.value.name, gone.value.isDeleted) }
            #expect(name == "Support")
            #expect(deleted, "an object another process deleted is deleted in the main context")
        }

        @Test func aTransactionSeesAnotherProcessesCommitWithoutWaitingForTheEvent() throws {
            let (url, model, options) = try open(history: false)
            defer { remove(url) }
            let other = try ObjectStore.open(path: url.path, model: model.objectModel, options: options)
            let id = try other.newObjectIDs(entity: "Department", count: 1)[0]
            try other.apply(ChangeSet(inserted: [id: ["name": .attribute(.string("Legal"))]]))
            let names = try background {
                try Cd.transactAndWait { try Cd.objects(Department.self).fetch().map(\.name) }
            }
            #expect(names == ["Legal"])
            try other.close()
        }
    }
}
