// A format string parsed once with its arguments left as slots, so that code which runs the same
// format many times (a fetch in a loop: `filter("SELF == %@", id)`) lexes and parses it once and
// then only binds arguments.
//
// Invariants:
// PT1. `bind(arguments)` gives exactly what `CdPredicate(format:argumentArray:)` gives for the
//      same arguments: the same tree, or an error of the same kind, message and offset. Formats
//      and arguments for which that could fail have no template, and the caller parses directly:
//      - a `%K` (it changes the tree's shape, not a value in it);
//      - any rule of the parser that looks at a bound value (`BETWEEN %@`, `-%@`, `CAST(%@, …)`):
//       in a template parse the value is a slot variable, the rule throws and there is no
//       template;
//     - an argument that is itself a `CdPredicateExpression` (`%@.name` would join key paths
//       that a slot keeps apart): `bind` returns nil.
// PT2. Slots are variables named `%0`, `%1`, …; a format cannot name them (`$` takes letters
//      only), so substituting them touches the slots and nothing else.

/// A predicate format parsed once, to be bound to arguments many times.
///
/// ```swift
/// let template = PredicateTemplate(format: "salary >= %@ AND salary < %@")!
/// let predicate = try template.bind([50_000, 60_000])!
/// ```
public struct PredicateTemplate: Sendable {
    /// One `%` specifier of the format.
    struct Slot: Sendable {
        let specifier: String
        let offset: Int
    }

    /// Thrown by a template parse that meets a `%K`.
    struct NotATemplate: Error {}

    /// The parsed format with slots in place of arguments.
    private let predicate: CdPredicate
    private let slots: [Slot]

    /// The template of `format`, or nil when the format has none (invariant PT1) or does not parse
    /// (the direct parse then reports the error as it always does).
    public init?(format: String) {
        guard var parser = try? PredicateParser(templateFormat: format), let parsed = try? parser.parse() else {
            return nil
        }
        predicate = parsed
        slots = parser.slots
    }

    /// The predicate with `arguments` bound to the slots in order; nil when an argument is a
    /// `CdPredicateExpression` (parse directly). Throws what the direct parse throws for missing,
    /// extra or unusable arguments.
    public func bind(_ arguments: [Any]) throws -> CdPredicate? {
        if slots.isEmpty && arguments.isEmpty { return predicate }
        // Slot `i`'s value at index `i` (no dictionary: a slot's name gives its index, PT2).
        var bound: [CdPredicateExpression] = []
        bound.reserveCapacity(slots.count)
        for (index, slot) in slots.enumerated() {
            guard index < arguments.count else {
                throw CdPredicateError(
                    .missingArgument,
                    "format specifier %\(slot.specifier) at offset \(slot.offset) "
                        + "has no argument (\(arguments.count) passed)",
                    offset: slot.offset)
            }
            let value = arguments[index]
            if slot.specifier == "@", let common = PredicateArgument.commonExpression(value) {
                // Not an expression, and bound as `expression` binds it (keeps PT1).
                bound.append(common)
                continue
            }
            if PredicateArgument.unwrapOptional(value) is CdPredicateExpression { return nil }
            let source = PredicateArgument.Source.argument(index)
            let expression =
                switch slot.specifier {
                case "@": try PredicateArgument.expression(value, source: source)
                case "f", "lf": try PredicateArgument.double(value, source: source, specifier: slot.specifier)
                default: try PredicateArgument.integer(value, source: source, specifier: slot.specifier)
                }
            bound.append(expression)
        }
        if arguments.count > slots.count {
            throw CdPredicateError(
                .extraArgument, "\(arguments.count) arguments were passed but the format uses \(slots.count)")
        }
        return predicate.substituting { name in Self.slotIndex(name).flatMap { $0 < bound.count ? bound[$0] : nil } }
    }

    /// The index of the slot variable `name` (`%3` → 3, PT2); nil for any other name.
    static func slotIndex(_ name: String) -> Int? {
        guard name.utf8.first == UInt8(ascii: "%") else { return nil }
        return Int(name.dropFirst())
    }

    /// The variable name of slot `index` (PT2).
    static func slotName(_ index: Int) -> String { index < slotNames.count ? slotNames[index] : "%\(index)" }

    /// The first slot names, built once.
    private static let slotNames = (0..<16).map { "%\($0)" }
}
