// A schema: the model classes a container stores, and the store's entity model built from them.
// Each class is one entity named after the class; each persisted property one attribute or
// relationship; `@Attribute(.unique)` and `#Unique` uniqueness constraints; `#Index` fetch
// indexes. The entity model is an ordinary CdObjects `ObjectModel`, so a SwiftData store is an
// ordinary Cadmium store.
//
// Invariants:
//  SC1. `objectModel()` depends only on the classes' metadata, so the same classes always give
//       the same model and version hash (a store written by one launch opens in the next);
//       initial values are not store defaults, since one like `.now` would change the hash.

package import CdObjects
import Foundation

/// The model classes of a container, and their entities.
///
/// ```swift
/// let schema = Schema([Trip.self, Accommodation.self])
/// let container = try ModelContainer(for: schema, configurations: [ModelConfiguration()])
/// ```
public final class Schema: Hashable, @unchecked Sendable {
    /// A schema version, as `VersionedSchema.versionIdentifier` gives it.
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        /// The major version.
        public let major: Int
        /// The minor version.
        public let minor: Int
        /// The patch version.
        public let patch: Int
        /// The version `major.minor.patch`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }
        /// Ordered by major, then minor, then patch.
        public static func < (l: Version, r: Version) -> Bool {
            (l.major, l.minor, l.patch) < (r.major, r.minor, r.patch)
        }
        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// One entity of the schema.
    public struct Entity: Hashable, Sendable {
        /// The entity name: the class name.
        public let name: String
        /// The persisted attributes' names, in declaration order.
        public let attributeNames: [String]
        /// The relationships' names, in declaration order.
        public let relationshipNames: [String]
        /// The uniqueness constraints, each a list of property names.
        public let uniquenessConstraints: [[String]]
        /// The indexes, each a list of property names.
        public let indices: [[String]]
    }

    /// The schema version.
    public let version: Version
    /// The model classes, in the order given (related classes reachable from them added after).
    let types: [any PersistentModel.Type]

    /// A schema of `types` and every model class their relationships reach.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var all: [any PersistentModel.Type] = []
        var pending = types
        while let next = pending.first {
            pending.removeFirst()
            if all.contains(where: { $0 == next }) { continue }
            all.append(next)
            for entry in next.schemaMetadata {
                if let kind = ModelPropertyTable.relationshipKind(Swift.type(of: entry.keypath).valueType),
                    let destination = ModelPropertyTable.destination(kind)
                {
                    pending.append(destination)
                }
            }
        }
        self.types = all
        self.version = version
    }

    /// A schema of `types`.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The entity name of a model class: its name.
    public static func entityName(for type: any PersistentModel.Type) -> String { String(describing: type) }

    /// The schema's entities; classes whose metadata cannot be stored are left out (the
    /// container refuses the schema, naming them).
    public var entities: [Entity] {
        types.compactMap { type in
            guard let table = try? ModelPropertyTable.of(type) else { return nil }
            return Entity(
                name: table.entityName,
                attributeNames: table.properties.filter { !$0.isRelationship }.map(\.name),
                relationshipNames: table.properties.filter(\.isRelationship).map(\.name),
                uniquenessConstraints: table.uniquenessConstraints, indices: table.indexes)
        }
    }

    /// The entity of `type`, nil when it is not in the schema.
    public func entity(for type: any PersistentModel.Type) -> Entity? {
        entities.first { $0.name == Schema.entityName(for: type) }
    }

    /// The model class of an entity name.
    func type(forEntity name: String) -> (any PersistentModel.Type)? {
        types.first { Schema.entityName(for: $0) == name }
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && lhs.types.map(ObjectIdentifier.init) == rhs.types.map(ObjectIdentifier.init)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        for type in types { hasher.combine(ObjectIdentifier(type)) }
    }

    /// The store's entity model (keeps SC1); `unknownSchema` naming the class and property that
    /// cannot be stored. The `Cd` API opens a container's file with this model
    /// (`CdModel(objectModel:classes:)`), with no migration: it is the model the file records.
    package func objectModel() throws -> ObjectModel {
        var entities: [EntityDescription] = []
        for type in types {
            let table = try ModelPropertyTable.of(type)
            var attributes: [AttributeDescription] = []
            var relationships: [RelationshipDescription] = []
            for property in table.properties {
                let renamed = property.attribute?.originalName ?? property.relationship?.originalName
                switch property.kind {
                case let .attribute(stored, optional):
                    attributes.append(
                        AttributeDescription(
                            name: property.name, type: stored, isOptional: optional, renamingIdentifier: renamed,
                            preservesValueInHistoryOnDeletion: property.attribute?.options.contains(
                                .preserveValueOnDeletion) ?? false))
                case let .toOne(destination, optional):
                    relationships.append(
                        RelationshipDescription(
                            name: property.name, destination: Schema.entityName(for: destination),
                            inverse: property.inverse, deleteRule: Self.deleteRule(property.relationship),
                            isOptional: optional, renamingIdentifier: renamed))
                case let .toMany(destination, _):
                    let r = property.relationship
                    relationships.append(
                        RelationshipDescription(
                            name: property.name, destination: Schema.entityName(for: destination),
                            inverse: property.inverse, isToMany: true, deleteRule: Self.deleteRule(r),
                            minCount: r?.minimumModelCount ?? 0,
                            maxCount: (r?.maximumModelCount).flatMap { $0 > 0 ? $0 : nil }, renamingIdentifier: renamed)
                    )
                }
            }
            // An index listed twice (`.binary` and `.rtree` on the same properties are one
            // B-tree here) is made once.
            var listed = Set<[String]>()
            let indexes = table.indexes.filter { listed.insert($0).inserted }.map { names in
                FetchIndexDescription(
                    name: "\(table.entityName)_\(names.joined(separator: "_"))",
                    elements: names.map { FetchIndexElement.ascending($0) })
            }
            entities.append(
                EntityDescription(
                    name: table.entityName, attributes: attributes, relationships: relationships,
                    uniquenessConstraints: table.uniquenessConstraints, fetchIndexes: indexes))
        }
        do { return try ObjectModel(entities: entities) } catch {
            throw SwiftDataError(.unknownSchema, "the schema's entity model is invalid: \(error)")
        }
    }

    private static func deleteRule(_ relationship: Schema.Relationship?) -> DeleteRule {
        switch relationship?.deleteRule ?? .nullify {
        case .noAction: return .noAction
        case .nullify: return .nullify
        case .cascade: return .cascade
        case .deny: return .deny
        }
    }
}
