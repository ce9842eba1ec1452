// Conversion of Swift values passed as format arguments (`%@`, `%d`, `%f`) and as substitution
// variables into AST constants. Swift hands us `Any`, so this is the one place that looks at
// dynamic types; everything downstream works on `CdValue` and `CdPredicateExpression`.

import Foundation

enum PredicateArgument {
    /// Where a value came from, for error messages: "argument 2" or "variable $LIMIT".
    enum Source {
        case argument(Int)
        case variable(String)
        var text: String {
            switch self {
            case let .argument(i): return "argument \(i)"
            case let .variable(name): return "variable $\(name)"
            }
        }
    }

    /// `value` as an expression: a constant, an object reference, or an aggregate for arrays/sets.
    static func expression(_ value: Any, source: Source) throws -> CdPredicateExpression {
        if let common = commonExpression(value) { return common }
        guard let value = unwrapOptional(value) else { return .constant(.null) }
        // References first: an object or ID would otherwise fail every scalar cast below, and
        // no scalar type is a reference.
        if let reference = value as? any PredicateObjectReference {
            return .object(PredicateObjectID(reference.predicateIdentity))
        }
        if let scalar = scalar(value) { return .constant(scalar) }
        if let expression = value as? CdPredicateExpression { return expression }
        if let array = value as? [Any] {
            return .aggregate(try array.map { try expression($0, source: source) })
        }
        if let set = value as? Set<AnyHashable> {
            // Sets have no order; sort so that the AST (and its description) is deterministic.
            let elements = try set.map { try expression($0.base, source: source) }
            return .aggregate(elements.sorted { $0.sortKey < $1.sortKey })
        }
        throw CdPredicateError(
            .unsupportedArgument,
            "\(source.text) has type \(type(of: value)), which cannot be used in a predicate"
        )
    }

    /// What `expression` gives for an argument of the most common exact types (an object ID, a
    /// 64-bit or native integer, a string), found by comparing the dynamic type alone: no
    /// protocol conformance lookup, no bridging. Nil for every other type.
    @inline(__always)
    static func commonExpression(_ value: Any) -> CdPredicateExpression? {
        let type = type(of: value)
        if type == ObjectID.self { return .object(PredicateObjectID((value as! ObjectID).predicateIdentity)) }
        if type == Int64.self { return .constant(.integer(value as! Int64)) }
        if type == Int.self { return .constant(.integer(Int64(value as! Int))) }
        if type == String.self { return .constant(.string(value as! String)) }
        return nil
    }

    /// `value` for an integer specifier (`%d %i %ld %lld %u`).
    static func integer(_ value: Any, source: Source, specifier: String) throws -> CdPredicateExpression {
        let unwrapped = unwrapOptional(value)
        switch unwrapped.flatMap(scalar) {
        case let .integer(v)?: return .constant(.integer(v))
        case let .bool(v)?: return .constant(.integer(v ? 1 : 0))
        default:
            throw CdPredicateError(
                .unsupportedArgument,
                "\(source.text) for %\(specifier) must be an integer, "
                    + "not \(unwrapped.map { "\(type(of: $0))" } ?? "nil")"
            )
        }
    }

    /// `value` for a floating-point specifier (`%f %lf`).
    static func double(_ value: Any, source: Source, specifier: String) throws -> CdPredicateExpression {
        let unwrapped = unwrapOptional(value)
        switch unwrapped.flatMap(scalar) {
        case let .integer(v)?: return .constant(.double(Double(v)))
        case let .double(v)?: return .constant(.double(v))
        case let .decimal(v)?: return .constant(.double(NSDecimalNumber(decimal: v).doubleValue))
        default:
            throw CdPredicateError(
                .unsupportedArgument,
                "\(source.text) for %\(specifier) must be a number, not \(unwrapped.map { "\(type(of: $0))" } ?? "nil")"
            )
        }
    }

    /// `nil` for `Optional.none` (at any depth) and `NSNull`; the wrapped value otherwise.
    static func unwrapOptional(_ value: Any) -> Any? {
        if value is NSNull { return nil }
        // One protocol cast instead of reflecting on every argument.
        guard let optional = value as? any OptionalArgument else { return value }
        return optional.wrappedArgument.flatMap(unwrapOptional)
    }

    private static func scalar(_ value: Any) -> CdValue? {
        switch value {
        case let v as CdValue: return v
        case let v as Bool: return .bool(v)
        case let v as Int: return .integer(Int64(v))
        case let v as Int8: return .integer(Int64(v))
        case let v as Int16: return .integer(Int64(v))
        case let v as Int32: return .integer(Int64(v))
        case let v as Int64: return .integer(v)
        case let v as UInt8: return .integer(Int64(v))
        case let v as UInt16: return .integer(Int64(v))
        case let v as UInt32: return .integer(Int64(v))
        case let v as UInt:
            return v <= UInt(Int64.max) ? .integer(Int64(v)) : .double(Double(v))
        case let v as UInt64:
            return v <= UInt64(Int64.max) ? .integer(Int64(v)) : .double(Double(v))
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as Decimal: return .decimal(v)
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Character: return .string(String(v))
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as UUID: return .uuid(v)
        case let v as URL: return .uri(v)
        case let v as NSNumber:
            let type = String(cString: v.objCType)
            return type == "d" || type == "f" ? .double(v.doubleValue) : .integer(v.int64Value)
        default: return nil
        }
    }
}

extension CdPredicateExpression {
    /// A deterministic ordering key for expressions built from sets.
    var sortKey: String { String(describing: self) }
}

/// An `Optional` of any type, seen through `Any`.
private protocol OptionalArgument {
    var wrappedArgument: Any? { get }
}

extension Optional: OptionalArgument {
    fileprivate var wrappedArgument: Any? { map { $0 as Any } }
}
