// Migration through the `Cd` API: a checked-in SampleModel v1 store opened with the model file's
// newest version (its data then in v3's shape, the renamed entity included, read by name), and a
// custom stage for models declared in code.

import Foundation
import Testing
@testable import Cadmium

/// Version 2 of a note for the custom stage: `title` split into `topic` and `detail`.
final class NoteV3: CdManagedObject {
    override class var entityName: String { "Note" }
    @Attribute var topic: String
    @Attribute var detail: String?
}

extension CadmiumSuites {
    @Suite struct Migration {
        static func temporaryCopy(of fixture: String) throws -> URL {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cd-migrate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let url = dir.appendingPathComponent("store.cdstore")
            try FileManager.default.copyItem(at: root.appendingPathComponent("Fixtures/migration/\(fixture)"), to: url)
            return url
        }

        @MainActor @Test func aVersion1StoreOpensWithTheNewestVersionOfTheModelFile() throws {
            guard let folder = Fixtures.modelsFolder() else { return }
            let url = try Self.temporaryCopy(of: "SampleModel-v1.cdstore")
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let model = try CdModel(
                contentsOf: folder.appendingPathComponent("SampleModel.xcdatamodeld"), version: "SampleModel3",
                classes: [])
            #expect(model.versionHistory.versions.count == 3)
            #expect(model.versionHistory.currentVersionName == "SampleModel.xcdatamodel")
            #expect(model.version?.name == "SampleModel3.xcdatamodel")
            let phases = LockedBox<[String]>([])
            try Cd.initWithStore(
                model: model, storeURL: url,
                migration: MigrationOptions { progress in
                    if let step = progress.step, phases.get().last != step { phases.update { $0.append(step) } }
                })
            defer { try? Cd.close() }
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            #expect(
                phases.get() == [
                    "SampleModel.xcdatamodel → SampleModel2.xcdatamodel",
                    "SampleModel2.xcdatamodel → SampleModel3.xcdatamodel",
                ])
            let luxury = try Cd.objects(entityNamed: "LuxuryCar").fetch()
            #expect(luxury.count == 1)
            #expect(try luxury.first?.value(forKey: "isLimitedEdition") as? Bool == true)
            #expect(try Cd.objects(entityNamed: "Car").count() == 3)
            let ann = try #require(try Cd.objects(entityNamed: "Person").filter("firstName == %@", "Ann").fetchOne())
            let cars = try #require(try ann.value(forKey: "cars") as? [CdManagedObject])
            #expect(Set(cars.compactMap { try? $0.value(forKey: "numberPlate") as? String }) == ["ZH-1", "ZH-2"])
            #expect(try ann.value(forKey: "previousCars") as? [CdManagedObject] == [])
        }

        @MainActor @Test func aCustomStageRunsForAModelDeclaredInCode() throws {
            let url = try CadmiumSuites.Close.temporaryStore()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let v1 = try CdModel(classes: [NoteV1.self])
            try Cd.initWithStore(model: v1, storeURL: url)
            try background {
                try Cd.transactAndWait {
                    for title in ["Shopping: milk", "Call"] { try Cd.create(NoteV1.self).title = title }
                }
            }
            try Cd.close()
            let v3 = try CdModel(classes: [NoteV3.self])
            let plan = MigrationPlan(
                versions: [
                    ModelVersion(name: "v1", model: v1.objectModel), ModelVersion(name: "v3", model: v3.objectModel),
                ],
                stages: [
                    .custom(from: "v1", to: "v3") { step in
                        for note in step.sourceObjects(of: "Note") {
                            let parts = (note.string("title") ?? "").split(separator: ":", maxSplits: 1)
                            guard let id = step.destinationID(for: note.id) else { continue }
                            try step.setValue(.attribute(.string(String(parts.first ?? ""))), forKey: "topic", of: id)
                            let detail = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
                            try step.setValue(.attribute(detail.map { .string($0) } ?? .null), forKey: "detail", of: id)
                        }
                    }
                ])
            try Cd.initWithStore(model: v3, storeURL: url, migration: MigrationOptions(plan: plan))
            defer { try? Cd.close() }
            Cd.misuseHandler = { misuse in Issue.record("unexpected misuse: \(misuse)") }
            let notes = try Cd.objects(NoteV3.self).sorted("topic").fetch()
            #expect(notes.map(\.topic) == ["Call", "Shopping"])
            #expect(notes.map(\.detail) == [nil, "milk"])
        }
    }
}
