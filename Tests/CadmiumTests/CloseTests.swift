// `Cd.close()`: running transactions finish, later ones are refused, the file can be opened
// again — with the same model or a newer one, which migrates it.

import Foundation
import Testing
@testable import Cadmium

/// Version 1 of a note: a title.
final class NoteV1: CdManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var title: String
}

/// Version 2 of a note: a title and a required `stars` attribute with a default.
final class NoteV2: CdManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var title: String
    @Attribute var stars: Int64 = 3
}

extension CadmiumSuites {
    @Suite struct Close {
        static func temporaryStore() throws -> URL {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cd-close-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return dir.appendingPathComponent("notes.cdstore")
        }

        @MainActor @Test func closeWaitsForRunningTransactionsAndTheFileReopensWithANewerModel() throws {
            let url = try Self.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            try Cd.initWithStore(model: try CdModel(classes: [NoteV1.self]), storeURL: url)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            let started = DispatchSemaphore(value: 0)
            let finished = DispatchGroup()
            finished.enter()
            DispatchQueue.global().async {
                Cd.transactAndWait {
                    started.signal()
                    Thread.sleep(forTimeInterval: 0.05)
                    let note = try! Cd.create(NoteV1.self)
                    note.title = "written while closing"
                }
                finished.leave()
            }
            started.wait()
            try Cd.close()
            finished.wait()
            // A transaction after the close is refused (A1), as before initialisation.
            let recorder = MisuseRecorder()
            recorder.install()
            try background { Cd.transactAndWait {} }
            #expect(recorder.kinds == [.a1])
            // Reopen with version 2: the running transaction's note was committed and migrates.
            try Cd.initWithStore(model: try CdModel(classes: [NoteV2.self]), storeURL: url)
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            let notes = try Cd.objects(NoteV2.self).fetch()
            #expect(notes.map(\.title) == ["written while closing"])
            #expect(notes.map(\.stars) == [3])
            try Cd.close()
            try Cd.close()  // nothing open: nothing to do
        }

        @MainActor @Test func closeInsideATransactionIsMisuse() throws {
            try initCompany()
            let recorder = MisuseRecorder()
            recorder.install()
            let threw = try background { () -> Bool in
                try Cd.transactAndWait { () -> Bool in
                    do { try Cd.close() } catch is CdMisuse { return true }
                    return false
                }
            }
            #expect(threw)
            #expect(recorder.kinds == [.a2])
        }

        @MainActor @Test func disabledMigrationRefusesAStoreOfAnotherModel() throws {
            let url = try Self.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            try Cd.initWithStore(model: try CdModel(classes: [NoteV1.self]), storeURL: url)
            try Cd.close()
            expectCdError(code: 134100) {
                try Cd.initWithStore(model: try CdModel(classes: [NoteV2.self]), storeURL: url, migration: .disabled)
            }
        }

        /// A commit merged into the main context after `Cd.close()` (its merge was still queued)
        /// ends a query observation instead of making it fetch from the closed container (misuse C1,
        /// which stops the program by default); an idle observation's loop ends at the close.
        @MainActor @Test func closeEndsQueryObservationsWithoutMisuse() async throws {
            for refetched in [true, false] {
                try initCompany()
                let recorder = MisuseRecorder()
                recorder.install()
                let request = Cd.objects(Employee.self).sorted("name")
                // A limit makes the observation refetch after each commit; without, it is followed.
                let observed = refetched ? request.limit(5) : request
                let started = LockedBox(false)
                let watcher = Task { @MainActor in
                    var changes = 0
                    for try await _ in observed.changes() {
                        changes += 1
                        started.set(true)
                    }
                    return changes
                }
                #expect(await waitUntil { started.get() })
                try background { try Cd.transactAndWait { try Cd.create(Employee.self).name = "late" } }
                try Cd.close()  // on the main thread: the commit's merge is still queued behind it
                await drainMainQueue()
                let changes = try await watcher.value  // ends by itself (RW1)
                #expect(changes == 1, "only the first results: nothing is fetched after the close")
                #expect(recorder.kinds.isEmpty, "refetched: \(refetched)")
                let idle = Task { @MainActor in
                    try initCompany()
                    var changes = 0
                    for try await _ in Cd.objects(Employee.self).changes() { changes += 1 }
                    return changes
                }
                #expect(await waitUntil { ResultsObservations.live.load(ordering: .relaxed) > 0 })
                try await Task.sleep(nanoseconds: 20_000_000)
                try Cd.close()
                #expect(try await idle.value == 1, "the waiting loop ended at the close")
            }
        }

