// Foundation's `#Predicate` → the store's `CdPredicate`. The macro builds a tree of
// `PredicateExpressions` values; each supported node type conforms to `StorePredicateNode` and
// translates itself, its children found by a dynamic cast. What the store can run: key paths of
// stored properties (through to-ones, `?.` included), constants (RawRepresentable enums as their
// raw values), `nil`, `== != < <= > >=`,
// `&& || !`, `starts(with:)` (BEGINSWITH), `contains(_:)` on a string (CONTAINS), on a constant
// collection (IN) or a range (BETWEEN), `count` of a to-many (@count), `contains(where:)` /
// `allSatisfy` on a to-many (ANY / ALL, or SUBQUERY), and `??` where its value is a condition
// (`$0.author?.name.starts(with: x) ?? false`) or one side of a comparison or string function
// (`($0.shelf?.label ?? "none") == x`). Anything else (arithmetic, conditionals, method calls the
// store has no operator for) is a `CdQueryError` of kind `unsupportedExpression` naming the
// node's type: never evaluated in memory instead.
//
// Invariant:
//  FT1. `a ?? d` means what Swift says whatever the store does with a missing value: it is
//       translated as `(a is not nil AND <a's use>) OR (a is nil AND <d's use>)`, where "a is
//       nil" is `a == nil` on the optional the chain reads (a key path through a nil to-one reads
//       nil), so a condition the store would answer on a missing value never decides it.

import Foundation
import CdObjects

/// One translated node: a predicate, or an expression one side of a comparison.
package enum StoreNode {
    case predicate(CdPredicate)
    case expression(CdPredicateExpression)
}

/// What the variables of a `#Predicate` stand for while its tree is translated.
package struct StoreTranslation {
    /// The root variable is `SELF`; a `?.` variable stands for the optional it unwraps; a
    /// closure's element variable is `SELF` of the member predicate it is translated into.
    var bindings: [PredicateExpressions.VariableID: CdPredicateExpression] = [:]
    /// The property names of one key path node (`\Employee.name` → ["name"]); managed objects
    /// and value types by default, a front end with its own model classes supplies its own.
    var keyPathNames: (AnyKeyPath) -> Result<[String], CdQueryError> = CdKeyPathNames.resolve
    /// The store form of a captured value that is not a scalar (a front end's model object, as
    /// `.object`), nil when it has none; consulted before the scalar conversions.
    var capturedValue: (Any) -> CdPredicateExpression? = { _ in nil }
    /// The translation of a node type a front end defines (such as a function Foundation lacks
    /// on this platform), nil for other nodes; consulted before the built-in node types.
    var frontEndNode: (Any, StoreTranslation) throws -> StoreNode? = { _, _ in nil }

    /// A translation with the default key path and value conversions.
    init() {}

    /// A translation for a front end: `keyPathNames` names the properties of its key paths,
    /// `capturedValue` converts its captured objects, and `frontEndNode` translates its own
    /// expression node types.
    package init(
        keyPathNames: @escaping (AnyKeyPath) -> Result<[String], CdQueryError>,
        capturedValue: @escaping (Any) -> CdPredicateExpression?,
        frontEndNode: @escaping (Any, StoreTranslation) throws -> StoreNode?
    ) {
        self.keyPathNames = keyPathNames
        self.capturedValue = capturedValue
        self.frontEndNode = frontEndNode
    }

    /// The store's form of `predicate` (its variable bound to `SELF`); a part with no store
    /// equivalent throws a `CdQueryError` naming it.
    package func translate<Root>(_ predicate: Predicate<Root>) throws(CdQueryError) -> CdPredicate {
        var translation = self
        translation.bindings[predicate.variable.key] = .evaluatedObject
        do { return try translation.predicate(predicate.expression) } catch let error as CdQueryError {
            throw error
        } catch {
            throw CdQueryError(.unsupportedExpression, part: "\(predicate)", message: "\(error)")
        }
    }

    /// The translation of `node`, which must be a supported node type.
    package func translate(_ node: Any) throws -> StoreNode {
        if let translated = try frontEndNode(node, self) { return translated }
        guard let supported = node as? any StorePredicateNode else { throw Self.unsupported(node) }
        return try supported.storeNode(self)
    }

    /// `node` as a predicate (a Boolean key path `\.active` becomes `active == true`).
    package func predicate(_ node: Any) throws -> CdPredicate { condition(try translate(node)) }

    /// `node` as an expression.
    package func expression(_ node: Any) throws -> CdPredicateExpression {
        switch try translate(node) {
        case let .expression(e): return e
        case .predicate: throw Self.unsupported(node, "a condition used as a value")
        }
    }

    /// A translated node as a condition (a Boolean value `v` becomes `v == true`).
    private func condition(_ node: StoreNode) -> CdPredicate {
        switch node {
        case let .predicate(p): return p
        case let .expression(e): return .comparison(PredicateComparison(e, .equal, .constant(.bool(true))))
        }
    }

    /// The error for a node the store cannot run.
    package static func unsupported(_ node: Any, _ why: String = "no store equivalent") -> CdQueryError {
        let part = String(describing: type(of: node))
        return CdQueryError(
            .unsupportedExpression, part: part,
            message: "\(part) in a #Predicate has \(why); write it with the operators and functions the store "
                + "runs (docs/QUERIES.md), or filter the fetched objects in Swift")
    }

    /// `left op right`; a `??` on either side is taken apart (FT1).
    func comparison(_ left: Any, _ op: PredicateOperator, _ right: Any) throws -> StoreNode {
        if let coalesced = left as? any NilCoalesceNode {
            return .predicate(
                try coalesced.choice(self) { try condition(comparison($0, op, right)) })
        }
        if let coalesced = right as? any NilCoalesceNode {
            return .predicate(
                try coalesced.choice(self) { try condition(comparison(left, op, $0)) })
        }
        let l = try expression(left), r = try expression(right)
        // A collection constant is a set of values for IN only: `$0.tags == ["a"]` compares a
        // whole Swift array, which no store operator does.
        if op != .in, case .aggregate = r { throw Self.unsupported(right, "no store equivalent as a compared value") }
        if case .aggregate = l { throw Self.unsupported(left, "no store equivalent as a compared value") }
        return .predicate(.comparison(PredicateComparison(l, op, r)))
    }
}

