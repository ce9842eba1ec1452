// What one model class persists, read once from its `schemaMetadata`: each property's name, key
// path, Swift type and kind (attribute, to-one, to-many), its inverse, and the class's unique and
// index lists. Backing data finds a property by key path here, the schema builds the store's
// entity from it, and the predicate translation names key paths with it.
//
// Invariants:
//  MT1. One table per class per process (cached by the class's ObjectIdentifier), built from
//       `schemaMetadata`, which `@Model` generates as a constant list; a table never changes.
//  MT2. A relationship's inverse is found the same way from either side (explicit key path on
//       this side, else on the other side, else the only candidate pair), so both sides agree,
//       which the store's model check requires.
//  MT3. An attribute's `coding` converts as `AttributeCoding.storeValue`/`swiftValue` do for its
//       type, with the type's conformances looked up once, here, instead of on every value; a
//       transformable attribute's converts through its transformer (TC1–TC3 of
//       TransformableCoding.swift).
//  MT4. A relationship's `relatedModels` reads the models out of a value of the property's exact
//       Swift type (`valueType`, which backing data keeps, MS1) with one cast to that concrete
//       type, and gives what `ModelStorage.models(in:)` gives for such a value; a value of any
//       other type reads as no models.
//  MT5. `slot(of:)` answers what `indexByKeyPath` answers: by the key path object's identity once
//       learned from an equality look-up (KeyPathIdentitySlots KI1–KI3), else by equality.

internal import CdObjects
import Foundation
internal import CdStore

/// A model class as the store sees it (MT1).
final class ModelPropertyTable: @unchecked Sendable {
    /// One persisted property: a class, so that reading one out of `properties` on every
    /// property access and save is a retain, not a copy of each of its fields. Its `var`s are set
    /// while its table is built (MT1) and never after.
    final class Property {
        /// What the property is in the store.
        enum Kind {
            case attribute(AttributeType, isOptional: Bool)
            case toOne(any PersistentModel.Type, isOptional: Bool)
            /// `isOptional`: the Swift type is `[M]?` (nil reads as no models).
            case toMany(any PersistentModel.Type, isOptional: Bool)
        }

        let name: String
        let keyPath: AnyKeyPath
        let valueType: Any.Type
        let kind: Kind
        let attribute: Schema.Attribute?
        let relationship: Schema.Relationship?
        /// The inverse relationship's name on the destination (MT2).
        var inverse: String? = nil
        /// Whether the inverse is a to-one (each related model then names this one itself).
        var inverseIsToOne = false
        /// An attribute's conversions, made once for its type (MT3).
        var coding = AttributeCoding.Converters.none
        /// A relationship's models in one of its values (MT4); nil for an attribute.
        var relatedModels: (@Sendable (Any) -> [any PersistentModel])?

        init(
            name: String, keyPath: AnyKeyPath, valueType: Any.Type, kind: Kind, attribute: Schema.Attribute?,
            relationship: Schema.Relationship?
        ) {
            self.name = name
            self.keyPath = keyPath
            self.valueType = valueType
            self.kind = kind
            self.attribute = attribute
            self.relationship = relationship
        }

        /// The models `value`, a value of this relationship, holds (MT4).
        func models(in value: Any) -> [any PersistentModel] { relatedModels?(value) ?? [] }

        var isRelationship: Bool {
            if case .attribute = kind { return false }
            return true
        }
    }

    let type: any PersistentModel.Type
    let entityName: String
    let properties: [Property]
    let indexByKeyPath: [AnyKeyPath: Int]
    /// Slots by key path identity, learned from `indexByKeyPath` (MT5).
    let identitySlots: KeyPathIdentitySlots
    let indexByName: [String: Int]
    /// The indexes of the relationships in `properties`.
    let relationshipSlots: [Int]
    /// Uniqueness constraints by property name: `@Attribute(.unique)` ones, then `#Unique` ones.
    let uniquenessConstraints: [[String]]
    /// `#Index` lists by property name.
    let indexes: [[String]]

    private static let cache = LockedState<[ObjectIdentifier: ModelPropertyTable]>([:])

    /// The table of `type` (keeps MT1); throws `unknownSchema` naming a property whose type has
    /// no stored form.
    static func of(_ type: any PersistentModel.Type) throws -> ModelPropertyTable {
        if let known = cache.withLock({ $0[ObjectIdentifier(type)] }) { return known }
        let table = try ModelPropertyTable(type)
        return cache.withLock { tables in
            if let raced = tables[ObjectIdentifier(type)] { return raced }
            tables[ObjectIdentifier(type)] = table
            return table
        }
    }

