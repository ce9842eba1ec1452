// The evaluator: runs a predicate over one object by walking key paths through
// `PredicateEvaluable`. Semantics (documented in docs/PREDICATES.md):
//
//   PE1. A key path through a to-many relationship yields a collection; further keys map over
//        its elements and nested collections are flattened (`department.employees.friends.name`).
//   PE2. A nil to-one relationship yields nil, and every key read from nil is nil.
//   PE3. `== nil` / `!= nil` test for nil; an ordering or string operator with a nil operand is
//        false (as NSPredicate); comparing values of different classes throws `.typeMismatch`.
//   PE4. A direct comparison whose left side is a collection and whose right side is not is an
//        implicit ANY (Core Data fetch semantics), except for CONTAINS, which tests membership.
//   PE5. `@sum` of an empty collection is 0; `@avg`, `@min` and `@max` of one are nil.

import Foundation

/// A value during evaluation: a scalar, an object, an object argument, or a collection.
enum PredicateOperand {
    case scalar(CdValue)
    case object(any PredicateEvaluable)
    case reference(PredicateObjectID)
    case collection([PredicateOperand])

    init(_ value: PredicateValue) {
        switch value {
        case let .value(v): self = .scalar(v)
        case let .object(o?): self = .object(o)
        case .object(nil): self = .scalar(.null)
        case let .collection(elements): self = .collection(elements.map(PredicateOperand.init))
        }
    }

    var isNull: Bool { if case .scalar(.null) = self { return true } else { return false } }

    /// The elements, treating nil as empty and any other single value as a one-element collection.
    var elements: [PredicateOperand] {
        switch self {
        case let .collection(elements): return elements
        case .scalar(.null): return []
        default: return [self]
        }
    }

    var kindName: String {
        switch self {
        case let .scalar(v): return v.typeName
        case .object, .reference: return "object"
        case .collection: return "collection"
        }
    }
}

extension CdPredicate {
    /// Evaluates the predicate with `object` as SELF.
    ///
    /// ```swift
    /// let p = try CdPredicate(format: "ANY employees.salary > $MIN")
    /// let rich = try p.evaluate(with: department, substitutionVariables: ["MIN": 100_000])
    /// ```
    /// - Throws: `CdPredicateError` for unknown keys, unbound variables, incomparable values and
    ///   invalid regular expressions.
    public func evaluate(with object: any PredicateEvaluable, substitutionVariables: [String: Any] = [:]) throws -> Bool
    {
        try evaluate(withValue: .object(object), substitutionVariables: substitutionVariables)
    }

    /// Evaluates the predicate with any value as SELF: an attribute value, an object, or a
    /// collection (for example `@sum.salary > 10` over an array of people).
    public func evaluate(withValue value: PredicateValue, substitutionVariables: [String: Any] = [:]) throws -> Bool {
        var variables: [String: PredicateOperand] = [:]
        for (name, raw) in substitutionVariables {
            let expression = try PredicateArgument.expression(raw, source: .variable(name))
            variables[name] = try PredicateEvaluator(variables: [:]).operand(expression, self: .scalar(.null))
        }
        return try PredicateEvaluator(variables: variables).evaluate(self, self: PredicateOperand(value))
    }
}

struct PredicateEvaluator {
    var variables: [String: PredicateOperand]

    func evaluate(_ predicate: CdPredicate, self object: PredicateOperand) throws -> Bool {
        switch predicate {
        case let .constant(value): return value
        case let .not(inner): return try !evaluate(inner, self: object)
        case let .and(l, r): return try evaluate(l, self: object) && evaluate(r, self: object)
        case let .or(l, r): return try evaluate(l, self: object) || evaluate(r, self: object)
        case let .comparison(c): return try evaluate(c, self: object)
        }
    }

    private func evaluate(_ c: PredicateComparison, self object: PredicateOperand) throws -> Bool {
        try test(c, left: try operand(c.left, self: object), right: try operand(c.right, self: object))
    }

    /// A comparison over its evaluated operands: the quantifier, then the operator. Compiled
    /// predicates (CompiledPredicate.swift) call this too, so both give the same answers.
    func test(_ c: PredicateComparison, left: PredicateOperand, right: PredicateOperand) throws -> Bool {
        switch c.quantifier {
        case .any:
            for element in left.elements where try compare(element, c.op, right, c.options) { return true }
            return false
        case .all:
            for element in left.elements where try !compare(element, c.op, right, c.options) { return false }
            return true
        case .direct:
            if case let .collection(elements) = left, c.op != .contains,
                !(c.op == .equal || c.op == .notEqual) || !right.isCollection
            {
                // PE4: implicit ANY.
                for element in elements where try compare(element, c.op, right, c.options) { return true }
                return false
            }
            return try compare(left, c.op, right, c.options)
        }
    }