/// A `PredicateExpressions` node the store can run.
protocol StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode
}

extension CdTypedPredicate {
    /// The store's form of a Foundation predicate; a part with no store equivalent is kept as a
    /// `CdQueryError` naming it.
    ///
    /// ```swift
    /// let p = CdTypedPredicate(#Predicate<Employee> { $0.salary > 100_000 })
    /// ```
    public init(_ predicate: Predicate<Root>) {
        self.init(Result { () throws(CdQueryError) in try StoreTranslation().translate(predicate) })
    }
}

// MARK: - Leaves

extension PredicateExpressions.Variable: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        guard let bound = translation.bindings[key] else {
            throw StoreTranslation.unsupported(self, "an unbound variable")
        }
        return .expression(bound)
    }
}

extension PredicateExpressions.Value: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        if let captured = translation.capturedValue(value) { return .expression(captured) }
        if let attribute = value as? any CdAttributeValue { return .expression(.constant(attribute.cdValue)) }
        // A RawRepresentable enum (`$0.type == sedan`) or another fixed-width number, as stored.
        if let optional = value as? any OptionalOutput, optional.isNone { return .expression(.constant(.null)) }
        if let stored = ValueTypes.storeValue(of: value) { return .expression(.constant(stored)) }
        if let values = value as? any Sequence {
            var items: [CdPredicateExpression] = []
            for item in values {
                guard let attribute = item as? any CdAttributeValue else {
                    throw StoreTranslation.unsupported(self, "an element of type \(type(of: item)) with no stored form")
                }
                items.append(.constant(attribute.cdValue))
            }
            return .expression(.aggregate(items))
        }
        throw StoreTranslation.unsupported(self, "a value of type \(Output.self) with no stored form")
    }
}

extension PredicateExpressions.NilLiteral: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode { .expression(.constant(.null)) }
}

extension PredicateExpressions.KeyPath: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        let base = try translation.expression(root)
        if let many = Root.Output.self as? any ToManyCount.Type, keyPath == many.countKeyPath {
            return .expression(.function(.count, base))  // `$0.employees.count`
        }
        let names = try translation.keyPathNames(keyPath).get()
        // No names: a front end's identity key path (`$0.persistentModelID`), the object itself.
        if names.isEmpty { return .expression(base) }
        switch base {
        case let .keyPath(inner, keys): return .expression(.keyPath(inner, keys + names))
        default: return .expression(.keyPath(base, names))
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode { try translation.translate(inner) }
}

extension PredicateExpressions.OptionalFlatMap: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        // `$0.department?.name`: the transform reads the unwrapped value; a missing value reads
        // as nil in the store's key paths, as it does for `?.`.
        var inner = translation
        inner.bindings[variable.key] = try translation.expression(wrapped)
        return try inner.translate(transform)
    }
}

// MARK: - Nil coalescing (FT1)

/// `a ?? d`, read without its generic parameters.
protocol NilCoalesceNode {
    var optionalNode: Any { get }
    var fallbackNode: Any { get }
}

