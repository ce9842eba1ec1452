import CdStore
import Foundation
import Testing
@testable import CdObjects

/// The three versions of SampleModel.xcdatamodeld (attributes removed, `ExpensiveSportCar`
/// renamed `LuxuryCar` by elementID, `Car.maker` replaced by a `Maker` entity, a new many-to-many):
/// stores written with v1 and v2 migrate to v3, step by step, and keep every object.
@Suite(.enabled(if: ModelFixtures.shouldRun, ModelFixtures.skipReason))
struct SampleModelMigrationTests {
    static let path = "/data/sample.cdstore"

    static func history() throws -> ModelVersionHistory? {
        guard let path = ModelFixtures.path("SampleModel.xcdatamodeld") else { return nil }
        return try ModelFileReader.loadVersions(at: path)
    }

    static func str(_ s: String) -> PropertyValue { .attribute(.string(s)) }
    static let date = PropertyValue.attribute(.date(Date(timeIntervalSinceReferenceDate: 700_000_000)))

    /// Two people, a car, a sport car and an expensive sport car (v1) or luxury car (v2).
    static func write(version: ModelVersion, fs: any StoreFileSystem) throws -> [String: ObjectID] {
        let store = try ObjectStore.open(path: path, model: version.model, options: StoreOptions(fileSystem: fs))
        defer { try? store.close() }
        let model = version.model
        let people = try store.newObjectIDs(entity: "Person", count: 2)
        let expensive = model.entity(named: "LuxuryCar") != nil ? "LuxuryCar" : "ExpensiveSportCar"
        let carID = try store.newObjectIDs(entity: "Car", count: 1)[0]
        let sport = try store.newObjectIDs(entity: "SportCar", count: 1)[0]
        let luxury = try store.newObjectIDs(entity: expensive, count: 1)[0]
        var ann: [String: PropertyValue] = ["updatedAt": date], bob = ann
        if model.attribute("id", of: "Person") != nil {
            ann["id"] = .attribute(.uuid(UUID(uuidString: "00000000-0000-0000-0000-00000000A001")!))
            bob["id"] = .attribute(.uuid(UUID(uuidString: "00000000-0000-0000-0000-00000000A002")!))
        }
        ann["firstName"] = str("Ann")
        bob["firstName"] = str("Bob")
        // v3 has no `maker` attribute (a Maker entity replaced it).
        let hasMaker = model.attribute("maker", of: "Car") != nil
        func car(_ plate: String, _ maker: String, _ owner: ObjectID) -> [String: PropertyValue] {
            var values: [String: PropertyValue] = ["numberPlate": str(plate), "owner": .toOne(owner)]
            if hasMaker { values["maker"] = str(maker) }
            return values
        }
        var expensiveValues = car("ZH-3", "Ferrari", people[1])
        expensiveValues["isLimitedEdition"] = .attribute(.bool(true))
        try store.apply(
            ChangeSet(inserted: [
                people[0]: ann, people[1]: bob, carID: car("ZH-1", "Fiat", people[0]),
                sport: car("ZH-2", "Ferrari", people[0]), luxury: expensiveValues,
            ]))
        return ["ann": people[0], "bob": people[1], "car": carID, "sport": sport, "luxury": luxury]
    }