    // MARK: - Operators

    private func compare(
        _ l: PredicateOperand, _ op: PredicateOperator, _ r: PredicateOperand, _ options: PredicateStringOptions
    ) throws -> Bool {
        switch op {
        case .equal: return try equal(l, r, options)
        case .notEqual: return try !equal(l, r, options)
        case .lessThan: return try order(l, r, op) { $0 == .orderedAscending }
        case .lessThanOrEqual: return try order(l, r, op) { $0 != .orderedDescending }
        case .greaterThan: return try order(l, r, op) { $0 == .orderedDescending }
        case .greaterThanOrEqual: return try order(l, r, op) { $0 != .orderedAscending }
        case .in: return try membership(element: l, container: r, options, op: op)
        case .contains: return try membership(element: r, container: l, options, op: op)
        case .between:
            let bounds = r.elements
            guard bounds.count == 2 else {
                throw CdPredicateError(.typeMismatch, "BETWEEN needs a two-element collection, got \(r.kindName)")
            }
            return try order(l, bounds[0], op) { $0 != .orderedAscending }
                && order(l, bounds[1], op) { $0 != .orderedDescending }
        case .beginsWith, .endsWith, .like, .matches:
            guard case let .scalar(lv) = l, case let .scalar(rv) = r else {
                throw CdPredicateError(
                    .typeMismatch, "\(op.rawValue) needs strings, got \(l.kindName) and \(r.kindName)")
            }
            if lv.isNull || rv.isNull { return false }
            guard case let .string(s) = lv, case let .string(p) = rv else {
                throw CdPredicateError(
                    .typeMismatch, "\(op.rawValue) needs strings, got \(lv.typeName) \(lv) and \(rv.typeName) \(rv)")
            }
            switch op {
            case .beginsWith: return PredicateStringMatching.beginsWith(s, p, options)
            case .endsWith: return PredicateStringMatching.endsWith(s, p, options)
            case .like: return PredicateStringMatching.like(s, p, options)
            default: return try PredicateStringMatching.matches(s, p, options)
            }
        }
    }

    /// `==`: nil equals only nil; objects by identity; collections element-wise; scalars by value.
    private func equal(_ l: PredicateOperand, _ r: PredicateOperand, _ options: PredicateStringOptions) throws -> Bool {
        if l.isNull || r.isNull { return l.isNull && r.isNull }
        switch (l, r) {
        case let (.scalar(a), .scalar(b)):
            return try CdValue.predicateCompare(a, b, options: PredicateStringMatching.options(options)) == .orderedSame
        case let (.collection(a), .collection(b)):
            guard a.count == b.count else { return false }
            for (x, y) in zip(a, b) where try !equal(x, y, options) { return false }
            return true
        default:
            guard let a = l.identity, let b = r.identity else {
                throw CdPredicateError(.typeMismatch, "cannot compare \(l.kindName) with \(r.kindName)")
            }
            return a == b
        }
    }

    private func order(
        _ l: PredicateOperand, _ r: PredicateOperand, _ op: PredicateOperator, _ accept: (ComparisonResult) -> Bool
    ) throws -> Bool {
        guard case let .scalar(a) = l, case let .scalar(b) = r else {
            throw CdPredicateError(.typeMismatch, "\(op.rawValue) cannot order \(l.kindName) and \(r.kindName)")
        }
        if a.isNull || b.isNull { return false }  // PE3
        return accept(try CdValue.predicateCompare(a, b))
    }

    /// `element IN container` / `container CONTAINS element`: membership in a collection, or
    /// substring containment when the container is a string.
    private func membership(
        element: PredicateOperand, container: PredicateOperand, _ options: PredicateStringOptions, op: PredicateOperator
    ) throws -> Bool {
        switch container {
        case let .collection(elements):
            for candidate in elements where try equal(element, candidate, options) { return true }
            return false
        case .scalar(.null): return false
        case let .scalar(.string(s)):
            if element.isNull { return false }
            guard case let .scalar(.string(part)) = element else {
                throw CdPredicateError(
                    .typeMismatch, "\(op.rawValue) on a string needs a string, got \(element.kindName)")
            }
            return PredicateStringMatching.contains(s, part, options)
        default:
            throw CdPredicateError(
                .typeMismatch, "\(op.rawValue) needs a collection or a string, got \(container.kindName)")
        }
    }

