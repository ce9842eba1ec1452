// One store per file per process (CN5 of CdContainer.swift, OO1–OO4 in CdObjects, HY2 of
// SwiftData's ModelContainer.swift): `Cd` and a SwiftData `ModelContainer` on the same file share
// one store, whichever opens it first, and each sees the other's commits — in fetches at once, in
// the objects and models it holds after the merge. A model of another version on the open file
// gets a typed error and leaves the store as it was. Two `CdContainer`s on one file share it too.

import CdObjects
import CdStore
import Foundation
import SwiftData
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite(.timeLimit(.minutes(2))) struct SharedStoreFile {
        typealias Trip = SharedStoreModels.Trip
        static let start = Date(timeIntervalSince1970: 1_780_000_000)

        /// A fresh folder and the store file in it.
        static func storeFile() throws -> (folder: URL, url: URL) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cd-share-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return (folder, folder.appendingPathComponent("trips.store"))
        }

        static func cdModel() throws -> CdModel {
            try CdModel(objectModel: try SharedStoreModels.schema.objectModel(), classes: [])
        }

        /// Waits on the main actor, letting the main queue run merges, until `condition` holds.
        @MainActor static func settle(_ condition: () throws -> Bool) async rethrows -> Bool {
            for _ in 0..<400 {
                if try condition() { return true }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            return try condition()
        }

        /// A context of a new container of the shared models on `url` that inserted and saved `trip`.
        @MainActor static func context(at url: URL, saving trip: Trip) throws -> ModelContext {
            let container = try ModelContainer(
                for: SharedStoreModels.schema, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(trip)
            try context.save()
            return context
        }

        static func budget(_ object: CdManagedObject) throws -> Double? {
            try object.value(forKey: "budget") as? Double
        }

        @MainActor @Test func cdFirstThenAModelContainerShareOneStore() async throws {
            let (folder, url) = try Self.storeFile()
            defer { try? FileManager.default.removeItem(at: folder) }
            try Cd.initWithStore(model: try Self.cdModel(), storeURL: url)
            defer { try? Cd.close() }
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            let commits = Cd.commits
            // Not refused by the process's own lock on the file: the store is shared.
            // SwiftData → Cd: a main-thread fetch sees the save at once, and it is merged and
            // announced as a commit of the default container.
            let context = try Self.context(at: url, saving: Trip(name: "Lisbon", startDate: Self.start))
            let trips = try Cd.objects(entityNamed: "Trip").fetch()
            #expect(try trips.map { try $0.value(forKey: "name") as? String } == ["Lisbon"])
            var iterator = commits.makeAsyncIterator()
            let merged = await iterator.next()
            #expect(merged?.inserted["Trip"]?.count == 1)

            // Cd → SwiftData: a model the context holds shows a `Cd` transaction's change.
            let lisbon = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            #expect(lisbon.budget == nil)
            try await Cd.transaction {
                let trip = try #require(try Cd.objects(entityNamed: "Trip").fetchOne())
                try trip.setValue(900.0, forKey: "budget")
            }
            #expect(lisbon.budget == 900)

            // SwiftData → Cd again: the main context's object is refreshed by the merge.
            let cdLisbon = try #require(trips.first)
            #expect(try await Self.settle { try Self.budget(cdLisbon) == 900 })
            lisbon.budget = 1000
            try context.save()
            #expect(try await Self.settle { try Self.budget(cdLisbon) == 1000 })
        }

        @MainActor @Test func aModelContainerFirstThenCdShareOneStoreUntilBothClose() async throws {
            let (folder, url) = try Self.storeFile()
            defer { try? FileManager.default.removeItem(at: folder) }
            do {
                let context = try Self.context(
                    at: url, saving: Trip(name: "Oslo", startDate: Self.start, budget: 50))

                try Cd.initWithStore(model: try Self.cdModel(), storeURL: url)
                Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
                let oslo = try #require(try Cd.objects(entityNamed: "Trip").fetchOne())
                #expect(try Self.budget(oslo) == 50)
                try await Cd.transaction {
                    let trip = try Cd.objects(entityNamed: "Trip").filter("name == %@", "Oslo").fetchOne()
                    let stop = try Cd.create(entityNamed: "Stop")
                    try stop.setValue("Bygdøy", forKey: "place")
                    try stop.setValue(2, forKey: "nights")
                    try stop.setValue(trip, forKey: "trip")
                }
                let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
                #expect(trip.stops.map(\.place) == ["Bygdøy"])

                // `Cd.close()` gives its lease back; the container's store stays open and saves.
                try Cd.close()
                #expect(OpenObjectStores.isOpen(path: url.path))
                trip.budget = 75
                try context.save()
            }
            // The last user is gone: the store was closed, and the file opens on its own.
            #expect(!OpenObjectStores.isOpen(path: url.path))
            let store = try ObjectStore.open(path: url.path, model: try SharedStoreModels.schema.objectModel())
            defer { try? store.close() }
            let ids = try store.read { try $0.fetchIDs(FetchRequest(entity: "Trip")) }
            #expect(try store.read { try $0.values(of: ids[0]) }?["budget"] == .attribute(.double(75)))
        }

        @MainActor @Test func anotherModelOnAnOpenFileIsATypedErrorInBothDirections() throws {
            let (folder, url) = try Self.storeFile()
            defer { try? FileManager.default.removeItem(at: folder) }
            // SwiftData has the file: `Cd` with another model is refused, the file is untouched.
            do {
                let context = try Self.context(at: url, saving: Trip(name: "Rome", startDate: Self.start))
                #expect {
                    try Cd.initWithStore(model: try CdModel(classes: [TestItem.self]), storeURL: url)
                } throws: { error in
                    guard case let CdError.incompatibleModel(_, _, difference) = error else { return false }
                    return difference?.contains("is open in this process with another model version") == true
                }
                #expect(Cd.defaultContainer == nil)
                #expect(try ModelContext(context.container).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Rome"])
            }
            // `Cd` has the file: a container with another schema is refused with SwiftData's error.
            try Cd.initWithStore(model: try Self.cdModel(), storeURL: url)
            defer { try? Cd.close() }
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            #expect(throws: SwiftDataError.loadIssueModelContainer) {
                _ = try ModelContainer(for: Schema([OtherTrip.self]), configurations: ModelConfiguration(url: url))
            }
            #expect(try Cd.objects(entityNamed: "Trip").count() == 1)
        }

        @MainActor @Test func twoContainersOnOneFileSeeEachOthersCommits() async throws {
            let (folder, url) = try Self.storeFile()
            defer { try? FileManager.default.removeItem(at: folder) }
            let model = try CdModel(classes: [TestItem.self])
            let first = try CdContainer(model: model, storeURL: url)
            let second = try CdContainer(model: model, storeURL: url)
            defer {
                try? first.close()
                try? second.close()
            }
            let heard = second.commits
            try await Cd.withContainer(first) {
                try await Cd.transaction { try Cd.create(TestItem.self).name = "from first" }
            }
            var iterator = heard.makeAsyncIterator()
            #expect(await iterator.next()?.inserted["TestItem"]?.count == 1)
            let names = try Cd.withContainer(second) { try Cd.objects(TestItem.self).fetch().map(\.name) }
            #expect(names == ["from first"])
            try first.close()
            #expect(OpenObjectStores.isOpen(path: url.path), "the second container still holds it")
        }
        /// Each container on a file keeps its own record of this process's history transactions
        /// (OH1, OH2): closing one does not make the other announce its own commits as another
        /// process's.
        @Test func aContainerTellsItsOwnTransactionsFromAnotherProcessesAfterTheOtherCloses() async throws {
            let (folder, url) = try Self.storeFile()
            defer { try? FileManager.default.removeItem(at: folder) }
            let model = try CdModel(classes: [TestItem.self])
            var options = StoreOptions()
            options.history = .tracked
            let first = try CdContainer(model: model, storeURL: url, options: options)
            let second = try CdContainer(model: model, storeURL: url, options: options)
            defer { try? second.close() }
            let events = LockedBox<[CdRemoteChange]>([])
            let stream = second.remoteChanges
            let follower = Task { for await change in stream { events.update { $0.append(change) } } }
            defer { follower.cancel() }
            try first.close()
            try await Cd.withContainer(second) {
                try await Cd.transaction { try Cd.create(TestItem.self).name = "own" }
            }
            let other = try ObjectStore.open(path: url.path, model: model.objectModel, options: options)
            let newcomer = try other.newObjectIDs(entity: "TestItem", count: 1)[0]
            try other.apply(ChangeSet(inserted: [newcomer: ["name": .attribute(.string("theirs"))]]))
            try other.close()
            #expect(await waitUntil { !events.get().flatMap(\.transactions).isEmpty })
            let theirs = events.get().flatMap(\.transactions)
            #expect(theirs.flatMap(\.changes).map(\.objectID) == [newcomer], "only the other store's: \(theirs)")
        }
    }
}
