// Ordering and equality of `CdValue`s: the one definition shared by predicate comparisons,
// `@min`/`@max`, and the query layer's sorting.
//
// Two levels:
//   * `CdValue.compare(_:_:options:)` is a TOTAL order over all values, for sorting: values of
//     different classes order by class (nil first), values of one class by value.
//   * `CdValue.predicateCompare` is the partial order predicates use: it throws
//     `CdPredicateError.typeMismatch` for values of different classes instead of inventing an order,
//     because `age > "ten"` is a bug in the caller's query, not a false.
//
// Classes: nil < numbers (integer, double, decimal, and bool as 0/1) < string < date < data
//          < uuid < uri. Numbers compare by numeric value across representations.

import Foundation

/// Options for comparing strings.
public struct CdValueComparisonOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Compare strings ignoring case (`[c]`).
    public static let caseInsensitive = CdValueComparisonOptions(rawValue: 1)
    /// Compare strings ignoring diacritics (`[d]`).
    public static let diacriticInsensitive = CdValueComparisonOptions(rawValue: 2)
}

extension CdValue {
    /// The total order used for sorting: `nil` first, then numbers, strings, dates, data, UUIDs
    /// and URIs; within a class by value (strings by Unicode scalar order, after folding by
    /// `options`).
    ///
    /// ```swift
    /// let sorted = values.sorted { CdValue.compare($0, $1, options: .caseInsensitive) == .orderedAscending }
    /// ```
    public static func compare(_ a: CdValue, _ b: CdValue, options: CdValueComparisonOptions = []) -> ComparisonResult {
        let (ra, rb) = (a.classRank, b.classRank)
        if ra != rb { return ra < rb ? .orderedAscending : .orderedDescending }
        return sameClassCompare(a, b, options: options)
    }

    /// The order used by predicate comparisons: like `compare`, but values of different classes
    /// throw instead of ordering by class. `nil` is only comparable with `nil` here; callers
    /// handle `nil` first.
    static func predicateCompare(
        _ a: CdValue, _ b: CdValue, options: CdValueComparisonOptions = []
    ) throws -> ComparisonResult {
        guard a.classRank == b.classRank else {
            throw CdPredicateError(.typeMismatch, "cannot compare \(a.typeName) \(a) with \(b.typeName) \(b)")
        }
        return sameClassCompare(a, b, options: options)
    }

    /// A word for the value's type, for error messages.
    var typeName: String {
        switch self {
        case .null: return "nil"
        case .integer: return "integer"
        case .double: return "double"
        case .decimal: return "decimal"
        case .string: return "string"
        case .bool: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .uuid: return "UUID"
        case .uri: return "URI"
        }
    }

    private var classRank: Int {
        switch self {
        case .null: return 0
        case .integer, .double, .decimal, .bool: return 1
        case .string: return 2
        case .date: return 3
        case .data: return 4
        case .uuid: return 5
        case .uri: return 6
        }
    }

    private static func sameClassCompare(
        _ a: CdValue, _ b: CdValue, options: CdValueComparisonOptions
    ) -> ComparisonResult {
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case let (.string(x), .string(y)):
            return order(fold(x, options), fold(y, options))
        case let (.date(x), .date(y)): return order(x, y)
        case let (.data(x), .data(y)):
            for (p, q) in zip(x, y) where p != q { return p < q ? .orderedAscending : .orderedDescending }
            return order(x.count, y.count)
        case let (.uuid(x), .uuid(y)): return order(x.uuidString, y.uuidString)
        case let (.uri(x), .uri(y)): return order(x.absoluteString, y.absoluteString)
        default: return numericCompare(a, b)
        }
    }

    /// Numbers of any representation. Integers compare exactly with integers; a decimal on
    /// either side compares as Decimal; otherwise as Double. NaN orders before every number
    /// so the order stays total.
    private static func numericCompare(_ a: CdValue, _ b: CdValue) -> ComparisonResult {
        switch (a.numeric, b.numeric) {
        case let (.integer(x), .integer(y)): return order(x, y)
        case (.decimal, _), (_, .decimal): return order(a.decimalValue, b.decimalValue)
        default:
            let (x, y) = (a.doubleValue, b.doubleValue)
            if x.isNaN || y.isNaN {
                return x.isNaN && y.isNaN ? .orderedSame : x.isNaN ? .orderedAscending : .orderedDescending
            }
            if case let .integer(i) = a.numeric, y.rounded() == y, abs(y) < 9.2e18 { return order(i, Int64(y)) }
            if case let .integer(j) = b.numeric, x.rounded() == x, abs(x) < 9.2e18 { return order(Int64(x), j) }
            return order(x, y)
        }
    }

    /// Booleans as the integers 0 and 1 (Core Data stores BOOL as a number).
    private var numeric: CdValue {
        if case let .bool(b) = self { return .integer(b ? 1 : 0) }
        return self
    }

    var isNumeric: Bool { classRank == 1 }

    var doubleValue: Double {
        switch numeric {
        case let .integer(v): return Double(v)
        case let .double(v): return v
        case let .decimal(v): return NSDecimalNumber(decimal: v).doubleValue
        default: return .nan
        }
    }

    var decimalValue: Decimal {
        switch numeric {
        case let .integer(v): return Decimal(v)
        case let .double(v): return Decimal(v)
        case let .decimal(v): return v
        default: return .nan
        }
    }

    private static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : x == y ? .orderedSame : .orderedDescending
    }

    static func fold(_ s: String, _ options: CdValueComparisonOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return folding.isEmpty ? s : s.folding(options: folding, locale: nil)
    }
}
