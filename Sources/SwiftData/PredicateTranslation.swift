// A `FetchDescriptor` as the store's `FetchRequest`. The `#Predicate` goes through Cadmium's
// translation of Foundation predicates, with this module's key path naming (a key path of a
// model names its persisted property), captured models as object references, and
// `localizedStandardContains` as a case- and diacritic-insensitive CONTAINS. A part the store
// cannot run is a `SwiftDataError.unsupportedPredicate` naming it; nothing is filtered in memory.

internal import Cadmium
internal import CdObjects
import Foundation

/// Translations of descriptors into store requests.
enum PredicateTranslation {
    /// The store request of `descriptor`, its predicate from `cache` when its shape was seen.
    static func request<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, entity: String, cache: PredicateRequestCache?
    ) throws -> FetchRequest {
        var request = FetchRequest(entity: entity)
        if let predicate = descriptor.predicate {
            request.predicate = try cache?.translate(predicate) ?? translate(predicate)
        }
        if !descriptor.sortBy.isEmpty { request.sortDescriptors = try descriptor.sortBy.map(sort) }
        request.limit = descriptor.fetchLimit
        request.offset = max(0, descriptor.fetchOffset ?? 0)
        request.includesSubentities = descriptor.includeSubentities
        return request
    }

    /// The store form of `predicate`; `capturedValue` converts its captured values first (a
    /// value it gives nil for is converted as usual).
    static func translate<T: PersistentModel>(
        _ predicate: Predicate<T>, capturedValue: ((Any) -> CdPredicateExpression?)? = nil
    ) throws -> CdPredicate {
        let value: (Any) -> CdPredicateExpression? =
            capturedValue.map { first in { first($0) ?? captured($0) } } ?? captured
        let translation = StoreTranslation(keyPathNames: names, capturedValue: value, frontEndNode: frontEndNode)
        do { return try translation.translate(predicate) } catch {
            let code: SwiftDataError.Code =
                error.kind == .unresolvedKeyPath ? .unsupportedKeyPath : .unsupportedPredicate
            throw SwiftDataError(code, "\(error.part): \(error.message)")
        }
    }

    /// The store sort of `sort`: String properties case-insensitively.
    static func sort<T: PersistentModel>(_ sort: Foundation.SortDescriptor<T>) throws -> CdObjects.SortDescriptor {
        guard let keyPath = sort.keyPath, let property = property(keyPath), property.attribute?.transformer == nil
        else {
            throw SwiftDataError(
                .unsupportedSortDescriptor,
                "\(sort) does not sort by a property of \(T.self) the store holds")
        }
        var isString = false
        if case .attribute(.string, _) = property.kind { isString = true }
        return CdObjects.SortDescriptor(property.name, ascending: sort.order == .forward, caseInsensitive: isString)
    }

    /// Whether the store runs every one of `sorts` (FE4 of ModelContext+Fetch.swift).
    static func storeSorts<T: PersistentModel>(_ sorts: [Foundation.SortDescriptor<T>]) -> Bool {
        sorts.allSatisfy { (try? sort($0)) != nil }
    }

    /// The persisted property a key path of a model class leads to.
    static func property(_ keyPath: AnyKeyPath) -> ModelPropertyTable.Property? {
        guard let model = type(of: keyPath).rootType as? any PersistentModel.Type,
            let table = try? ModelPropertyTable.of(model), let index = table.property(keyPath)
        else { return nil }
        return table.properties[index]
    }

    /// The property names of one key path node.
    static func names(_ keyPath: AnyKeyPath) -> Result<[String], CdQueryError> {
        if let property = property(keyPath) {
            if property.attribute?.transformer != nil { return .failure(transformableRefusal(keyPath)) }
            return .success([property.name])
        }
        if let model = type(of: keyPath).rootType as? any PersistentModel.Type, keyPath == identityKeyPath(model) {
            return .success([])  // `persistentModelID`: the object itself, compared with an identifier
        }
        let root = type(of: keyPath).rootType
        guard root is any PersistentModel.Type else {
            return .failure(
                CdQueryError(
                    .unsupportedExpression, part: "\(keyPath)",
                    message: "a member of \(root) in a #Predicate has no store equivalent; the store runs comparisons, "
                        + "contains, starts(with:), isEmpty and a to-many's count (docs/SWIFTDATA.md)"))
        }
        return .failure(
            CdQueryError(
                .unresolvedKeyPath, part: "\(keyPath)",
                message: "\(keyPath) is not a persisted property of \(type(of: keyPath).rootType) "
                    + "(computed and @Transient properties are not stored, so the store cannot query them)"))
    }

    /// The error for a transformable attribute in a predicate: the store holds the transformer's
    /// bytes (TC1, TC4), which compare with nothing a predicate states.
    private static func transformableRefusal(_ keyPath: AnyKeyPath) -> CdQueryError {
        CdQueryError(
            .unsupportedExpression, part: "\(keyPath)",
            message: "\(keyPath) is a transformable attribute: the store holds the bytes its transformer makes, so "
                + "it cannot be compared in the store; filter the fetched models in Swift")
    }

    /// `\T.persistentModelID`.
    private static func identityKeyPath<T: PersistentModel>(_: T.Type) -> AnyKeyPath { \T.persistentModelID }

    /// A captured model or identifier as an object reference.
    static func captured(_ value: Any) -> CdPredicateExpression? {
        // The identifier first: a cast to a struct type is a type comparison, where the cast to a
        // class existential below tries a bridge for a value that is no object.
        if let identifier = value as? PersistentIdentifier {
            return .object(PredicateObjectID(identifier.objectID.predicateIdentity))
        }
        if let model = value as? any PersistentModel, let id = model.storage?.objectID {
            return .object(PredicateObjectID(id.predicateIdentity))
        }
        return nil
    }

    /// This module's own predicate nodes, and the members of strings and to-many relationships
    /// that have a store form (`isEmpty`, a to-many's `count`).
    static func frontEndNode(_ node: Any, _ translation: StoreTranslation) throws -> StoreNode? {
        if let member = node as? any KeyPathNode { return try collectionMember(member, translation) }
        guard let contains = node as? any LocalizedStandardContainsNode else { return nil }
        let base = try translation.expression(contains.baseNode)
        let other = try translation.expression(contains.otherNode)
        return .predicate(
            .comparison(
                PredicateComparison(base, .contains, other, options: [.caseInsensitive, .diacriticInsensitive])))
    }

    /// `$0.books.count` (@count), `$0.books.isEmpty` (@count == 0) and `$0.name.isEmpty`
    /// (`name == ""`); nil for other key paths, which the translation names as properties.
    private static func collectionMember(_ node: any KeyPathNode, _ translation: StoreTranslation) throws -> StoreNode?
    {
        let keyPath = node.anyKeyPath
        let root = type(of: keyPath).rootType
        if let many = root as? any ModelArray.Type {
            let count = CdPredicateExpression.function(.count, try translation.expression(node.rootNode))
            if keyPath == many.countKeyPath { return .expression(count) }
            if keyPath == many.isEmptyKeyPath {
                return .predicate(.comparison(PredicateComparison(count, .equal, .constant(.integer(0)))))
            }
            return nil
        }
        if root == String.self, keyPath == \String.isEmpty {
            let text = try translation.expression(node.rootNode)
            return .predicate(.comparison(PredicateComparison(text, .equal, .constant(.string("")))))
        }
        return nil
    }
}

/// A `#Predicate` key path node, read without its generic parameters.
protocol KeyPathNode {
    var rootNode: Any { get }
    var anyKeyPath: AnyKeyPath { get }
}

extension PredicateExpressions.KeyPath: KeyPathNode {
    var rootNode: Any { root }
    var anyKeyPath: AnyKeyPath { keyPath }
}
