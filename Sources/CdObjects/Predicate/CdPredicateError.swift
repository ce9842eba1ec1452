// The one error type of the predicate layer. Everything a caller can get wrong — the format
// string, its arguments, substitution variables, key paths the schema does not know, values that
// cannot be compared — is reported as a `CdPredicateError` with a kind a test can match on, a
// message a person can act on, and for syntax errors the character offset in the format string.

/// A failure to parse, bind, validate or evaluate a predicate.
///
/// ```swift
/// do { _ = try CdPredicate(format: "age > ") }
/// catch let error as CdPredicateError { print(error) } // "expected an expression at offset 6"
/// ```
public struct CdPredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, stable for tests and callers that branch on it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The format string is not valid syntax; `offset` says where.
        case syntax
        /// The format string has more `%` specifiers than arguments were passed.
        case missingArgument
        /// More arguments were passed than the format string consumes.
        case extraArgument
        /// An argument's Swift type cannot become a predicate value, or does not fit its specifier
        /// (`%K` with a non-string, `%d` with a string).
        case unsupportedArgument
        /// A `$VARIABLE` had no value at substitution or evaluation time.
        case unknownVariable
        /// A key path names a key the entity does not have (validation or evaluation).
        case unknownKey
        /// Two operands whose types cannot be compared, or an operator applied to the wrong type.
        case typeMismatch
        /// A `MATCHES` pattern is not a valid ICU regular expression.
        case invalidRegex
    }

    /// What went wrong.
    public let kind: Kind
    /// A sentence describing the failure.
    public let message: String
    /// For `.syntax`, the character offset (0-based, in `Character`s) in the format string.
    public let offset: Int?

    /// An error of `kind`; `offset` only for syntax errors.
    public init(_ kind: Kind, _ message: String, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }

    public var description: String { message }

    static func syntax(_ expected: String, at offset: Int) -> CdPredicateError {
        CdPredicateError(.syntax, "expected \(expected) at offset \(offset)", offset: offset)
    }
}
