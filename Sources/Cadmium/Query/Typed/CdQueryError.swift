// The error of the typed query forms: a key path that names no stored property, or a part of a
// Foundation `#Predicate` that the store cannot run. Built while the request is being shaped and
// thrown by its terminals (`fetch`, `count`, …), as a format string's parse error is.

import Foundation

/// A typed query that cannot run in the store.
///
/// ```swift
/// do { _ = try Cd.objects(Employee.self).filter(#Predicate { $0.name.count > 3 }).fetch() }
/// catch let error as CdQueryError { print(error.kind, error.part) }   // .unsupportedExpression
/// ```
public struct CdQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// A key path that does not lead through stored properties (`@Attribute`,
        /// `@Relationship`, or a value type's stored property) only.
        case unresolvedKeyPath
        /// A part of a `#Predicate` with no store equivalent (a method call, an arithmetic
        /// operator, a conditional, …).
        case unsupportedExpression
        /// A typed aggregate whose result does not fit the attribute's Swift type (the sum of
        /// `Int16` values above `Int16.max`).
        case resultOutOfRange
    }

    /// What went wrong.
    public let kind: Kind
    /// The key path or the expression type, as written or as Foundation names it.
    public let part: String
    /// A sentence for humans, saying what to write instead.
    public let message: String

    /// An error of `kind` about `part`.
    public init(_ kind: Kind, part: String, message: String) {
        self.kind = kind
        self.part = part
        self.message = message
    }

    public var description: String { "\(kind.rawValue) (\(part)): \(message)" }
}