extension NilCoalesceNode {
    /// `(a is not nil AND use(a)) OR (a is nil AND use(d))` (FT1).
    func choice(_ t: StoreTranslation, _ use: (Any) throws -> CdPredicate) throws -> CdPredicate {
        let isNil = try PredicateExpressions.nilTest(t, optionalNode)
        return .or(.and(.not(isNil), try use(optionalNode)), .and(isNil, try use(fallbackNode)))
    }
}

extension PredicateExpressions.NilCoalesce: NilCoalesceNode, StorePredicateNode {
    var optionalNode: Any { lhs }
    var fallbackNode: Any { rhs }

    /// A condition `a ?? d` (`$0.author?.name.starts(with: x) ?? false`); a value of another type
    /// is taken apart by the comparison or function it is an operand of.
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        guard RHS.Output.self == Bool.self else {
            throw StoreTranslation.unsupported(
                self, "no store equivalent outside a comparison; compare it with a value (`(a ?? d) == v`)")
        }
        guard case let .expression(.constant(.bool(fallback))) = try translation.translate(rhs) else {
            return .predicate(try choice(translation) { try translation.predicate($0) })
        }
        // A constant fallback: the choice with its constant side folded away.
        let isNil = try PredicateExpressions.nilTest(translation, lhs)
        let value = try translation.predicate(lhs)
        return .predicate(fallback ? .or(isNil, value) : .and(.not(isNil), value))
    }
}

/// `?.` (`flatMap`), read without its generic parameters.
protocol OptionalChainNode {
    /// The condition that the chain gives nil (FT1).
    func nilTest(_ t: StoreTranslation) throws -> CdPredicate
}

extension PredicateExpressions.OptionalFlatMap: OptionalChainNode {
    /// Nil when what it unwraps is nil, or, for a body that is itself optional (a nested
    /// `flatMap`, as a multi-binding `if let` expands to), when the body gives nil.
    func nilTest(_ t: StoreTranslation) throws -> CdPredicate {
        let outer = try PredicateExpressions.nilTest(t, wrapped)
        guard RHS.Output.self is any OptionalOutput.Type else { return outer }
        var inner = t
        inner.bindings[variable.key] = try t.expression(wrapped)
        return .or(outer, try PredicateExpressions.nilTest(inner, transform))
    }
}

extension PredicateExpressions {
    /// The condition that `node`, an optional, is nil (FT1): for a `?.` chain, that what it
    /// unwraps is nil or its optional body gives nil (not the store's answer for the body's value
    /// on a missing object, which may be a count of 0 or a condition); else `node == nil` on the
    /// value it reads.
    static func nilTest(_ t: StoreTranslation, _ node: Any) throws -> CdPredicate {
        if let chain = node as? any OptionalChainNode { return try chain.nilTest(t) }
        return .comparison(PredicateComparison(try t.expression(node), .equal, .constant(.null)))
    }
}

// MARK: - Comparisons

extension PredicateExpressions.Equal: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        try Self.condition(translation, lhs, rhs, negated: false, optional: LHS.Output.self is any OptionalOutput.Type)
            ?? translation.comparison(lhs, .equal, rhs)
    }

    /// `condition == true/false` (what `?.starts(with:) == true` gives) as the condition itself.
    /// When the condition is an optional chain (`Bool?`), nil is neither true nor false in
    /// Swift, but a store condition on a missing value is false and its `NOT` true: only the
    /// forms that agree on nil (`== true`, `!= true`) are translated, the others are refused.
    static func condition(
        _ t: StoreTranslation, _ lhs: Any, _ rhs: Any, negated: Bool, optional: Bool
    ) throws -> StoreNode? {
        guard case let .predicate(p) = try? t.translate(lhs),
            case let .expression(.constant(.bool(b))) = try t.translate(rhs)
        else { return nil }
        if optional, !b {
            throw StoreTranslation.unsupported(
                lhs, "no store equivalent compared with false (nil is not false in Swift); write `!= true` or `== true`"
            )
        }
        return .predicate(b != negated ? p : .not(p))
    }
}

extension PredicateExpressions.NotEqual: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        try PredicateExpressions.Equal<LHS, RHS>.condition(
            translation, lhs, rhs, negated: true, optional: LHS.Output.self is any OptionalOutput.Type)
            ?? translation.comparison(lhs, .notEqual, rhs)
    }
}

/// `Optional`, recognised through its type: a node whose output may be nil.
protocol OptionalOutput {
    /// Whether this optional holds no value.
    var isNone: Bool { get }
}

extension Optional: OptionalOutput {
    var isNone: Bool { self == nil }
}

