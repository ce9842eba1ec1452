// What a custom migration stage sees: the objects as they were in the step's source version
// (read only) and as the inferred mapping made them in its destination version (to change, add
// to or delete from). The closure runs once per step, before anything is written; its changes
// are checked like the inferred ones when the new store is written, and a throw leaves the old
// store untouched.
//
// Keeps MG3: setting a relationship sets its inverse too, and deleting an object removes it from
// every relationship that held it, so both sides still agree afterwards.

/// One object in a migration: its ID and its stored values by property name (to-many lists too).
public struct MigrationObject: Sendable, Hashable {
    /// The object's ID in its version.
    public let id: ObjectID
    /// Attributes, to-ones and to-many lists, by name.
    public let values: [String: PropertyValue]

    /// The attribute `key` (`.null` when it has none or it is not an attribute).
    public func attribute(_ key: String) -> CdValue {
        if case let .attribute(v)? = values[key] { return v }
        return .null
    }

    /// The string attribute `key`, or nil.
    public func string(_ key: String) -> String? {
        if case let .string(s) = attribute(key) { return s }
        return nil
    }

    /// The objects of relationship `key` (empty for none).
    public func related(_ key: String) -> [ObjectID] {
        switch values[key] {
        case let .toOne(t)?: return t.map { [$0] } ?? []
        case let .toMany(list)?: return list
        default: return []
        }
    }
}

/// The data of one custom stage: old objects to read, new objects to change.
///
/// ```swift
/// .custom(from: "SampleModel2", to: "SampleModel3") { step in
///     for car in step.sourceObjects(of: "Car") {        // make a Maker per distinct maker name
///         guard let name = car.string("maker"), let id = step.destinationID(for: car.id) else { continue }
///         let maker = try step.destinationObjects(of: "Maker").first { $0.string("name") == name }?.id
///             ?? step.insert(entity: "Maker", values: ["name": .attribute(.string(name))])
///         try step.setValue(.toOne(maker), forKey: "createdBy", of: id)
///     }
/// }
/// ```
public final class MigrationStageContext {
    /// The name of the version the step starts from.
    public let fromVersion: String
    /// The name of the version the step produces.
    public let toVersion: String
    /// The source version's model.
    public var sourceModel: ObjectModel { source.model }
    /// The destination version's model.
    public var destinationModel: ObjectModel { destination.model }

    private let source: MigrationData
    var destination: MigrationData
    private let ids: [ObjectID: ObjectID]

    init(from: String, to: String, source: MigrationData, destination: MigrationData, ids: [ObjectID: ObjectID]) {
        self.fromVersion = from
        self.toVersion = to
        self.source = source
        self.destination = destination
        self.ids = ids
    }

    // MARK: - Reading

    /// The objects of `entity` (and its sub-entities) in the source version, by ID.
    public func sourceObjects(of entity: String) -> [MigrationObject] {
        source.ids(of: entity).map { MigrationObject(id: $0, values: source.objects[$0] ?? [:]) }
    }

    /// The objects of `entity` (and its sub-entities) in the destination version, by ID.
    public func destinationObjects(of entity: String) -> [MigrationObject] {
        destination.ids(of: entity).map { MigrationObject(id: $0, values: destination.objects[$0] ?? [:]) }
    }

    /// The destination object that the inferred mapping made of the source object `id`; nil
    /// when its entity has no counterpart (or the stage deleted it).
    public func destinationID(for id: ObjectID) -> ObjectID? {
        ids[id].flatMap { destination.objects[$0] == nil ? nil : $0 }
    }

    /// The destination object `id`, nil when there is none.
    public func destinationObject(_ id: ObjectID) -> MigrationObject? {
        destination.objects[id].map { MigrationObject(id: id, values: $0) }
    }

    // MARK: - Writing

