// The predicate AST. It is the contract between the parser (which builds it), the evaluator
// (which runs it over objects), the validator (which types it against a schema) and, later, the
// query planner, which pattern-matches it to use indexes for `key == c`, `key IN {…}`, ranges and
// `BEGINSWITH`. So the shape is deliberately plain and public:
//
//   CdPredicate           ::= true/false | comparison | and | or | not
//   PredicateComparison   ::= [quantifier] left op [options] right
//   CdPredicateExpression ::= constant | object | aggregate {…} | key path | $variable | SELF
//                         | @count/@sum/… of an expression | SUBQUERY(…)
//
// Invariants the parser keeps, and that hand-built ASTs must keep for `description` to round-trip:
//   CP1. `.keyPath(_, keys)` has at least one key, and no key is empty.
//   CP2. `NONE` is represented as `.not(.comparison(quantifier: .any))`, `SOME` as `.any`.
//   CP3. `BETWEEN` has an `.aggregate` of exactly two elements (or a two-element constant
//        collection from an argument, which the parser turns into the same `.aggregate`).

import Foundation

/// A parsed NSPredicate-format predicate.
///
/// ```swift
/// let p = try CdPredicate(format: "department.name == %@ AND age > %d", "R&D", 30)
/// let hit = try p.evaluate(with: person)
/// print(p) // department.name == "R&D" AND age > 30
/// ```
public indirect enum CdPredicate: Sendable, Hashable, CustomStringConvertible {
    /// `TRUEPREDICATE` (`true`) or `FALSEPREDICATE` (`false`).
    case constant(Bool)
    /// A comparison between two expressions.
    case comparison(PredicateComparison)
    /// `left AND right`.
    case and(CdPredicate, CdPredicate)
    /// `left OR right`.
    case or(CdPredicate, CdPredicate)
    /// `NOT p`.
    case not(CdPredicate)
}

/// `left op right`, optionally quantified (`ANY`, `ALL`) and with string options (`[cd]`).
public struct PredicateComparison: Sendable, Hashable {
    public var quantifier: PredicateQuantifier
    public var left: CdPredicateExpression
    public var op: PredicateOperator
    public var options: PredicateStringOptions
    public var right: CdPredicateExpression

    /// A comparison; `quantifier` and `options` default to none.
    ///
    /// ```swift
    /// let c = PredicateComparison(.key("name"), .beginsWith, .constant(.string("A")), options: .caseInsensitive)
    /// ```
    public init(
        _ left: CdPredicateExpression, _ op: PredicateOperator, _ right: CdPredicateExpression,
        quantifier: PredicateQuantifier = .direct, options: PredicateStringOptions = []
    ) {
        self.quantifier = quantifier
        self.left = left
        self.op = op
        self.options = options
        self.right = right
    }
}

/// How a comparison treats a collection on its left side.
public enum PredicateQuantifier: String, Sendable, Hashable {
    /// No quantifier: the left side is compared as one value.
    case direct = ""
    /// `ANY` / `SOME`: true if the comparison holds for at least one element.
    case any = "ANY"
    /// `ALL`: true if the comparison holds for every element (vacuously true when empty).
    case all = "ALL"
}

/// The comparison operators of the format language.
/// The raw value is the canonical spelling `description` prints.
public enum PredicateOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"
    case `in` = "IN"
    case between = "BETWEEN"

    /// Operators that take `[c]`, `[d]` and `[cd]` options.
    public var acceptsStringOptions: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between: return false
        default: return true
        }
    }
}

/// The `[c]`, `[d]` and `[n]` options of a string comparison.
public struct PredicateStringOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `[c]`: case-insensitive.
    public static let caseInsensitive = PredicateStringOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    public static let diacriticInsensitive = PredicateStringOptions(rawValue: 2)
    /// `[n]`: the operands are already normalized; accepted and has no effect on results.
    public static let normalized = PredicateStringOptions(rawValue: 4)
}

/// One side of a comparison.
public indirect enum CdPredicateExpression: Sendable, Hashable {
    /// A literal or argument value.
    case constant(CdValue)
    /// An object passed as an argument (`department == %@`), compared by identity.
    case object(PredicateObjectID)
    /// An array literal `{1, 2, 3}` or a collection argument (`IN %@`).
    case aggregate([CdPredicateExpression])
    /// `SELF`: the object being evaluated.
    case evaluatedObject
    /// `$NAME`: bound by `withSubstitutionVariables`, by a `SUBQUERY`, or at evaluation.
    case variable(String)
    /// A key path read from `base` (`.evaluatedObject` for a plain `name.first`).
    case keyPath(CdPredicateExpression, [String])
    /// `@count`, `@sum`, `@avg`, `@min`, `@max` of a to-many key path, collection or subquery.
    case function(PredicateAggregateFunction, CdPredicateExpression)
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of `collection` for which
    /// `predicate` holds with `$variable` bound to the element.
    case subquery(collection: CdPredicateExpression, variable: String, predicate: CdPredicate)

    /// A key path on the evaluated object: `.key("department.name")`.
    public static func key(_ path: String) -> CdPredicateExpression {
        .keyPath(.evaluatedObject, path.split(separator: ".").map(String.init))
    }
}

/// The collection operators usable in key paths.
/// The raw value is the spelling in format text.
public enum PredicateAggregateFunction: String, Sendable, Hashable, CaseIterable {
    case count = "@count"
    case sum = "@sum"
    case avg = "@avg"
    case min = "@min"
    case max = "@max"
}
