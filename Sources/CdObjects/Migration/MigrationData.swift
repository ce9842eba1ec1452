// The objects of a store in memory while a migration maps them from one model version to the
// next: every object with every stored property (attributes, to-ones, and to-many lists, both
// sides of each relationship), and each hierarchy's next primary key. It is read once from the
// old store, mapped step by step, and written once into the new store.
//
// Invariants:
//  MG2. Every object's ID names a concrete entity of `model`, and the values hold only stored
//       properties of that entity (declared or inherited), by name.
//  MG3. Both sides of a relationship with an inverse agree: `a.r` holds `b` exactly when `b.i`
//       holds `a` (the store's own CA3, kept through every step).
//  MG4. `nextKeys[root]` is above every primary key of the root's hierarchy and at least the old
//       store's next key, so a migrated store never hands out a key it had handed out before (OS1).

import CdStore

/// The objects of a store under one model version, in memory (MG2–MG4).
struct MigrationData {
    var model: ObjectModel
    var objects: [ObjectID: [String: PropertyValue]]
    var nextKeys: [String: Int64]

    /// Every object of `store` with every stored property, and its next keys.
    static func read(
        from store: ObjectStore, progress: (MigrationProgress) -> Void
    ) throws -> MigrationData {
        let model = store.model
        let roots = model.entities.filter { $0.parent == nil }.map(\.name).sorted()
        return try store.read { snapshot in
            var objects: [ObjectID: [String: PropertyValue]] = [:]
            let total = try roots.reduce(0) { $0 + (try snapshot.count(FetchRequest(entity: $1))) }
            progress(MigrationProgress(phase: .reading, completed: 0, total: total))
            for root in roots {
                for (id, values) in try snapshot.fetchObjects(FetchRequest(entity: root)) {
                    var all = values ?? [:]
                    for r in model.allRelationships(of: id.entity) where r.isToMany && !r.isTransient {
                        all[r.name] = .toMany(try snapshot.related(id, r.name))
                    }
                    objects[id] = all
                    if objects.count % 1000 == 0 {
                        progress(MigrationProgress(phase: .reading, completed: objects.count, total: total))
                    }
                }
            }
            progress(MigrationProgress(phase: .reading, completed: objects.count, total: total))
            let nextKeys = try store.engine.read { tx in
                let stored = StoredObjects(tx: tx, layout: store.layout)
                return try Dictionary(uniqueKeysWithValues: roots.map { ($0, try stored.storedNextKey(root: $0)) })
            }
            return MigrationData(model: model, objects: objects, nextKeys: nextKeys)
        }
    }

    /// The IDs of `entity` and its sub-entities, in order.
    func ids(of entity: String) -> [ObjectID] {
        objects.keys.filter { model.isEntity($0.entity, kindOf: entity) }.sorted()
    }

    /// The root of `entity`'s hierarchy.
    func root(of entity: String) -> String { model.rootEntity(of: entity)?.name ?? entity }

    /// A primary key not used in `root`'s hierarchy yet (keeps MG4).
    mutating func newKey(root: String) -> Int64 {
        let key = nextKeys[root, default: 1]
        nextKeys[root] = key + 1
        return key
    }

    /// Raises each root's next key above its largest key (keeps MG4).
    mutating func raiseNextKeys() {
        for id in objects.keys {
            let root = root(of: id.entity)
            if nextKeys[root, default: 1] <= id.primaryKey { nextKeys[root] = id.primaryKey + 1 }
        }
    }

    // MARK: - Checks before writing

    /// Throws `constraintViolation` listing every object that shares the values of a uniqueness
    /// constraint of `model`, before anything is written.
    func checkUniqueness(originalIDs: [ObjectID: ObjectID]) throws {
        for entity in model.entities {
            let constraints = entity.uniquenessConstraints
            guard !constraints.isEmpty else { continue }
            let members = ids(of: entity.name)
            for properties in constraints {
                var seen: [[PropertyValue?]: [ObjectID]] = [:]
                for id in members {
                    let key = properties.map { objects[id]?[$0] }
                    // Core Data's constraints ignore objects whose values are all nil.
                    if key.allSatisfy({ $0 == nil || $0 == .attribute(.null) || $0 == .toOne(nil) }) { continue }
                    seen[key, default: []].append(id)
                }
                let clashing = seen.values.filter { $0.count > 1 }.flatMap { $0 }.map { originalIDs[$0] ?? $0 }
                if !clashing.isEmpty {
                    throw MigrationError.constraintViolation(
                        entity: entity.name, properties: properties, objects: clashing.sorted())
                }
            }
        }
    }

    // MARK: - Writing

    /// The change set that inserts every object into an empty store of `model`. An unordered
    /// to-many whose inverse is a to-one is left out (the store derives it from the to-ones,
    /// which agree with it by MG3).
    func changeSet() -> ChangeSet {
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        inserted.reserveCapacity(objects.count)
        for (id, values) in objects {
            var carried = values
            for r in model.allRelationships(of: id.entity) where r.isToMany {
                let inverse = r.inverse.flatMap { model.relationship($0, of: r.destination) }
                if !r.isOrdered, let inverse, !inverse.isToMany, !inverse.isTransient { carried[r.name] = nil }
            }
            inserted[id] = carried
        }
        return ChangeSet(inserted: inserted)
    }
}
