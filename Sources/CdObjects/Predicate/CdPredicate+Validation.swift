// Static checking of a predicate against a schema, before any object is touched: every key must
// exist on the entity it is read from, and both sides of every comparison must have types the
// operator accepts. The rules mirror the evaluator's (CdPredicate+Evaluation.swift, PE1–PE5), so a
// predicate that validates only fails at evaluation on data-dependent problems (a bad regex).

import Foundation

/// The static type of an expression.
private indirect enum StaticType: Equatable {
    case unknown  // a free variable, or something the schema cannot tell
    case null
    case scalar(PredicateAttributeKind)
    case entity(String?)  // nil: an object argument of unknown entity
    case collection(StaticType)

    var element: StaticType {
        if case let .collection(e) = self { return e }
        return self
    }

    var name: String {
        switch self {
        case .unknown: return "unknown"
        case .null: return "nil"
        case let .scalar(k): return k.rawValue
        case let .entity(e): return e.map { "\($0) object" } ?? "object"
        case let .collection(e): return "collection of \(e.name)"
        }
    }

    /// The comparison class of a scalar kind: numbers and booleans share one.
    var comparisonClass: String? {
        guard case let .scalar(kind) = self else { return nil }
        switch kind {
        case .integer, .double, .decimal, .bool: return "number"
        case .opaque: return nil
        default: return kind.rawValue
        }
    }
}

extension CdPredicate {
    /// Checks the predicate against `schema` with SELF an object of `entity`.
    ///
    /// ```swift
    /// try CdPredicate(format: "department.budget > 1000").validate(entity: "Person", schema: schema)
    /// ```
    /// - Throws: `CdPredicateError.unknownKey` naming the key and the entity, or
    ///   `.typeMismatch` naming the comparison and the two types.
    public func validate(entity: String, schema: some PredicateSchema) throws {
        try PredicateValidator(schema: schema, variables: [:]).check(self, root: .entity(entity))
    }
}

private struct PredicateValidator<Schema: PredicateSchema> {
    let schema: Schema
    var variables: [String: StaticType]

    func check(_ predicate: CdPredicate, root: StaticType) throws {
        switch predicate {
        case .constant: break
        case let .not(p): try check(p, root: root)
        case let .and(l, r), let .or(l, r):
            try check(l, root: root)
            try check(r, root: root)
        case let .comparison(c): try check(c, root: root)
        }
    }

    private func check(_ c: PredicateComparison, root: StaticType) throws {
        var left = try type(of: c.left, root: root)
        let right = try type(of: c.right, root: root)
        let mismatch = {
            CdPredicateError(
                .typeMismatch,
                "type mismatch in '\(c)': cannot apply \(c.op.rawValue) to \(left.name) and \(right.name)")
        }
        if c.quantifier != .direct {
            switch left {
            case .collection, .unknown, .null: left = left.element
            default:
                throw CdPredicateError(
                    .typeMismatch, "\(c.quantifier.rawValue) in '\(c)' needs a to-many key path, not \(left.name)")
            }
        } else if case .collection = left, c.op != .contains,
            !((c.op == .equal || c.op == .notEqual) && right.element != right)
        {
            left = left.element  // PE4: implicit ANY
        }
        switch c.op {
        case .equal, .notEqual:
            guard Self.equatable(left, right) else { throw mismatch() }
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard Self.orderable(left, right) else { throw mismatch() }
        case .between:
            for bound in try elementTypes(of: c.right, root: root) where !Self.orderable(left, bound) {
                throw mismatch()
            }
        case .beginsWith, .endsWith, .like, .matches:
            guard Self.isStringLike(left), Self.isStringLike(right) else { throw mismatch() }
        case .in:
            if case .scalar(.string) = right {
                guard Self.isStringLike(left) else { throw mismatch() }
            } else if case .scalar = right {
                throw mismatch()
            } else {
                for element in try elementTypes(of: c.right, root: root) where !Self.equatable(left, element) {
                    throw mismatch()
                }
            }
        case .contains:
            switch left {
            case let .collection(element): guard Self.equatable(element, right) else { throw mismatch() }
            case .scalar(.string): guard Self.isStringLike(right) else { throw mismatch() }
            case .unknown, .null: break
            default: throw mismatch()
            }
        }
    }

