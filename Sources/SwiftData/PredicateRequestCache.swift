// Translated `#Predicate`s by shape. A fetch loop builds the same predicate again and again with
// other captured values (`#Predicate { $0.salary == salary }` for each salary); translating its
// Foundation tree each time walks it through existentials and names each key path. Here the tree
// is translated once per shape, with each captured value standing as a variable of the store's
// predicate, and each later fetch of that shape only lists the tree's leaves (PredicateLeaves.swift)
// and puts its values in place of the variables.
//
// Invariants:
//  PC1. A shape is the expression's type with its key paths and operators (PL2, PL3); an entry
//       is used only for a tree of that type whose key paths and operators are equal to the
//       entry's, so it differs from the tree the template was made of only in its values.
//  PC2. A template holds exactly one free variable per value leaf, `valueVariable(i)` for the
//       value at leaf position i, and nothing else of any value: each value is converted the
//       same way alone as inside the translation (`boundValue`), and a shape whose values do not
//       all have such a form (a Bool, which the translation may fold into a condition; nil; an
//       enum; a collection) is never cached, nor is one whose template lacks a variable.
//  PC3. The cache is bounded: at most `limit` shapes per expression type; more are translated
//       each time.
//  PC4. `walkers[type]` says, for an expression type, whether its trees list their leaves (the
//       conformance PL1 makes exact) and, when they do, lists them after a cast to that concrete
//       type, which is a type comparison where the conformance check of a conditional
//       conformance walks the whole type: one check per expression type, which a program has a
//       fixed number of.
//  PC5. A tree `persistentModelID == id` (or `id == persistentModelID`) of a captured identifier is
//       not walked nor bound: its type is recognised once (PC4's table), and each fetch reads the
//       identifier out of it, checks that its key path is the model's `persistentModelID`, and states
//       `SELF == id` at once, the form the translation gives it and the store reads by primary key
//       (FE2 of ModelContext+Fetch.swift). A tree of that type with another key path takes the path
//       above.

internal import Cadmium
internal import CdObjects
internal import CdStore
import Foundation

/// The store forms of the `#Predicate` shapes a container's contexts fetched with.
final class PredicateRequestCache: @unchecked Sendable {
    /// One translated shape (PC1).
    private struct Entry {
        let keyPaths: [AnyKeyPath]
        let operators: [Int]
        let template: CdPredicate
        /// The value leaf each of the template's variables stands for, by variable name (PC2).
        let leafOfVariable: [String: Int]

        /// The template with each variable replaced by the value of its leaf in `values`.
        func bind(_ values: [CdPredicateExpression]) -> CdPredicate {
            template.substituting { name in leafOfVariable[name].map { values[$0] } }
        }
    }

    /// Shapes per expression type (PC3).
    static let limit = 16

    /// Lists the leaves of a tree of one expression type; nil for a tree of another type (PC4).
    typealias LeafWalker = @Sendable (any StandardPredicateExpression<Bool>) -> [PredicateLeaf]?

    /// Reads the identifier out of a tree `persistentModelID == id` of one expression type; nil for
    /// a tree of another type or whose key path is not `persistentModelID` (PC5).
    typealias IdentifierReader = @Sendable (any StandardPredicateExpression<Bool>) -> PersistentIdentifier?

    /// What one expression type's trees are, found once per type (PC4, PC5).
    private struct TreeForm {
        /// The walker, nil when the type's trees do not list leaves.
        let walker: LeafWalker?
        /// The identifier reader, for the type of `persistentModelID == id` in either order.
        let identifier: IdentifierReader?
    }

    /// What is known per expression type.
    private struct Shapes {
        /// The form of each type seen (PC4, PC5).
        var forms: [ObjectIdentifier: TreeForm] = [:]
        /// The translated shapes of each type (PC1, PC3).
        var entries: [ObjectIdentifier: [Entry]] = [:]
    }

    private let shapes = LockedState(Shapes())

    /// The store form of `predicate`: from its shape's template when known, else translated
    /// (and its template kept when its shape allows one).
    func translate<T: PersistentModel>(_ predicate: Predicate<T>) throws -> CdPredicate {
        let type = ObjectIdentifier(Swift.type(of: predicate.expression))
        let (seenForm, known) = shapes.withLock { ($0.forms[type], $0.entries[type] ?? []) }
        let form = seenForm ?? self.form(of: predicate, type: type)
        if let read = form.identifier, let id = read(predicate.expression) {
            return Self.identityPredicate(id)  // keeps PC5
        }
        guard let leaves = form.walker?(predicate.expression) else {
            return try PredicateTranslation.translate(predicate)
        }
        var keyPaths: [AnyKeyPath] = []
        var operators: [Int] = []
        var values: [CdPredicateExpression] = []
        var cacheable = true
        for leaf in leaves {
            switch leaf {
            case let .keyPath(keyPath): keyPaths.append(keyPath)
            case let .comparison(code): operators.append(code)
            case let .value(value):
                if let bound = Self.boundValue(value) { values.append(bound) } else { cacheable = false }
            }
        }
        guard cacheable else { return try PredicateTranslation.translate(predicate) }
        if let entry = known.first(where: { $0.keyPaths == keyPaths && $0.operators == operators }) {
            return entry.bind(values)  // keeps PC1
        }
        guard let template = try Self.template(predicate, values) else {
            return try PredicateTranslation.translate(predicate)
        }
        let entry = Entry(
            keyPaths: keyPaths, operators: operators, template: template,
            leafOfVariable: Dictionary(uniqueKeysWithValues: values.indices.map { (Self.valueVariable($0), $0) }))
        shapes.withLock { shapes in
            var list = shapes.entries[type] ?? []
            guard list.count < Self.limit else { return }  // keeps PC3
            list.append(entry)
            shapes.entries[type] = list
        }
        return entry.bind(values)
    }

