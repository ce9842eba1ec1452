// The error of the value-type layer: a value that does not fit its entity, an object that is not
// there, a transformer that is not registered. Each names the struct, the property (when one is
// at fault) and the entity.

import Foundation

/// Why a value could not be boxed, unboxed, saved, deleted or derived into a model.
///
/// ```swift
/// do { try shop.save() } catch let error as CdValueError {
///     print(error.kind, error.structName, error.property ?? "-", error.entity)
/// }
/// ```
public struct CdValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// The model has no entity named the struct's `entityName`.
        case unknownEntity
        /// The struct has a property that is not an attribute or relationship of the entity.
        case unknownProperty
        /// A required attribute has no value (nil, or never given for a new object).
        case missingRequiredAttribute
        /// A property's Swift type does not fit the attribute or relationship it maps onto.
        case typeMismatch
        /// A transformable attribute names a transformer that is not registered.
        case unknownTransformer
        /// The object is of another entity than the struct's.
        case entityMismatch
        /// `delete()` of a persistent value that was never saved (its `objectID` is nil).
        case notSaved
        /// The value's `objectID` names an object that does not exist (any more).
        case notFound
        /// The struct's Codable conformance has a shape that cannot map onto an entity (a top
        /// level that is not keyed, nested containers, a type the model cannot be derived for).
        case unsupportedShape
    }

    /// What went wrong.
    public let kind: Kind
    /// The Swift type of the value.
    public let structName: String
    /// The property (coding key) at fault, if one is.
    public let property: String?
    /// The entity the value maps onto.
    public let entity: String
    /// A sentence saying what happened and what to do.
    public let message: String

    public init(_ kind: Kind, structName: String, property: String? = nil, entity: String, message: String) {
        self.kind = kind
        self.structName = structName
        self.property = property
        self.entity = entity
        self.message = message
    }

    public var description: String {
        let at = property.map { "\(structName).\($0)" } ?? structName
        return "CdValueError.\(kind.rawValue) (\(at) → entity \(entity)): \(message)"
    }
}
