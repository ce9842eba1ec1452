// Canonical format syntax for the AST. The printed text parses back to an equal AST (tested for
// every valid fixture case): keywords are upper-case, `==` is spelled `==`, reserved words used
// as keys are escaped with `#`, constants without a literal form are printed as CASTs, and
// object arguments are printed as `%@` — pass `objectArguments` to parse the text again.

import Foundation

extension CdPredicate {
    public var description: String {
        switch self {
        case let .constant(value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case let .comparison(comparison): return comparison.description
        case let .and(left, right):
            return "\(left.wrapped(if: left.isOr)) AND \(right.wrapped(if: right.isCompound))"
        case let .or(left, right):
            return "\(left) OR \(right.wrapped(if: right.isCompound))"
        case let .not(inner):
            return "NOT \(inner.wrapped(if: inner.isCompound))"
        }
    }

    /// The object arguments in the order their `%@` appear in `description`.
    ///
    /// ```swift
    /// let again = try CdPredicate(format: p.description, argumentArray: p.objectArguments)
    /// ```
    public var objectArguments: [PredicateObjectID] {
        switch self {
        case .constant: return []
        case let .comparison(c): return c.left.objectArguments + c.right.objectArguments
        case let .and(l, r), let .or(l, r): return l.objectArguments + r.objectArguments
        case let .not(p): return p.objectArguments
        }
    }

    private var isOr: Bool { if case .or = self { return true } else { return false } }

    private var isCompound: Bool {
        switch self {
        case .and, .or: return true
        default: return false
        }
    }

    private func wrapped(if condition: Bool) -> String { condition ? "(\(self))" : "\(self)" }
}

extension PredicateComparison: CustomStringConvertible {
    public var description: String {
        var text = quantifier == .direct ? "" : quantifier.rawValue + " "
        text += "\(left) \(op.rawValue)"
        var letters = ""
        if options.contains(.caseInsensitive) { letters += "c" }
        if options.contains(.diacriticInsensitive) { letters += "d" }
        if options.contains(.normalized) { letters += "n" }
        if !letters.isEmpty { text += "[\(letters)]" }
        return text + " \(right)"
    }
}

extension CdPredicateExpression: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .constant(value): return value.formatLiteral
        case .object: return "%@"
        case let .aggregate(elements): return "{" + elements.map(\.description).joined(separator: ", ") + "}"
        case .evaluatedObject: return "SELF"
        case let .variable(name): return "$" + name
        case let .keyPath(base, keys): return Self.path(base, keys)
        case let .function(.count, inner): return "\(inner).@count"
        case let .function(function, .keyPath(base, keys)):
            // Canonical spot for @sum etc.: before the last key (`employees.@sum.salary`).
            let head = keys.dropLast().isEmpty ? Self.prefix(base) : Self.path(base, Array(keys.dropLast())) + "."
            return head + function.rawValue + "." + Self.escape(keys[keys.count - 1])
        case let .function(function, inner):
            return "\(inner).\(function.rawValue)"
        case let .subquery(collection, variable, predicate):
            return "SUBQUERY(\(collection), $\(variable), \(predicate))"
        }
    }

    var objectArguments: [PredicateObjectID] {
        switch self {
        case let .object(id): return [id]
        case let .aggregate(elements): return elements.flatMap(\.objectArguments)
        case let .keyPath(base, _), let .function(_, base): return base.objectArguments
        case let .subquery(collection, _, predicate): return collection.objectArguments + predicate.objectArguments
        case .constant, .evaluatedObject, .variable: return []
        }
    }

    private static func prefix(_ base: CdPredicateExpression) -> String {
        base == .evaluatedObject ? "" : "\(base)."
    }

    private static func path(_ base: CdPredicateExpression, _ keys: [String]) -> String {
        prefix(base) + keys.map(escape).joined(separator: ".")
    }

    private static func escape(_ key: String) -> String {
        PredicateParser.reservedWords.contains(key.uppercased()) ? "#" + key : key
    }
}

extension CdValue {
    /// This value as format-language text that parses back to the same value.
    var formatLiteral: String {
        switch self {
        case .null: return "nil"
        case let .integer(v): return String(v)
        case let .double(v):
            return v.isFinite ? String(v) : "CAST(\"\(v)\", \"NSNumber\")"
        case let .decimal(v): return "CAST(\"\(v)\", \"NSDecimalNumber\")"
        case let .string(s): return Self.quoted(s)
        case let .bool(b): return b ? "YES" : "NO"
        case let .date(d): return "CAST(\(d.timeIntervalSinceReferenceDate), \"NSDate\")"
        case let .data(d): return "CAST(\"\(d.base64EncodedString())\", \"NSData\")"
        case let .uuid(u): return "CAST(\"\(u.uuidString)\", \"NSUUID\")"
        case let .uri(u): return "CAST(\(Self.quoted(u.absoluteString)), \"NSURL\")"
        }
    }

    private static func quoted(_ s: String) -> String {
        var out = "\""
        for c in s {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default: out.append(c)
            }
        }
        return out + "\""
    }
}
