// The errors of the SwiftData layer. SwiftData's own `SwiftDataError` is a struct with static
// members compared with `==` (`catch SwiftDataError.unsupportedPredicate`); this one has the same
// shape, plus a message that names what went wrong and where.

internal import CdObjects

/// An error of a SwiftData operation.
///
/// ```swift
/// do { _ = try context.fetch(descriptor) }
/// catch let error as SwiftDataError where error == .unsupportedPredicate { print(error) }
/// ```
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of error this is; two errors are equal when their codes are.
    public struct Code: Hashable, Sendable {
        let name: String
    }

    /// The error's kind.
    public let code: Code
    /// What went wrong, naming the expression, property, model or file concerned.
    public let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "SwiftDataError.\(code.name): \(message)" }

    /// A part of a `#Predicate` the store cannot run (named in the message); the query is not
    /// run in memory instead.
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate, "")
    /// A key path that names no persisted property.
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath, "")
    /// A sort the store cannot run.
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor, "")
    /// The container's file could not be opened or does not match the schema.
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer, "")
    /// A save broke a rule of the schema (a required value, a count, a deny delete rule, …).
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure, "")
    /// The model is not in a context (or not in this one).
    public static let missingModelContext = SwiftDataError(.missingModelContext, "")
    /// A schema that cannot be stored (an unsupported property type, a bad inverse, …).
    public static let unknownSchema = SwiftDataError(.unknownSchema, "")
    /// A property value that has no stored form, or a stored value that does not fit.
    public static let unsupportedValue = SwiftDataError(.unsupportedValue, "")
    /// Two configurations with the same name or file.
    public static let duplicateConfiguration = SwiftDataError(.duplicateConfiguration, "")
    /// A save on a container whose configuration has `allowsSave: false`.
    public static let saveNotAllowed = SwiftDataError(.saveNotAllowed, "")
    /// An `enumerate` block left the context with unsaved changes, without
    /// `allowEscapingMutations: true`.
    public static let escapingMutations = SwiftDataError(.escapingMutations, "")
    /// A history fetch whose token bound is older than the history the store keeps (deleted
    /// since), or of another history (the store was migrated, or it is another store's token).
    public static let historyTokenExpired = SwiftDataError(.historyTokenExpired, "")
    /// A history fetch or delete this store cannot run: a transaction type of a custom store, or
    /// a `deleteHistory` selection that is not the oldest transactions up to a token.
    public static let invalidTransactionFetchRequest = SwiftDataError(.invalidTransactionFetchRequest, "")
}

extension SwiftDataError.Code {
    static let unsupportedPredicate = Self(name: "unsupportedPredicate")
    static let unsupportedKeyPath = Self(name: "unsupportedKeyPath")
    static let unsupportedSortDescriptor = Self(name: "unsupportedSortDescriptor")
    static let loadIssueModelContainer = Self(name: "loadIssueModelContainer")
    static let modelValidationFailure = Self(name: "modelValidationFailure")
    static let missingModelContext = Self(name: "missingModelContext")
    static let unknownSchema = Self(name: "unknownSchema")
    static let unsupportedValue = Self(name: "unsupportedValue")
    static let duplicateConfiguration = Self(name: "duplicateConfiguration")
    static let saveNotAllowed = Self(name: "saveNotAllowed")
    static let escapingMutations = Self(name: "escapingMutations")
    static let historyTokenExpired = Self(name: "historyTokenExpired")
    static let invalidTransactionFetchRequest = Self(name: "invalidTransactionFetchRequest")
}

extension SwiftDataError {
    /// A store error as a SwiftData error: any error while opening, and an I/O or engine error
    /// later, as `loadIssueModelContainer`; a rule of the schema broken by a save (validation,
    /// uniqueness, counts, a deny delete rule) as `modelValidationFailure`. The message keeps the
    /// store's own description, which names the entity, object and property.
    static func store(_ error: any Error, opening: Bool = false) -> SwiftDataError {
        if let error = error as? SwiftDataError { return error }
        if opening { return SwiftDataError(.loadIssueModelContainer, "\(error)") }
        if let cd = error as? CdError, case .store = cd { return SwiftDataError(.loadIssueModelContainer, "\(cd)") }
        return SwiftDataError(.modelValidationFailure, "\(error)")
    }
}
