// A predicate compiled once per fetch and entity into a closure over encoded records
// (EncodedRecord.swift), so that a scan tests each candidate without decoding it.
//
// Compilation works comparison by comparison. A side that is a constant, an object argument, an
// `{…}` of constants, or one attribute of SELF (`salary`, resolved here to its slot) compiles;
// the attribute is then read from the record bytes alone. A comparison of two compiled sides runs
// the interpreter's own operator code (`PredicateEvaluator.test`) on the operands, and a few
// shapes run a specialised test instead:
//   - an integer attribute against an integer constant (`==`, `!=`, `<`, `<=`, `>`, `>=`, BETWEEN):
//     Int64 comparison of the zig-zag field, no `CdValue` made;
//   - a string attribute against a plain-ASCII constant with CONTAINS, BEGINSWITH, ENDSWITH (any
//     of [c], [d], [n]) or `==` / `!=` (no options): a byte match on the field's UTF-8 in place
//     (`ASCIIMatch`), falling back to the string path when the field is not plain ASCII.
// Any other comparison (key paths through relationships, SELF, aggregates, SUBQUERY, variables)
// falls back to the interpreter over the candidate decoded once into a `RecordObject`.
//
// Invariants:
//  CQ1. For every record and predicate, `evaluate` returns what `CdPredicate.evaluate(with:)`
//       returns for the decoded record as a `RecordObject`, or throws where it throws: the
//       specialised tests are taken only for operand types on which the interpreter cannot throw,
//       and AND / OR / NOT evaluate their sides in the interpreter's order.
//  CQ2. A compiled predicate belongs to one entity layout: slots are that entity's (a
//       sub-entity's slots differ), so the executor compiles once per entity code it meets.

import Foundation

/// The candidate a compiled predicate tests: a stored record, its key, and (made only when a
/// comparison falls back to the interpreter) the record decoded as a predicate object.
struct PredicateCandidate {
    let record: EncodedRecord
    let primaryKey: Int64
    /// Held without counting: a candidate lives inside one fetch, whose executor holds the
    /// reader (as ER3 for the record's entity).
    unowned(unsafe) let reader: ObjectReader
    private var decoded: RecordObject?

    init(record: EncodedRecord, primaryKey: Int64, reader: ObjectReader) {
        self.record = record
        self.primaryKey = primaryKey
        self.reader = reader
    }

    /// The whole record as the interpreter sees it, decoded on first use.
    mutating func object() throws -> RecordObject {
        if let decoded { return decoded }
        let full = try RecordCodec.decode(record.bytes, layout: reader.layout)
        let object = RecordObject(
            id: record.entity.objectID(primaryKey), record: full, reader: reader)
        decoded = object
        return object
    }
}

/// A predicate compiled for one entity (CQ2).
struct CompiledPredicate {
    typealias Test = (inout PredicateCandidate) throws -> Bool

    private let test: Test
    /// How many comparisons fall back to the interpreter (0 when every one reads fields in place).
    let fallbacks: Int

    init(_ predicate: CdPredicate, entity: EntityLayout) {
        var fallbacks = 0
        test = Self.compile(predicate, entity, &fallbacks)
        self.fallbacks = fallbacks
    }

    /// Whether the candidate matches (CQ1).
    func evaluate(_ candidate: inout PredicateCandidate) throws -> Bool { try test(&candidate) }

    // MARK: - Compilation

    private static func compile(_ p: CdPredicate, _ entity: EntityLayout, _ fallbacks: inout Int) -> Test {
        switch p {
        case let .constant(value): return { _ in value }
        case let .not(inner):
            let t = compile(inner, entity, &fallbacks)
            return { try !t(&$0) }
        case let .and(l, r):
            let (a, b) = (compile(l, entity, &fallbacks), compile(r, entity, &fallbacks))
            return { c in
                if try !a(&c) { return false }
                return try b(&c)
            }
        case let .or(l, r):
            let (a, b) = (compile(l, entity, &fallbacks), compile(r, entity, &fallbacks))
            return { c in
                if try a(&c) { return true }
                return try b(&c)
            }
        case let .comparison(c):
            if let t = comparison(c, entity) { return t }
            fallbacks += 1
            let evaluator = PredicateEvaluator(variables: [:])
            return { candidate in try evaluator.evaluate(p, self: .object(try candidate.object())) }
        }
    }

    /// One side of a comparison that reads nothing but the record's own fields.
    private enum Operand {
        case constant(PredicateOperand)
        case attribute(slot: Int, type: AttributeType)

        init?(_ e: CdPredicateExpression, _ entity: EntityLayout) {
            switch e {
            case let .constant(v): self = .constant(.scalar(v))
            case let .object(id): self = .constant(.reference(id))
            case let .aggregate(elements):
                var values: [PredicateOperand] = []
                for element in elements {
                    guard case let .constant(v)? = Operand(element, entity) else { return nil }
                    values.append(v)
                }
                self = .constant(.collection(values))
            case let .keyPath(.evaluatedObject, keys) where keys.count == 1:
                guard let slot = entity.attributeSlots[keys[0]] else { return nil }
                self = .attribute(slot: slot, type: entity.attributes[slot].type)
            default: return nil
            }
        }