    /// The identifier `predicate` compares `persistentModelID` with, when that comparison is the
    /// whole predicate (PC5): the fetch by identifier a context reads without a request (FE3 of
    /// ModelContext+Fetch.swift). Nil for any other predicate.
    func identifier<T: PersistentModel>(in predicate: Predicate<T>) -> PersistentIdentifier? {
        let type = ObjectIdentifier(Swift.type(of: predicate.expression))
        let form = shapes.withLock { $0.forms[type] } ?? self.form(of: predicate, type: type)
        return form.identifier?(predicate.expression)
    }

    /// The form of `predicate`'s expression type, found and kept (keeps PC4).
    private func form<T: PersistentModel>(of predicate: Predicate<T>, type: ObjectIdentifier) -> TreeForm {
        let form = TreeForm(
            walker: Self.walker(for: predicate.expression), identifier: Self.identifierReader(predicate))
        shapes.withLock { $0.forms[type] = form }  // keeps PC4
        return form
    }

    /// The walker of `expression`'s type (PC4): nil when its trees do not list their leaves.
    private static func walker(for expression: any StandardPredicateExpression<Bool>) -> LeafWalker? {
        guard let tree = expression as? any PredicateLeaves else { return nil }
        func walker<Tree: PredicateLeaves>(_: Tree) -> LeafWalker {
            { expression in
                guard let tree = expression as? Tree else { return nil }
                var leaves: [PredicateLeaf] = []
                tree.collectLeaves(into: &leaves)
                return leaves
            }
        }
        return walker(tree)
    }

    /// The identifier reader of `predicate`'s expression type (PC5): nil unless the type is that of
    /// `persistentModelID == id` or `id == persistentModelID` with a captured identifier.
    static func identifierReader<T: PersistentModel>(_ predicate: Predicate<T>) -> IdentifierReader? {
        typealias Member = PredicateExpressions.KeyPath<PredicateExpressions.Variable<T>, PersistentIdentifier>
        typealias Captured = PredicateExpressions.Value<PersistentIdentifier>
        // A key path is immutable once made; the readers only compare it.
        nonisolated(unsafe) let identity: AnyKeyPath = \T.persistentModelID
        switch predicate.expression {
        case is PredicateExpressions.Equal<Member, Captured>:
            return { expression in
                guard let tree = expression as? PredicateExpressions.Equal<Member, Captured>,
                    tree.lhs.keyPath == identity
                else { return nil }
                return tree.rhs.value
            }
        case is PredicateExpressions.Equal<Captured, Member>:
            return { expression in
                guard let tree = expression as? PredicateExpressions.Equal<Captured, Member>,
                    tree.rhs.keyPath == identity
                else { return nil }
                return tree.lhs.value
            }
        default:
            return nil
        }
    }

    /// `SELF == id`: what the translation gives `persistentModelID == id` in either order, once
    /// the context states it the way the store reads by primary key (PC5, FE2).
    static func identityPredicate(_ id: PersistentIdentifier) -> CdPredicate {
        .comparison(
            PredicateComparison(.evaluatedObject, .equal, .object(PredicateObjectID(id.objectID.predicateIdentity))))
    }

    /// The name of the variable standing for value leaf `index` (PC2).
    static func valueVariable(_ index: Int) -> String { "\u{1}value\(index)" }

    /// The store form of a captured value alone, nil for a value with none that the translation
    /// would give in every context (PC2).
    static func boundValue(_ value: Any) -> CdPredicateExpression? {
        // The common scalars first, by casts to their concrete types: none of them is a model, an
        // identifier, an optional or a Bool, so each ends where the general path below ends, without
        // the class-existential cast that tries a bridge for every non-class value.
        switch value {
        case let scalar as Int64: return .constant(scalar.cdValue)
        case let scalar as Int: return .constant(scalar.cdValue)
        case let scalar as String: return .constant(scalar.cdValue)
        case let scalar as Double: return .constant(scalar.cdValue)
        case let scalar as Date: return .constant(scalar.cdValue)
        case let identifier as PersistentIdentifier: return PredicateTranslation.captured(identifier)
        default: break
        }
        if let captured = PredicateTranslation.captured(value) { return captured }
        if value is any OptionalValue || value is Bool { return nil }
        if let scalar = value as? any CdAttributeValue { return .constant(scalar.cdValue) }
        return nil
    }

    /// `predicate` translated with each value as its variable; nil when a value could not be
    /// told from another of the same form or the template does not hold one variable per value
    /// (keeps PC2).
    private static func template<T: PersistentModel>(
        _ predicate: Predicate<T>, _ values: [CdPredicateExpression]
    ) throws -> CdPredicate? {
        let ambiguous = Set(
            values.indices.filter { i in values.indices.contains { $0 != i && values[$0] == values[i] } })
        let template = try PredicateTranslation.translate(predicate) { value in
            guard let bound = boundValue(value), let index = values.firstIndex(of: bound), !ambiguous.contains(index)
            else { return nil }
            return .variable(valueVariable(index))
        }
        guard template.variableNames == values.indices.map(valueVariable).sorted() else { return nil }
        return template
    }
}