    // MARK: - Expressions

    func operand(_ expression: CdPredicateExpression, self object: PredicateOperand) throws -> PredicateOperand {
        switch expression {
        case let .constant(v): return .scalar(v)
        case let .object(id): return .reference(id)
        case let .aggregate(elements): return .collection(try elements.map { try operand($0, self: object) })
        case .evaluatedObject: return object
        case let .variable(name):
            guard let value = variables[name] else {
                throw CdPredicateError(.unknownVariable, "no value for variable $\(name)")
            }
            return value
        case let .keyPath(base, keys):
            var value = try operand(base, self: object)
            for key in keys { value = try Self.read(key, of: value) }
            return value
        case let .function(function, inner):
            return try Self.aggregate(function, try operand(inner, self: object))
        case let .subquery(collection, variable, predicate):
            var inner = self
            var matches: [PredicateOperand] = []
            for element in try operand(collection, self: object).elements {
                inner.variables[variable] = element
                if try inner.evaluate(predicate, self: object) { matches.append(element) }
            }
            return .collection(matches)
        }
    }

    /// One key step (PE1, PE2).
    static func read(_ key: String, of value: PredicateOperand) throws -> PredicateOperand {
        switch value {
        case let .object(o): return PredicateOperand(try o.predicateValue(forKey: key))
        case .scalar(.null): return .scalar(.null)
        case let .collection(elements):
            var result: [PredicateOperand] = []
            for element in elements {
                let child = try read(key, of: element)
                if case let .collection(nested) = child { result += nested } else { result.append(child) }
            }
            return .collection(result)
        case let .scalar(v):
            throw CdPredicateError(.typeMismatch, "cannot read key '\(key)' of \(v.typeName) \(v)")
        case .reference:
            throw CdPredicateError(.typeMismatch, "cannot read key '\(key)' of an object argument")
        }
    }

    static func aggregate(_ function: PredicateAggregateFunction, _ value: PredicateOperand) throws -> PredicateOperand
    {
        let elements = value.elements
        if function == .count { return .scalar(.integer(Int64(elements.count))) }
        var scalars: [CdValue] = []
        for element in elements {
            guard case let .scalar(v) = element else {
                throw CdPredicateError(.typeMismatch, "\(function.rawValue) needs values, got \(element.kindName)")
            }
            if !v.isNull { scalars.append(v) }
        }
        switch function {
        case .min, .max:
            guard var best = scalars.first else { return .scalar(.null) }
            for v in scalars.dropFirst() {
                let c = try CdValue.predicateCompare(v, best)
                if function == .min ? c == .orderedAscending : c == .orderedDescending { best = v }
            }
            return .scalar(best)
        default:
            for v in scalars where !v.isNumeric {
                throw CdPredicateError(.typeMismatch, "\(function.rawValue) needs numbers, got \(v.typeName) \(v)")
            }
            if function == .avg && scalars.isEmpty { return .scalar(.null) }
            let sum = numericSum(scalars)
            guard function == .avg else { return .scalar(sum) }
            if case let .decimal(d) = sum { return .scalar(.decimal(d / Decimal(scalars.count))) }
            return .scalar(.double(sum.doubleValue / Double(scalars.count)))
        }
    }

    /// Integers sum as integers (falling back to Double on overflow); any double makes the sum a
    /// double, any decimal a decimal.
    private static func numericSum(_ values: [CdValue]) -> CdValue {
        if values.contains(where: { if case .decimal = $0 { return true } else { return false } }) {
            return .decimal(values.reduce(Decimal(0)) { $0 + $1.decimalValue })
        }
        var total: Int64 = 0
        for v in values {
            guard case let .integer(i) = v else { return .double(values.reduce(0) { $0 + $1.doubleValue }) }
            let (sum, overflow) = total.addingReportingOverflow(i)
            if overflow { return .double(values.reduce(0) { $0 + $1.doubleValue }) }
            total = sum
        }
        return .integer(total)
    }
}

extension PredicateOperand {
    var isCollection: Bool { if case .collection = self { return true } else { return false } }

    /// The identity of an object or object argument.
    var identity: AnyHashable? {
        switch self {
        case let .object(o): return o.predicateIdentity
        case let .reference(id): return id.identity
        default: return nil
        }
    }
}