        /// Opening another store in place of the current one ends the observations of the old
        /// one, whose main context will never merge again.
        @MainActor @Test func replacingTheStackEndsItsQueryObservations() async throws {
            try initCompany()
            let observing = Task { @MainActor in
                var changes = 0
                for try await _ in Cd.objects(Employee.self).changes() { changes += 1 }
                return changes
            }
            #expect(await waitUntil { ResultsObservations.live.load(ordering: .relaxed) > 0 })
            try await Task.sleep(nanoseconds: 20_000_000)
            try initCompany()
            #expect(try await observing.value == 1)
        }

        /// A `Cd.read` body running when `Cd.close()` is called finishes its fetches before the
        /// store closes (instead of failing with "store is closed"), and closing from inside a
        /// read body is misuse A2 (it would wait for itself).
        @MainActor @Test func closeWaitsForRunningReads() async throws {
            let url = try Self.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try CdModel(classes: [NoteV1.self])
            try Cd.initWithStore(model: model, storeURL: url)
            try await Cd.transaction { for i in 0..<50 { try Cd.create(NoteV1.self).title = "n\(i)" } }
            let entered = LockedBox(false)
            let reader = Task.detached {
                try Cd.read { () -> Int in
                    entered.set(true)
                    Thread.sleep(forTimeInterval: 0.2)
                    return try Cd.objects(NoteV1.self).fetch().count
                }
            }
            #expect(await waitUntil { entered.get() })
            try Cd.close()
            #expect(try await reader.value == 50)
            try Cd.initWithStore(model: model, storeURL: url)
            let recorder = MisuseRecorder()
            recorder.install()
            let inside = Task.detached { try Cd.read { try Cd.close() } }
            await #expect(throws: CdMisuse.self) { try await inside.value }
            #expect(recorder.kinds == [.a2])
            try Cd.close()
        }

        /// Opening a store while another is open waits, as `Cd.close()` does, for the transactions
        /// running on the old one: their commits land in the old file instead of failing half-way
        /// with "store is closed". Opening from inside a transaction body is misuse A2.
        @MainActor @Test func initWithStoreWaitsForRunningTransactionsOfTheOldStore() async throws {
            let url = try Self.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try CdModel(classes: [NoteV1.self])
            try Cd.initWithStore(model: model, storeURL: url)
            let entered = LockedBox(false)
            let writer = Task.detached {
                try Cd.transactAndWait {
                    entered.set(true)
                    Thread.sleep(forTimeInterval: 0.2)
                    for i in 0..<10 { try Cd.create(NoteV1.self).title = "w\(i)" }
                }
            }
            #expect(await waitUntil { entered.get() })
            try Cd.initWithStore(model: model, storeURL: url)
            try await writer.value
            #expect(try Cd.objects(NoteV1.self).count() == 10, "the old store's transaction committed whole")
            let recorder = MisuseRecorder()
            recorder.install()
            let inside = Task.detached { try Cd.transactAndWait { try Cd.initWithStore(model: model, storeURL: url) } }
            await #expect(throws: CdMisuse.self) { try await inside.value }
            #expect(recorder.kinds == [.a2])
            try Cd.close()
        }

        /// A commit whose merge is drained after the store was opened again leaves the old
        /// container's controller as it was: it never takes objects of the new main context.
        @MainActor @Test func aControllerOfAReplacedStackTakesNoObjectsOfTheNewOne() async throws {
            let url = try Self.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try CdModel(classes: [NoteV1.self])
            try Cd.initWithStore(model: model, storeURL: url)
            let controller = Cd.newFetchedResultsController(
                Cd.objects(NoteV1.self).sorted("title"), sectionNameKeyPath: nil, cacheName: nil)
            try controller.performFetch()
            let oldMain = try #require(Cd.container?.main)
            try background { try Cd.transactAndWait { try Cd.create(NoteV1.self).title = "late" } }
            try Cd.initWithStore(model: model, storeURL: url)  // the merge is still queued
            await drainMainQueue()
            let objects = controller.fetchedObjects ?? []
            #expect(objects.allSatisfy { $0.managedObjectContext === oldMain }, "\(objects)")
            try Cd.close()
        }

        /// Reading a main-context object after its store was closed is misuse I1 with a message
        /// that says so (not that the object was read off the main thread, which it was not).
        @MainActor @Test func readingAnObjectOfAClosedStoreSaysTheStoreWasClosed() async throws {
            let url = try Self.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            try Cd.initWithStore(model: try CdModel(classes: [NoteV1.self]), storeURL: url)
            try await Cd.transaction { try Cd.create(NoteV1.self).title = "kept" }
            let note = try #require(try Cd.objects(NoteV1.self).fetchOne())
            try Cd.close()
            let recorder = MisuseRecorder()
            recorder.install()
            _ = note.title
            #expect(recorder.kinds == [.i1])
            #expect(recorder.seen.get().first?.message.contains("Cd.close() closed") == true)
        }
    }
}
