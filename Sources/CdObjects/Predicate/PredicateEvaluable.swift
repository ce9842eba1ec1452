// The object side of the predicate layer: what the evaluator needs from a record, and how an
// object passed as an argument is remembered in the AST. The record layer adopts these protocols;
// nothing here knows about entities, contexts or stores.

import Foundation

/// An object that can be passed as a predicate argument (`department == %@`) and is compared by
/// identity. Identities must be stable and hashable (an object ID, not a memory address).
public protocol PredicateObjectReference {
    /// The identity two references are compared by.
    var predicateIdentity: AnyHashable { get }
}

/// An object a predicate can be evaluated against: it answers key lookups.
///
/// ```swift
/// struct Person: PredicateEvaluable {
///     var id: Int, name: String
///     var predicateIdentity: AnyHashable { id }
///     func predicateValue(forKey key: String) throws -> PredicateValue {
///         switch key {
///         case "name": return .value(.string(name))
///         default: throw CdPredicateError(.unknownKey, "Person has no key '\(key)'")
///         }
///     }
/// }
/// ```
public protocol PredicateEvaluable: PredicateObjectReference {
    /// The value of `key`: an attribute, a to-one relationship, or a to-many relationship.
    /// Throw `CdPredicateError(.unknownKey, …)` for a key the object does not have.
    func predicateValue(forKey key: String) throws -> PredicateValue
}

/// What an object answers for a key.
public enum PredicateValue {
    /// An attribute value (`.value(.null)` for a nil attribute).
    case value(CdValue)
    /// A to-one relationship; `nil` when unset.
    case object((any PredicateEvaluable)?)
    /// A to-many relationship, or any collection of values.
    case collection([PredicateValue])
}

/// The identity of an object argument as stored in the AST. Hashable and Sendable so that the
/// AST stays a value; it is itself a `PredicateObjectReference`, so a predicate's object arguments
/// can be passed again to re-parse its `description` (see `CdPredicate.objectArguments`).
public struct PredicateObjectID: Hashable, @unchecked Sendable, PredicateObjectReference, CustomStringConvertible {
    // @unchecked: identities are value types (IDs, integers, strings) by the protocol's contract.
    public let identity: AnyHashable
    public init(_ identity: AnyHashable) { self.identity = identity }
    public var predicateIdentity: AnyHashable { identity }
    public var description: String { "object(\(identity))" }
}