        func value(_ c: inout PredicateCandidate) throws -> PredicateOperand {
            switch self {
            case let .constant(v): return v
            case let .attribute(slot, _): return .scalar(try c.record.value(ofAttribute: slot))
            }
        }
    }

    private static func comparison(_ c: PredicateComparison, _ entity: EntityLayout) -> Test? {
        guard let left = Operand(c.left, entity), let right = Operand(c.right, entity) else { return nil }
        if c.quantifier == .direct, let fast = integerTest(c, left, right) ?? stringTest(c, left, right) {
            return fast
        }
        let evaluator = PredicateEvaluator(variables: [:])
        return { candidate in
            try evaluator.test(c, left: try left.value(&candidate), right: try right.value(&candidate))
        }
    }

    // MARK: - Specialised tests

    /// An integer attribute against integer constants. Integers compare exactly with integers
    /// and options do not apply to numbers, so the interpreter's answer is the Int64 one; a nil
    /// field fails every test but `!=` (PE3).
    private static func integerTest(_ c: PredicateComparison, _ left: Operand, _ right: Operand) -> Test? {
        func integerSlot(_ o: Operand) -> Int? {
            guard case let .attribute(slot, type) = o, [.integer16, .integer32, .integer64].contains(type) else {
                return nil
            }
            return slot
        }
        func constant(_ o: Operand) -> Int64? {
            if case let .constant(.scalar(.integer(k))) = o { return k }
            return nil
        }
        if c.op == .between, let slot = integerSlot(left), case let .constant(.collection(bounds)) = right,
            bounds.count == 2, case let .scalar(.integer(lo)) = bounds[0], case let .scalar(.integer(hi)) = bounds[1]
        {
            return { candidate in
                guard let x = try candidate.record.integer(ofAttribute: slot) else { return false }
                return lo <= x && x <= hi
            }
        }
        let slot: Int
        let k: Int64
        var op = c.op
        if let s = integerSlot(left), let v = constant(right) {
            (slot, k) = (s, v)
        } else if let s = integerSlot(right), let v = constant(left) {
            (slot, k) = (s, v)
            switch op {  // `k < x` is `x > k`
            case .lessThan: op = .greaterThan
            case .lessThanOrEqual: op = .greaterThanOrEqual
            case .greaterThan: op = .lessThan
            case .greaterThanOrEqual: op = .lessThanOrEqual
            default: break
            }
        } else {
            return nil
        }
        let accept: (Int64) -> Bool
        switch op {
        case .equal: accept = { $0 == k }
        case .notEqual: accept = { $0 != k }
        case .lessThan: accept = { $0 < k }
        case .lessThanOrEqual: accept = { $0 <= k }
        case .greaterThan: accept = { $0 > k }
        case .greaterThanOrEqual: accept = { $0 >= k }
        default: return nil
        }
        let whenNil = op == .notEqual
        return { candidate in
            guard let x = try candidate.record.integer(ofAttribute: slot) else { return whenNil }
            return accept(x)
        }
    }

    /// A string attribute against a plain-ASCII constant (AM1): matched on the field's bytes.
    private static func stringTest(_ c: PredicateComparison, _ left: Operand, _ right: Operand) -> Test? {
        guard case let .attribute(slot, .string) = left, case let .constant(.scalar(.string(constant))) = right,
            constant.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D })
        else { return nil }
        let needle = Array(constant.utf8)
        let options = c.options
        let caseInsensitive = options.contains(.caseInsensitive)
        let evaluator = PredicateEvaluator(variables: [:])
        /// The interpreter's answer for a field that is not plain ASCII.
        func slowPath(_ field: UnsafeBufferPointer<UInt8>) throws -> Bool {
            let text = String(decoding: field, as: UTF8.self)
            return try evaluator.test(c, left: .scalar(.string(text)), right: .scalar(.string(constant)))
        }
        switch c.op {
        case .contains, .beginsWith, .endsWith:
            let position: ASCIIMatch.Position =
                c.op == .contains ? .anywhere : c.op == .beginsWith ? .prefix : .suffix
            return { candidate in
                try candidate.record.withStringBytes(ofAttribute: slot) { field, _ in
                    // A nil field contains, begins and ends with nothing (PE3).
                    guard let field else { return false }
                    let answer = needle.withUnsafeBufferPointer { n in
                        ASCIIMatch.match(field, n, position, caseInsensitive: caseInsensitive)
                    }
                    return try answer ?? slowPath(field)
                }
            }
        case .equal, .notEqual:
            guard options.subtracting(.normalized).isEmpty else { return nil }
            // Equal bytes are equal strings; plain-ASCII strings with different bytes differ.
            let equal = c.op == .equal
            return { candidate in
                try candidate.record.withStringBytes(ofAttribute: slot) { field, _ in
                    guard let field else { return !equal }
                    if field.elementsEqual(needle) { return equal }
                    if ASCIIMatch.isPlainASCII(field) { return !equal }
                    return try slowPath(field)
                }
            }
        default:
            return nil
        }
    }
}
