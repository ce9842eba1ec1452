import CdObjects
import CdStore
import Foundation

// A store opened read-only with the model it records (ObjectStore+StoredModel, SM1), and the
// lookups every reading subcommand makes in that model: entities and their stored properties,
// with "did you mean" for a misspelled name.
//
// Invariants:
//  SS1. The store is opened read-only: a reading subcommand never writes the page file or the WAL
//       (the engine's read-only open recovers the WAL in memory only).
//  SS2. A missing path is refused before the engine sees it, so no store is ever created.
//  SS3. No column is named `objectID`: every output row holds the object's ID under that name.

/// One stored property of an entity, as a column of output.
struct Column: Equatable {
    enum Kind: Equatable {
        case attribute
        case toOne
        case toMany
    }

    var name: String
    var kind: Kind
}

/// The name of the column holding each object's ID (`NSManagedObject.objectID`'s name). An entity
/// with a property of this name is refused (SS3), never written with two values under one key.
let objectIDColumn = "objectID"

/// An open store and its recorded model.
struct StoreSession {
    let path: String
    let store: ObjectStore
    let record: StoredModelRecord
    var model: ObjectModel { record.model }

    /// Opens the store at `path` read-only with its recorded model (SS1, SS2).
    static func open(_ path: String) throws -> StoreSession {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ToolFailure.operational("\(path): no such file")
        }
        var options = StoreOptions()
        options.readOnly = true  // keeps SS1
        do {
            let (store, record) = try ObjectStore.openWithStoredModel(path: path, options: options)
            return StoreSession(path: path, store: store, record: record)
        } catch {
            throw ToolFailure.from(error, path: path)
        }
    }

    func close() { try? store.close() }

    /// The entity named `name`, or a usage failure suggesting the closest name.
    func entity(_ name: String) throws -> EntityDescription {
        if let entity = model.entity(named: name) { return entity }
        throw ToolFailure.usage(NameSuggestion.unknown("entity", name, known: model.entityNames))
    }

    /// The stored (non-transient) attributes, then relationships, of `entity`, including inherited
    /// ones; only those named in `only` (in that order) when it is given.
    func columns(of entity: EntityDescription, only: [String]? = nil) throws -> [Column] {
        let attributes = model.allAttributes(of: entity.name).filter { !$0.isTransient }.map {
            Column(name: $0.name, kind: .attribute)
        }
        let relationships = model.allRelationships(of: entity.name).filter { !$0.isTransient }.map {
            Column(name: $0.name, kind: $0.isToMany ? .toMany : .toOne)
        }
        let all = attributes + relationships
        if all.contains(where: { $0.name == objectIDColumn }) {  // keeps SS3
            throw ToolFailure.operational(
                "entity \(entity.name) has a property named \(objectIDColumn), the name of the object ID column")
        }
        guard let only else { return all }
        return try only.map { name in
            if let column = all.first(where: { $0.name == name }) { return column }
            throw ToolFailure.usage(
                NameSuggestion.unknown("property", name, known: all.map(\.name), in: entity.name))
        }
    }

    /// Checks that the first component of a sort key path names a property of `entity`.
    func checkSortKey(_ key: String, of entity: EntityDescription) throws {
        let first = String(key.split(separator: ".", maxSplits: 1).first ?? "")
        _ = try columns(of: entity, only: [first])
    }
}

/// One object as a row: its ID and the values of the columns.
struct ObjectRow {
    var id: ObjectID
    var values: [PropertyValue?]
    /// The targets of expanded to-ones by column index (`query --expand`); `.some(nil)` when the
    /// to-one is empty.
    var expansions: [Int: ObjectRow?] = [:]

    init(id: ObjectID, values: [PropertyValue?]) {
        self.id = id
        self.values = values
    }

    /// The row of `id` from the values a fetch returned, reading to-many targets from `snapshot`.
    init(id: ObjectID, stored: [String: PropertyValue]?, columns: [Column], snapshot: ObjectSnapshot) throws {
        self.id = id
        values = try columns.map { column in
            switch column.kind {
            case .attribute, .toOne: return stored?[column.name]
            case .toMany: return .toMany(try snapshot.related(id, column.name))
            }
        }
    }
}