    /// Checks a store migrated to v3 against what `write` put in.
    static func expectMigrated(_ store: ObjectStore, _ ids: [String: ObjectID]) throws {
        #expect(store.model.entity(named: "Maker") != nil)
        try store.read { snapshot throws in
            #expect(try snapshot.count(FetchRequest(entity: "Person")) == 2)
            #expect(try snapshot.count(FetchRequest(entity: "Car")) == 3)
            let luxury = try snapshot.fetchIDs(FetchRequest(entity: "LuxuryCar"))
            #expect(luxury.map(\.primaryKey) == [ids["luxury"]!.primaryKey])
            let values = try #require(try snapshot.values(of: luxury[0]))
            #expect(values["isLimitedEdition"] == .attribute(.bool(true)))
            #expect(values["numberPlate"] == str("ZH-3"))
            #expect(values["maker"] == nil)
            #expect(values["createdBy"] == .toOne(nil))
            #expect(
                try snapshot.related(ids["ann"]!, "cars").map(\.primaryKey)
                    == [ids["car"]!, ids["sport"]!].map(\.primaryKey))
            #expect(try snapshot.related(ids["bob"]!, "cars") == luxury)
            #expect(try snapshot.related(ids["bob"]!, "previousCars").isEmpty)
            #expect(try snapshot.values(of: ids["ann"]!)?["id"] == nil)
        }
    }

    @Test(arguments: [0, 1])
    func aStoreOfAnOlderVersionMigratesToTheNewest(from index: Int) throws {
        guard let history = try Self.history() else { return }
        #expect(
            history.versions.map(\.name) == [
                "SampleModel.xcdatamodel", "SampleModel2.xcdatamodel", "SampleModel3.xcdatamodel",
            ])
        #expect(history.currentVersionName == "SampleModel.xcdatamodel")
        let fs = InMemoryFileSystem()
        let ids = try Self.write(version: history.versions[index], fs: fs)
        let steps = LockedSteps()
        let store = try ObjectStore.open(
            path: Self.path, model: history.versions[2].model, options: StoreOptions(fileSystem: fs),
            migration: MigrationOptions(plan: MigrationPlan(versions: history.versions)) { progress in
                if progress.phase == .mapping, let step = progress.step { steps.insert(step) }
            })
        defer { try? store.close() }
        try Self.expectMigrated(store, ids)
        let names = history.versions.map(\.name)
        #expect(steps.all == Set((index..<2).map { "\(names[$0]) → \(names[$0 + 1])" }))
    }

    @Test func aCustomStageTurnsMakerNamesIntoMakers() throws {
        guard let history = try Self.history() else { return }
        let fs = InMemoryFileSystem()
        let ids = try Self.write(version: history.versions[1], fs: fs)
        let plan = MigrationPlan(
            versions: history.versions,
            stages: [
                .custom(from: "SampleModel2.xcdatamodel", to: "SampleModel3.xcdatamodel") { step in
                    for car in step.sourceObjects(of: "Car") {
                        guard let name = car.string("maker"), let id = step.destinationID(for: car.id) else { continue }
                        let maker =
                            try step.destinationObjects(of: "Maker").first { $0.string("name") == name }?.id
                            ?? step.insert(entity: "Maker", values: ["name": .attribute(.string(name))])
                        try step.setValue(.toOne(maker), forKey: "createdBy", of: id)
                    }
                }
            ])
        let store = try ObjectStore.open(
            path: Self.path, model: history.versions[2].model, options: StoreOptions(fileSystem: fs),
            migration: MigrationOptions(plan: plan))
        defer { try? store.close() }
        try store.read { snapshot throws in
            let makers = try snapshot.fetchObjects(FetchRequest(entity: "Maker"))
            let byName = Dictionary(uniqueKeysWithValues: makers.map { ($0.values?["name"], $0.id) })
            #expect(byName.count == 2)
            let ferrari = try #require(byName[Self.str("Ferrari")])
            #expect(
                Set(try snapshot.related(ferrari, "cars").map(\.primaryKey)) == [
                    ids["sport"]!.primaryKey, ids["luxury"]!.primaryKey,
                ])
            #expect(try snapshot.values(of: ids["car"]!)?["createdBy"] == .toOne(byName[Self.str("Fiat")]))
        }
    }
}

/// Step names seen by a progress callback.
final class LockedSteps: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: Set<String> = []
    func insert(_ step: String) { _ = lock.withLock { seen.insert(step) } }
    var all: Set<String> { lock.withLock { seen } }
}