    private init(_ type: any PersistentModel.Type) throws {
        self.type = type
        entityName = Schema.entityName(for: type)
        var properties: [Property] = []
        var constraintLists: [(isUnique: Bool, lists: [[AnyKeyPath]])] = []
        for entry in type.schemaMetadata {
            if let lists = entry.metadata as? any SchemaConstraintLists {
                constraintLists.append((lists.isUnique, lists.keyPathLists))
                continue
            }
            let valueType = Swift.type(of: entry.keypath).valueType
            let kind: Property.Kind
            if (entry.metadata as? Schema.Attribute)?.transformer != nil {
                // Stored as the transformer's bytes, whatever the Swift type (TC1).
                kind = .attribute(.binaryData, isOptional: valueType is any OptionalValue.Type)
            } else if let relation = Self.relationshipKind(valueType) {
                kind = relation
            } else if let (stored, optional) = AttributeCoding.attributeType(of: valueType) {
                kind = .attribute(stored, isOptional: optional)
            } else {
                throw SwiftDataError(
                    .unknownSchema,
                    "\(Schema.entityName(for: type)).\(entry.name) is a \(valueType), which has no stored form; "
                        + "use a scalar, a RawRepresentable or Codable type, or a model")
            }
            properties.append(
                Property(
                    name: entry.name, keyPath: entry.keypath, valueType: valueType, kind: kind,
                    attribute: entry.metadata as? Schema.Attribute,
                    relationship: entry.metadata as? Schema.Relationship))
        }
        var byKeyPath: [AnyKeyPath: Int] = [:]
        var byName: [String: Int] = [:]
        for (i, p) in properties.enumerated() {
            byKeyPath[p.keyPath] = i
            byName[p.name] = i
        }
        func names(_ list: [AnyKeyPath]) throws -> [String] {
            try list.map { keyPath in
                guard let i = byKeyPath[keyPath] else {
                    throw SwiftDataError(
                        .unknownSchema, "\(keyPath) in #Unique or #Index of \(type) is not a persisted property")
                }
                return properties[i].name
            }
        }
        var unique = properties.filter { $0.attribute?.isUnique == true }.map { [$0.name] }
        var indexes: [[String]] = []
        for (isUnique, lists) in constraintLists {
            for list in lists {
                if isUnique { unique.append(try names(list)) } else { indexes.append(try names(list)) }
            }
        }
        for i in properties.indices {
            if properties[i].isRelationship {
                properties[i].relatedModels = Self.relatedModelsReader(properties[i].kind)
                let inverse = try Self.inverse(of: properties[i], in: type)
                properties[i].inverse = inverse
                if let inverse, let destination = Self.destination(properties[i].kind),
                    let entry = destination.schemaMetadata.first(where: { $0.name == inverse }),
                    case .toOne? = Self.relationshipKind(Swift.type(of: entry.keypath).valueType)
                {
                    properties[i].inverseIsToOne = true
                }
            } else if let transformer = properties[i].attribute?.transformer {
                let name = "\(Schema.entityName(for: type)).\(properties[i].name)"
                properties[i].coding = AttributeCoding.transformableConverters(
                    try transformer.transformer(for: name), valueType: properties[i].valueType, property: name)
            } else {
                properties[i].coding = AttributeCoding.converters(for: properties[i].valueType)
            }
        }
        self.properties = properties
        self.relationshipSlots = properties.indices.filter { properties[$0].isRelationship }
        self.indexByKeyPath = byKeyPath
        // The getters' literals and a few more (a key path the program makes, or forms of it).
        self.identitySlots = KeyPathIdentitySlots(limit: max(16, 4 * properties.count))
        self.indexByName = byName
        self.uniquenessConstraints = unique
        self.indexes = indexes
    }

    /// A to-one or to-many relationship kind for a Swift property type, nil for attributes.
    static func relationshipKind(_ valueType: Any.Type) -> Property.Kind? {
        if let model = valueType as? any PersistentModel.Type { return .toOne(model, isOptional: false) }
        if let many = valueType as? any ModelArray.Type { return .toMany(many.modelType, isOptional: false) }
        if let optional = valueType as? any OptionalValue.Type {
            if let model = optional.wrappedType as? any PersistentModel.Type { return .toOne(model, isOptional: true) }
            if let many = optional.wrappedType as? any ModelArray.Type {
                return .toMany(many.modelType, isOptional: true)
            }
        }
        return nil
    }

    /// The reader of the models in a value of a relationship of `kind` (MT4).
    static func relatedModelsReader(_ kind: Property.Kind) -> (@Sendable (Any) -> [any PersistentModel])? {
        func reader<M: PersistentModel>(
            _: M.Type, many: Bool, optional: Bool
        ) -> @Sendable (Any) -> [any PersistentModel] {
            switch (many, optional) {
            case (false, false): return { value in (value as? M).map { [$0] } ?? [] }
            case (false, true): return { value in ((value as? M?) ?? nil).map { [$0] } ?? [] }
            case (true, false): return { value in (value as? [M])?.map { $0 } ?? [] }
            case (true, true): return { value in ((value as? [M]?) ?? nil)?.map { $0 } ?? [] }
            }
        }
        switch kind {
        case .attribute: return nil
        case let .toOne(type, optional): return reader(type, many: false, optional: optional)
        case let .toMany(type, optional): return reader(type, many: true, optional: optional)
        }
    }