    /// Sets property `key` of the destination object `id`; a relationship's inverse follows (MG3).
    ///
    /// - Throws: `MigrationError.invalidPlan` when there is no such object or property, or the
    ///   value's kind does not fit it (a type mismatch of an attribute, a target of another
    ///   entity).
    public func setValue(_ value: PropertyValue, forKey key: String, of id: ObjectID) throws {
        guard destination.objects[id] != nil else { throw invalid("no destination object \(id)") }
        let model = destination.model
        if let attribute = model.attribute(key, of: id.entity), !attribute.isTransient {
            guard case let .attribute(v) = value, v.isNull || attribute.type.accepts(v) else {
                throw invalid("\(id.entity).\(key) is \(attribute.type), not \(value)")
            }
            destination.objects[id]?[key] = value
            return
        }
        guard let r = model.relationship(key, of: id.entity), !r.isTransient else {
            throw invalid("\(id.entity) has no stored property \(key) in \(toVersion)")
        }
        let targets: [ObjectID]
        switch (value, r.isToMany) {
        case let (.toOne(t), false): targets = t.map { [$0] } ?? []
        case let (.toMany(list), true): targets = list
        default: throw invalid("\(id.entity).\(key) is a \(r.isToMany ? "to-many" : "to-one"), not \(value)")
        }
        for t in targets where destination.objects[t] == nil || !model.isEntity(t.entity, kindOf: r.destination) {
            throw invalid("\(t) is not a \(r.destination) of the destination")
        }
        let inverse = r.inverse.flatMap { model.relationship($0, of: r.destination) }
        for old in MigrationObject(id: id, values: destination.objects[id]!).related(key) {
            if let inverse { unlink(id, from: old, inverse) }
        }
        destination.objects[id]?[key] = value
        guard let inverse else { return }
        for t in targets {
            if !inverse.isToMany, let previous = destinationObject(t)?.related(inverse.name).first, previous != id {
                unlink(t, from: previous, r)
            }
            link(id, into: t, inverse)
        }
    }

    /// Adds a new object of `entity` with `values` (other properties take their defaults, or
    /// nil) and returns its ID.
    ///
    /// - Throws: `MigrationError.invalidPlan` for an unknown or abstract entity, or a value
    ///   `setValue` refuses.
    public func insert(entity: String, values: [String: PropertyValue] = [:]) throws -> ObjectID {
        let model = destination.model
        guard let description = model.entity(named: entity), !description.isAbstract else {
            throw invalid("\(entity) is not a concrete entity of \(toVersion)")
        }
        let id = ObjectID(entity: entity, primaryKey: destination.newKey(root: destination.root(of: entity)))
        var defaults: [String: PropertyValue] = [:]
        for a in model.allAttributes(of: entity) where !a.isTransient {
            defaults[a.name] = .attribute(a.defaultValue ?? .null)
        }
        for r in model.allRelationships(of: entity) where !r.isTransient {
            defaults[r.name] = r.isToMany ? .toMany([]) : .toOne(nil)
        }
        destination.objects[id] = defaults
        for (key, value) in values.sorted(by: { $0.key < $1.key }) { try setValue(value, forKey: key, of: id) }
        return id
    }

    /// Deletes the destination object `id` and removes it from every relationship that holds it.
    public func delete(_ id: ObjectID) {
        guard let values = destination.objects.removeValue(forKey: id) else { return }
        let model = destination.model
        for r in model.allRelationships(of: id.entity) where !r.isTransient {
            guard let inverse = r.inverse.flatMap({ model.relationship($0, of: r.destination) }) else { continue }
            for t in MigrationObject(id: id, values: values).related(r.name) { unlink(id, from: t, inverse) }
        }
        // Relationships without an inverse may still point here.
        for (other, otherValues) in destination.objects {
            for (key, value) in otherValues {
                switch value {
                case .toOne(id?): destination.objects[other]?[key] = .toOne(nil)
                case let .toMany(list) where list.contains(id):
                    destination.objects[other]?[key] = .toMany(list.filter { $0 != id })
                default: break
                }
            }
        }
    }

    // MARK: - Inverses

    private func unlink(_ member: ObjectID, from owner: ObjectID, _ r: RelationshipDescription) {
        switch destination.objects[owner]?[r.name] {
        case .toOne(member?)?: destination.objects[owner]?[r.name] = .toOne(nil)
        case let .toMany(list)?: destination.objects[owner]?[r.name] = .toMany(list.filter { $0 != member })
        default: break
        }
    }

    private func link(_ member: ObjectID, into owner: ObjectID, _ r: RelationshipDescription) {
        guard destination.objects[owner] != nil else { return }
        if r.isToMany {
            var list = MigrationObject(id: owner, values: destination.objects[owner]!).related(r.name)
            if !list.contains(member) { list.append(member) }
            destination.objects[owner]?[r.name] = .toMany(list)
        } else {
            destination.objects[owner]?[r.name] = .toOne(member)
        }
    }

    private func invalid(_ message: String) -> MigrationError {
        .invalidPlan("stage \(fromVersion) → \(toVersion): \(message)")
    }
}
