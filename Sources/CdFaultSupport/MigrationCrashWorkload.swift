// The migration form of the process-crash campaign (`cadmium-crash-child --migrate`): a store of
// model version 1 is migrated to version 2 while the driver SIGKILLs the process at a random
// moment. Afterwards the store must be whole in one of the two versions (StoreMigrator MG5–MG6):
//
//  V1. version 1: `items` Items numbered 1…items, each with its name and note, every tenth owned
//      by the Owner of its tens digit group; `owners` Owners.
//  V2. version 2: Item renamed Article (renaming identifier), `note` removed, `rating` added
//      with default 5; the same numbers, names and owners.
//
// Progress events of the migration are sent as "ACK n", so that the driver's kills spread over
// the reading, mapping, writing and swapping phases.

import CdObjects
import CdStore
import Foundation

public enum MigrationCrashWorkload {
    /// Items in the version 1 store.
    public static let items = 3000
    /// Owners in the version 1 store.
    public static let owners = 30

    /// Version 1 of the model.
    public static let v1 = try! ObjectModel(entities: [
        EntityDescription(
            name: "Item",
            attributes: [
                .init(name: "number", type: .integer64, isOptional: false, isIndexed: true),
                .init(name: "name", type: .string, isOptional: false), .init(name: "note", type: .string),
            ],
            relationships: [.init(name: "owner", destination: "Owner", inverse: "items")]),
        EntityDescription(
            name: "Owner", attributes: [.init(name: "name", type: .string)],
            relationships: [.toMany("items", destination: "Item", inverse: "owner")]),
    ])

    /// Version 2 of the model (V2).
    public static let v2 = try! ObjectModel(entities: [
        EntityDescription(
            name: "Article",
            attributes: [
                .init(name: "number", type: .integer64, isOptional: false, isIndexed: true),
                .init(name: "name", type: .string, isOptional: false),
                .init(name: "rating", type: .integer16, isOptional: false, defaultValue: .integer(5)),
            ],
            relationships: [.init(name: "owner", destination: "Owner", inverse: "items")],
            renamingIdentifier: "Item"),
        EntityDescription(
            name: "Owner", attributes: [.init(name: "name", type: .string)],
            relationships: [.toMany("items", destination: "Article", inverse: "owner")]),
    ])

    /// Version 1 then version 2: declared, because the step drops `Item.note`, which an inferred
    /// step nobody declared may not do (MG10).
    public static var plan: MigrationPlan {
        MigrationPlan(versions: [ModelVersion(name: "v1", model: v1), ModelVersion(name: "v2", model: v2)])
    }

    /// The campaign's store options (full durability).
    public static func options() -> StoreOptions { CrashWorkload.options() }

    /// Writes a new version 1 store at `path` (V1), replacing any file there.
    public static func seed(path: String) throws {
        for file in [path, path + "-wal", path + ".migration", path + ".migration-wal"] {
            try? FileManager.default.removeItem(atPath: file)
        }
        let store = try ObjectStore.open(path: path, model: v1, options: options())
        defer { try? store.close() }
        let ownerIDs = try store.newObjectIDs(entity: "Owner", count: owners)
        let itemIDs = try store.newObjectIDs(entity: "Item", count: items)
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for (i, id) in ownerIDs.enumerated() { inserted[id] = ["name": .attribute(.string("owner \(i)"))] }
        for (i, id) in itemIDs.enumerated() {
            var values: [String: PropertyValue] = [
                "number": .attribute(.integer(Int64(i + 1))), "name": .attribute(.string("item \(i + 1)")),
                "note": .attribute(.string(String(repeating: "n", count: i % 50))),
            ]
            if i % 10 == 0 { values["owner"] = .toOne(ownerIDs[(i / 10) % owners]) }
            inserted[id] = values
        }
        try store.apply(ChangeSet(inserted: inserted))
    }

    /// Opens `path` with version 2, migrating it; `progress` gets each progress event.
    public static func migrate(path: String, progress: @escaping @Sendable (MigrationProgress) -> Void) throws {
        let store = try ObjectStore.open(
            path: path, model: v2, options: options(),
            migration: MigrationOptions(plan: plan, progress: progress))
        try store.close()
    }

    /// Checks V1 or V2 on the store at `path` and returns its version (1 or 2), or throws
    /// `CrashWorkload.Violation`.
    public static func check(path: String) throws -> Int {
        for (version, model, entity) in [(1, v1, "Item"), (2, v2, "Article")] {
            let store: ObjectStore
            do {
                store = try ObjectStore.open(path: path, model: model, options: options(), migration: .disabled)
            } catch let error as CdError where error.code == 134100 {
                continue
            }
            defer { try? store.close() }
            try store.read { snapshot in
                let objects = try snapshot.fetchObjects(FetchRequest(entity: entity))
                guard objects.count == items else {
                    throw CrashWorkload.Violation("version \(version): \(objects.count) of \(items) items")
                }
                for (id, values) in objects {
                    guard case let .attribute(.integer(n))? = values?["number"],
                        values?["name"] == .attribute(.string("item \(n)"))
                    else { throw CrashWorkload.Violation("version \(version): \(id) lost its number or name") }
                    let owned = values?["owner"] != .toOne(nil)
                    if owned != ((n - 1) % 10 == 0) {
                        throw CrashWorkload.Violation("version \(version): item \(n) lost or gained its owner")
                    }
                    if version == 2, values?["rating"] != .attribute(.integer(5)) {
                        throw CrashWorkload.Violation("version 2: item \(n) has no default rating")
                    }
                }
                guard try snapshot.count(FetchRequest(entity: "Owner")) == owners else {
                    throw CrashWorkload.Violation("version \(version): owners lost")
                }
            }
            return version
        }
        throw CrashWorkload.Violation("the store is of neither version")
    }
}
