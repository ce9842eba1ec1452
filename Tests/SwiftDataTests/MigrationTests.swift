// Versioned schemas and migration plans on Cadmium's migration engine: a file written with
// version 1 opens with version 2 after a custom stage (a renamed attribute from `originalName`, a
// new attribute, and a `didMigrate` that fills it), and a file with an added optional property
// migrates lightweight without a plan, as SwiftData does on its own.

import Foundation
import SwiftData
import Testing

enum JourneysV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model
    final class Journey {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum JourneysV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model
    final class Journey {
        @Attribute(originalName: "name") var title: String
        var rating: Int?
        init(title: String) { self.title = title }
    }
}

enum JourneysPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JourneysV1.self, JourneysV2.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: JourneysV1.self, toVersion: JourneysV2.self, willMigrate: nil,
                didMigrate: { context in
                    for journey in try context.fetch(FetchDescriptor<JourneysV2.Journey>()) { journey.rating = 5 }
                })
        ]
    }
}

@Suite struct MigrationTests {
    @Test func aPlanMigratesAFileWrittenWithAnEarlierVersion() throws {
        let url = temporaryStoreURL("journeys")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ModelContext(
                try ModelContainer(
                    for: Schema(versionedSchema: JourneysV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(JourneysV1.Journey(name: "Oslo"))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: JourneysV2.self), migrationPlan: JourneysPlan.self,
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let journeys = try context.fetch(FetchDescriptor<JourneysV2.Journey>())
        #expect(journeys.map(\.title) == ["Oslo"])
        #expect(journeys.map(\.rating) == [5])
    }

    @Test func anAddedOptionalPropertyMigratesWithoutAPlan() throws {
        let url = temporaryStoreURL("journeys")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ModelContext(
                try ModelContainer(for: WanderersV1.Wanderer.self, configurations: ModelConfiguration(url: url)))
            context.insert(WanderersV1.Wanderer(name: "Ana"))
            try context.save()
        }
        let context = ModelContext(
            try ModelContainer(for: WanderersV2.Wanderer.self, configurations: ModelConfiguration(url: url)))
        let all = try context.fetch(FetchDescriptor<WanderersV2.Wanderer>())
        #expect(all.map(\.name) == ["Ana"])
        #expect(all.map(\.nickname) == [nil])
    }
}

/// Two versions of one entity (`Wanderer`) without a plan: the second adds an optional property.
enum WanderersV1 {
    @Model
    final class Wanderer {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum WanderersV2 {
    @Model
    final class Wanderer {
        var name: String
        var nickname: String?
        init(name: String) { self.name = name }
    }
}