    /// The destination class of a relationship kind.
    static func destination(_ kind: Property.Kind) -> (any PersistentModel.Type)? {
        switch kind {
        case .attribute: return nil
        case let .toOne(type, _), let .toMany(type, _): return type
        }
    }

    /// The inverse of `property` of `type` (keeps MT2), read from both classes' metadata.
    private static func inverse(of property: Property, in type: any PersistentModel.Type) throws -> String? {
        guard let destination = destination(property.kind) else { return nil }
        let candidates = destination.schemaMetadata.filter {
            guard let kind = relationshipKind(Swift.type(of: $0.keypath).valueType),
                let back = self.destination(kind)
            else { return false }
            return back == type
        }
        if let explicit = property.relationship?.inverseKeyPath {
            guard let match = candidates.first(where: { $0.keypath == explicit }) else {
                throw SwiftDataError(
                    .unknownSchema,
                    "the inverse \(explicit) of \(Schema.entityName(for: type)).\(property.name) is not a relationship "
                        + "of \(Schema.entityName(for: destination)) to \(Schema.entityName(for: type))")
            }
            return match.name
        }
        if let named = candidates.first(where: {
            ($0.metadata as? Schema.Relationship)?.inverseKeyPath == property.keyPath
        }) {
            return named.name
        }
        let unnamed = candidates.filter { ($0.metadata as? Schema.Relationship)?.inverseKeyPath == nil }
        let mine = type.schemaMetadata.filter {
            guard let kind = relationshipKind(Swift.type(of: $0.keypath).valueType) else { return false }
            return self.destination(kind) == destination
                && ($0.metadata as? Schema.Relationship)?.inverseKeyPath == nil
        }
        guard unnamed.count == 1, mine.count == 1, !(destination == type && unnamed[0].name == property.name) else {
            return nil
        }
        return unnamed[0].name
    }

    /// The property at `keyPath`, or nil when it is not persisted.
    func property(_ keyPath: AnyKeyPath) -> Int? { indexByKeyPath[keyPath] }

    /// `property(_:)` by the key path object's identity when learned, learning it otherwise (MT5):
    /// what each property read of a model asks.
    func slot(of keyPath: AnyKeyPath) -> Int? {
        if let known = identitySlots.slot(of: keyPath) { return known }
        guard let index = indexByKeyPath[keyPath] else { return nil }
        identitySlots.learn(keyPath, slot: index)
        return index
    }
}

/// An array of models: a to-many relationship's Swift type.
protocol ModelArray {
    static var modelType: any PersistentModel.Type { get }
    /// The elements as existentials.
    var models: [any PersistentModel] { get }
    /// An array of this type holding `models` (each must be of the element type).
    static func make(_ models: [any PersistentModel]) -> Self
    /// `\[Element].count`, as a `#Predicate` reads a to-many's count.
    static var countKeyPath: AnyKeyPath { get }
    /// `\[Element].isEmpty`.
    static var isEmptyKeyPath: AnyKeyPath { get }
    /// The identities of the elements.
    var identities: Set<ObjectIdentifier> { get }
    /// Appends `model` to the list of this type that `slot` holds, in place: the slot lets go of
    /// the list while it grows, so the list is not copied (a link per insert copied the whole
    /// list, quadratic in a bulk insert). False, with `slot` unchanged, when `slot` holds no such
    /// list or `model` is not of the element type.
    static func append(_ model: any PersistentModel, into slot: inout Any?) -> Bool
}

extension Array: ModelArray where Element: PersistentModel {
    static var modelType: any PersistentModel.Type { Element.self }
    static var countKeyPath: AnyKeyPath { arrayCountKeyPath(Element.self) }
    static var isEmptyKeyPath: AnyKeyPath { arrayIsEmptyKeyPath(Element.self) }
    var models: [any PersistentModel] { map { $0 } }
    static func make(_ models: [any PersistentModel]) -> [Element] { models.compactMap { $0 as? Element } }
    var identities: Set<ObjectIdentifier> { Set(lazy.map { ObjectIdentifier($0) }) }
    static func append(_ model: any PersistentModel, into slot: inout Any?) -> Bool {
        guard let element = model as? Element, var list = slot as? [Element] else { return false }
        slot = nil  // the list's only holder is now `list`
        list.append(element)
        slot = list
        return true
    }
}

/// `\[Element].count`, built outside the conditional extension.
private func arrayCountKeyPath<Element>(_: Element.Type) -> AnyKeyPath { \[Element].count }

/// `\[Element].isEmpty`.
private func arrayIsEmptyKeyPath<Element>(_: Element.Type) -> AnyKeyPath { \[Element].isEmpty }
