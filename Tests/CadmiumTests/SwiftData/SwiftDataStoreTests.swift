// One store format: a file a SwiftData container wrote is an ordinary Cadmium store. The
// engine's object verifier (what `cdstore-verify` runs) finds it sound, the `Cd` API opens it
// with a `CdModel` built from the same model (no migration) and reads and writes it by entity
// and property name, and SwiftData then reads what `Cd` wrote.

import CdObjects
import Foundation
import SwiftData
import Testing
@testable import Cadmium

extension CadmiumSuites {
    @Suite struct SwiftDataStore {
        typealias Trip = SharedStoreModels.Trip
        typealias Stop = SharedStoreModels.Stop

        static let start = Date(timeIntervalSince1970: 1_780_000_000)

        /// A file written by a SwiftData container: Lisbon (two stops) and Oslo (none).
        static func writeWithSwiftData(_ url: URL) throws {
            let container = try ModelContainer(
                for: SharedStoreModels.schema, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let lisbon = Trip(name: "Lisbon", startDate: start, budget: 1200)
            lisbon.stops.append(Stop(place: "Alfama", nights: 3))
            lisbon.stops.append(Stop(place: "Belém", nights: 2))
            context.insert(lisbon)
            context.insert(Trip(name: "Oslo", startDate: start.addingTimeInterval(86_400)))
            try context.save()
        }

        @MainActor @Test func cdOpensASwiftDataStoreWithTheSameModel() throws {
            let folder = URL(fileURLWithPath: NSTemporaryDirectory() + "sd-cd-\(UUID().uuidString)")
            let url = folder.appendingPathComponent("trips.store")
            defer { try? FileManager.default.removeItem(at: folder) }
            try Self.writeWithSwiftData(url)  // the container is gone: its store is closed

            // The file is sound, as `cdstore-verify` checks it.
            let model = try SharedStoreModels.schema.objectModel()
            let store = try ObjectStore.open(path: url.path, model: model)
            #expect(try store.engine.read { try ObjectStoreVerifier().verify($0) } == [])
            try store.close()

            // `Cd` reads it with the same model: no migration, the values SwiftData wrote.
            try Cd.initWithStore(model: try CdModel(objectModel: model, classes: []), storeURL: url)
            defer { try? Cd.close() }
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            let trips = try Cd.objects(entityNamed: "Trip").fetch()
            let names = try trips.map { try $0.value(forKey: "name") as? String }
            #expect(Set(names) == ["Lisbon", "Oslo"])
            let lisbon = try #require(try Cd.objects(entityNamed: "Trip").filter("name == %@", "Lisbon").fetchOne())
            #expect(try lisbon.value(forKey: "budget") as? Double == 1200)
            #expect(try lisbon.value(forKey: "startDate") as? Date == Self.start)
            let stops = try #require(try lisbon.value(forKey: "stops") as? [CdManagedObject])
            #expect(Set(try stops.map { try $0.value(forKey: "place") as? String }) == ["Alfama", "Belém"])
            let indexed = try Cd.objects(entityNamed: "Stop").filter("place == %@", "Belém").fetch()
            #expect(try indexed.map { try $0.value(forKey: "nights") as? Int64 } == [2])

            // `Cd` writes a stop of Oslo; SwiftData reads it, with its inverse.
            try background {
                try Cd.transactAndWait {
                    let oslo = try #require(try Cd.objects(entityNamed: "Trip").filter("name == %@", "Oslo").fetchOne())
                    let stop = try Cd.create(entityNamed: "Stop")
                    try stop.setValue("Bygdøy", forKey: "place")
                    try stop.setValue(4, forKey: "nights")
                    try stop.setValue(oslo, forKey: "trip")
                }
            }
            try Cd.close()

            let container = try ModelContainer(
                for: SharedStoreModels.schema, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let oslo = try #require(
                try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Oslo" })).first)
            #expect(oslo.stops.map(\.place) == ["Bygdøy"])
            #expect(oslo.stops.first?.trip === oslo)
            #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 3)
        }
    }
}
