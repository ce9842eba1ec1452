// How one entity's objects are laid out in the store: its numeric code, the slots of its stored
// attributes and to-one relationships inside a record, its to-many relationship trees, and the
// indexes that cover it (declared on it or inherited). Built once per store at open from the
// model, so the hot paths (encode, decode, index maintenance) never look anything up by name
// in the model.
//
// Invariants:
//  EL1. Codes and slots depend only on the model's stored shape: entity code = position of the
//       name among all entity names sorted by UTF-8 bytes; attribute slot = position among the
//       entity's stored (non-transient) attributes, inherited included, sorted by name; to-one
//       slot = attribute count + position among stored to-one relationships sorted by name.
//       Two models with the same version hash therefore read each other's records.
//  EL2. Every object of the entity has exactly one entry in each index of `indexes`, nil values
//       included (nil sorts first), so an index scan over all keys visits every object.

/// One column of an index key.
struct IndexColumn: Sendable {
    enum Source: Sendable {
        /// Attribute slot in the record and its type.
        case attribute(Int, AttributeType)
        /// Position in `Record.toOne` (the column is the target's primary key).
        case toOne(Int)
    }
    let property: String
    let source: Source
    let ascending: Bool
}

/// An index tree: which entity declared it, on which properties, and whether it is unique.
struct IndexDefinition: Sendable, Hashable {
    enum Kind: String, Sendable { case attribute, fetchIndex, unique }
    /// The engine tree (`cd.idx.<Entity>.<name>`).
    let tree: String
    /// The entity that declared it; it covers that entity and its sub-entities.
    let entity: String
    let kind: Kind
    let properties: [String]
    let ascending: [Bool]
    var isUnique: Bool { kind == .unique }
    /// `Entity(a, b)` for plans and messages.
    var label: String { "\(entity)(\(properties.joined(separator: ", ")))" }
}

/// An index as it applies to one concrete entity: the definition plus the columns resolved to
/// that entity's record slots.
struct IndexLayout: Sendable {
    let definition: IndexDefinition
    let columns: [IndexColumn]
}

/// The stored layout of one entity (see EL1, EL2). Immutable after init.
final class EntityLayout: Sendable {
    let name: String
    /// Numeric code stored in records (EL1).
    let code: Int
    /// The process-wide code of `name` that the entity's `ObjectID`s hold (OI1).
    let nameCode: EntityNameCode
    let isAbstract: Bool
    /// The root of the inheritance hierarchy: all its objects share one record tree.
    let root: String
    let recordTree: String
    /// Stored attributes, sorted by name; the index is the slot.
    let attributes: [AttributeDescription]
    let attributeSlots: [String: Int]
    /// Defaults per attribute slot (`.null` when none).
    let defaults: [CdValue]
    /// Stored to-one relationships, sorted by name; the index is the position in `Record.toOne`
    /// (the record field slot is `attributes.count + index`).
    let toOnes: [RelationshipDescription]
    let toOneSlots: [String: Int]
    /// The entities each stored to-one may point at (its destination and sub-entities), by
    /// position in `toOnes` and then by record code (EL1): a decoded target of another entity is
    /// damage. Two array reads per decoded to-one, no name hashed.
    let toOneTargets: [[Bool]]
    /// Stored to-many relationships, sorted by name, with their trees.
    let toManys: [RelationshipDescription]
    let toManyTrees: [String: String]
    /// Every stored relationship by name.
    let relationships: [String: RelationshipDescription]
    /// The stored inverse of each stored relationship that has one, by the relationship's name.
    /// A transient inverse is left out: nothing of it is stored to keep in step or to check.
    let inverses: [String: RelationshipDescription]
    /// Transient property names (accepted in change sets and ignored).
    let transients: Set<String>
    /// The entity and all its sub-entities.
    let kinds: Set<String>
    /// Indexes covering this entity, resolved to its slots (EL2).
    let indexes: [IndexLayout]

    /// The layout of `name`; `codes` are the record codes of all the model's entities (EL1).
    init(name: String, code: Int, codes: [String: Int], model: ObjectModel, definitions: [IndexDefinition]) {
        let entity = model.entity(named: name)!
        self.name = name
        self.code = code
        self.nameCode = EntityNames.shared.code(for: name)
        self.isAbstract = entity.isAbstract
        self.root = model.rootEntity(of: name)!.name
        self.recordTree = StoreLayout.recordTreeName(root: root)
        let allAttributes = model.allAttributes(of: name)
        let allRelationships = model.allRelationships(of: name)
        attributes = allAttributes.filter { !$0.isTransient }.sorted {
            Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8))
        }
        attributeSlots = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        defaults = attributes.map { $0.defaultValue ?? .null }
        let stored = allRelationships.filter { !$0.isTransient }
            .sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        toOnes = stored.filter { !$0.isToMany }
        toManys = stored.filter(\.isToMany)
        toOneSlots = Dictionary(uniqueKeysWithValues: toOnes.enumerated().map { ($1.name, $0) })
        toOneTargets = toOnes.map { r in
            var accepts = [Bool](repeating: false, count: codes.count)
            for target in [r.destination] + model.allSubentities(of: r.destination).map(\.name) {
                if let c = codes[target] { accepts[c] = true }
            }
            return accepts
        }
        var owners: [String: String] = [:]
        for ancestor in [entity] + model.ancestors(of: name) {
            for r in ancestor.relationships where r.isToMany { owners[r.name] = owners[r.name] ?? ancestor.name }
        }
        toManyTrees = Dictionary(
            uniqueKeysWithValues: toManys.map {
                ($0.name, StoreLayout.relationshipTreeName(entity: owners[$0.name] ?? name, relationship: $0.name))
            })
        relationships = Dictionary(uniqueKeysWithValues: stored.map { ($0.name, $0) })
        inverses = Dictionary(
            uniqueKeysWithValues: stored.compactMap { r in
                model.inverse(of: r.name, in: name).flatMap { $0.isTransient ? nil : (r.name, $0) }
            })
        transients = Set(
            allAttributes.filter(\.isTransient).map(\.name) + allRelationships.filter(\.isTransient).map(\.name))
        kinds = Set([name] + model.allSubentities(of: name).map(\.name))
        let lineage = Set([name] + model.ancestors(of: name).map(\.name))
        let attributeSlots = self.attributeSlots
        let toOneSlots = self.toOneSlots
        let attributes = self.attributes
        indexes = definitions.filter { lineage.contains($0.entity) }.compactMap { d in
            var columns: [IndexColumn] = []
            for (property, ascending) in zip(d.properties, d.ascending) {
                if let s = attributeSlots[property] {
                    columns.append(
                        IndexColumn(property: property, source: .attribute(s, attributes[s].type), ascending: ascending)
                    )
                } else if let s = toOneSlots[property] {
                    columns.append(IndexColumn(property: property, source: .toOne(s), ascending: ascending))
                } else {
                    return nil
                }
            }
            return IndexLayout(definition: d, columns: columns)
        }
    }

    /// The identifier of this entity's object with `primaryKey`: no string hashed or copied.
    @inline(__always)
    func objectID(_ primaryKey: Int64) -> ObjectID { ObjectID(entityCode: nameCode, primaryKey: primaryKey) }

    /// An `ObjectID` description for messages.
    func objectDescription(_ primaryKey: Int64) -> String { "\(name)/\(primaryKey)" }
}