extension PredicateExpressions.Comparison: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        let mapped: PredicateOperator
        switch op {
        case .lessThan: mapped = .lessThan
        case .lessThanOrEqual: mapped = .lessThanOrEqual
        case .greaterThan: mapped = .greaterThan
        case .greaterThanOrEqual: mapped = .greaterThanOrEqual
        @unknown default: throw StoreTranslation.unsupported(self, "an unknown operator")
        }
        return try translation.comparison(lhs, mapped, rhs)
    }
}

// MARK: - Logic

extension PredicateExpressions.Conjunction: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        .predicate(.and(try translation.predicate(lhs), try translation.predicate(rhs)))
    }
}

extension PredicateExpressions.Disjunction: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        .predicate(.or(try translation.predicate(lhs), try translation.predicate(rhs)))
    }
}

extension PredicateExpressions.Negation: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        .predicate(.not(try translation.predicate(wrapped)))
    }
}

// MARK: - Strings, membership, ranges

extension PredicateExpressions.SequenceStartsWith: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        try translation.comparison(base, .beginsWith, prefix)
    }
}

extension PredicateExpressions.CollectionContainsCollection: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        try translation.comparison(base, .contains, other)
    }
}

extension PredicateExpressions.SequenceContains: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        // `["Ann", "Bob"].contains($0.name)`: name IN {…}.
        try translation.comparison(element, .in, sequence)
    }
}

extension PredicateExpressions.RangeExpressionContains: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        let value = try translation.expression(element)
        if let closed = range as? any ClosedRangeNode {
            let bounds = try closed.bounds(translation)
            return .predicate(.comparison(PredicateComparison(value, .between, .aggregate([bounds.0, bounds.1]))))
        }
        if let open = range as? any HalfOpenRangeNode {
            let bounds = try open.bounds(translation)
            return .predicate(
                .and(
                    .comparison(PredicateComparison(value, .greaterThanOrEqual, bounds.0)),
                    .comparison(PredicateComparison(value, .lessThan, bounds.1))))
        }
        throw StoreTranslation.unsupported(range, "no store equivalent as a range")
    }
}

/// `lower...upper` in a `#Predicate`.
protocol ClosedRangeNode {
    func bounds(_ translation: StoreTranslation) throws -> (CdPredicateExpression, CdPredicateExpression)
}

/// `lower..<upper` in a `#Predicate`.
protocol HalfOpenRangeNode {
    func bounds(_ translation: StoreTranslation) throws -> (CdPredicateExpression, CdPredicateExpression)
}

extension PredicateExpressions.ClosedRange: ClosedRangeNode {
    func bounds(_ translation: StoreTranslation) throws -> (CdPredicateExpression, CdPredicateExpression) {
        (try translation.expression(lower), try translation.expression(upper))
    }
}

extension PredicateExpressions.Range: HalfOpenRangeNode {
    func bounds(_ translation: StoreTranslation) throws -> (CdPredicateExpression, CdPredicateExpression) {
        (try translation.expression(lower), try translation.expression(upper))
    }
}

// MARK: - To-many quantifiers

extension PredicateExpressions.SequenceContainsWhere: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        try Self.quantified(translation, sequence, variable.key, test, .any)
    }

    /// `quantifier` of `test` (with `variable` as the member) over the to-many `sequence`.
    static func quantified(
        _ translation: StoreTranslation, _ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any,
        _ quantifier: PredicateQuantifier
    ) throws -> StoreNode {
        guard case let .keyPath(.evaluatedObject, many) = try translation.expression(sequence) else {
            throw StoreTranslation.unsupported(sequence, "no store equivalent as a to-many of the object")
        }
        var member = translation
        member.bindings = [variable: .evaluatedObject]
        let inner = try member.predicate(test)
        return .predicate(MemberPredicates.quantify(inner, over: many, quantifier))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: StorePredicateNode {
    func storeNode(_ translation: StoreTranslation) throws -> StoreNode {
        try PredicateExpressions.SequenceContainsWhere<LHS, RHS>.quantified(
            translation, sequence, variable.key, test, .all)
    }
}

/// A to-many whose `count` a `#Predicate` may read (`$0.employees.count` → `employees.@count`).
protocol ToManyCount {
    static var countKeyPath: AnyKeyPath { get }
}

extension Set: ToManyCount where Element: CdManagedObject {
    static var countKeyPath: AnyKeyPath { setCountKeyPath(Element.self) }
}

extension Array: ToManyCount where Element: CdManagedObject {
    static var countKeyPath: AnyKeyPath { arrayCountKeyPath(Element.self) }
}

/// `\Set<Element>.count`, built outside the conditional extension (where the compiler cannot
/// emit it).
private func setCountKeyPath<Element: Hashable>(_: Element.Type) -> AnyKeyPath { \Set<Element>.count }

/// `\Array<Element>.count`.
private func arrayCountKeyPath<Element>(_: Element.Type) -> AnyKeyPath { \[Element].count }