    // MARK: - Types

    private static func isStringLike(_ t: StaticType) -> Bool {
        switch t {
        case .unknown, .null, .scalar(.string): return true
        default: return false
        }
    }

    private static func equatable(_ a: StaticType, _ b: StaticType) -> Bool {
        switch (a, b) {
        case (.unknown, _), (_, .unknown), (.null, _), (_, .null): return true
        case (.scalar, .scalar): return a.comparisonClass != nil && a.comparisonClass == b.comparisonClass
        case (.entity, .entity), (.collection, .collection): return true
        default: return false
        }
    }

    private static func orderable(_ a: StaticType, _ b: StaticType) -> Bool {
        switch (a, b) {
        case (.unknown, _), (_, .unknown), (.null, _), (_, .null): return true
        case (.scalar, .scalar):
            return a.comparisonClass != nil && a.comparisonClass == b.comparisonClass && a != .scalar(.uuid)
                && a != .scalar(.uri)
        default: return false
        }
    }

    /// Element types of a collection expression, one per element for a literal `{…}`.
    private func elementTypes(of expression: CdPredicateExpression, root: StaticType) throws -> [StaticType] {
        if case let .aggregate(elements) = expression { return try elements.map { try type(of: $0, root: root) } }
        let t = try type(of: expression, root: root)
        return [t.element]
    }

    private func type(of expression: CdPredicateExpression, root: StaticType) throws -> StaticType {
        switch expression {
        case let .constant(v): return PredicateAttributeKind(of: v).map(StaticType.scalar) ?? .null
        case .object: return .entity(nil)
        case let .aggregate(elements):
            let types = try elements.map { try type(of: $0, root: root) }.filter { $0 != .null }
            guard let first = types.first, types.allSatisfy({ $0 == first }) else { return .collection(.unknown) }
            return .collection(first)
        case .evaluatedObject: return root
        case let .variable(name): return variables[name] ?? .unknown
        case let .keyPath(base, keys):
            var t = try type(of: base, root: root)
            for key in keys { t = try step(t, key) }
            return t
        case let .function(function, inner):
            let t = try type(of: inner, root: root)
            if function == .count { return .scalar(.integer) }
            let element = t.element
            switch element {
            case .unknown, .null: return function == .avg ? .scalar(.double) : .unknown
            case let .scalar(kind) where StaticType.scalar(kind).comparisonClass == "number":
                return .scalar(function == .avg && kind != .decimal ? .double : kind)
            case .scalar where function == .min || function == .max: return element
            default:
                throw CdPredicateError(
                    .typeMismatch, "\(function.rawValue) of '\(inner)' needs numbers, not \(element.name)")
            }
        case let .subquery(collection, variable, predicate):
            let t = try type(of: collection, root: root)
            switch t {
            case .collection, .unknown, .null: break
            default:
                throw CdPredicateError(
                    .typeMismatch, "SUBQUERY over '\(collection)' needs a to-many key path, not \(t.name)")
            }
            var inner = self
            inner.variables[variable] = t.element
            try inner.check(predicate, root: root)
            return .collection(t.element)
        }
    }

    private func step(_ t: StaticType, _ key: String) throws -> StaticType {
        switch t {
        case .unknown, .null, .entity(nil): return .unknown
        case let .entity(entity?):
            switch schema.property(key, ofEntity: entity) {
            case nil: throw CdPredicateError(.unknownKey, "entity \(entity) has no key '\(key)'")
            case let .attribute(kind)?: return .scalar(kind)
            case let .toOne(target)?: return .entity(target)
            case let .toMany(target)?: return .collection(.entity(target))
            }
        case let .collection(element):
            let next = try step(element, key)
            return .collection(next.element)
        case let .scalar(kind):
            throw CdPredicateError(.typeMismatch, "cannot read key '\(key)' of a \(kind.rawValue) value")
        }
    }
}
