// `CdExpression`: the arithmetic a batch update computes per object from the object's own
// attributes (`CdFetchRequest.batchUpdate`), parsed once.
//
//   expression ::= term (("+" | "-") term)*
//   term       ::= factor (("*" | "/") factor)*
//   factor     ::= "-" factor | number | attribute | "(" expression ")"
//
// Integers combine as 64-bit integers (an overflow is an error); a double on either side, or a
// division that is not exact, gives a double. A nil operand gives nil. Anything but a number
// is an error naming the attribute and the object. A tree taller than `Parser.maxHeight`
// (deep parentheses, or a long chain of operators) is refused when parsed.

import Foundation
import CdObjects

/// An arithmetic expression over an object's attributes, for ``CdFetchRequest/batchUpdate(_:batchSize:)``.
///
/// ```swift
/// try Cd.objects(Employee.self).filter("department.name == 'R&D'")
///     .batchUpdate(["salary": CdExpression("salary * 1.1")])
/// ```
public struct CdExpression: Sendable, Hashable, CustomStringConvertible {
    indirect enum Node: Sendable, Hashable {
        case number(CdValue)
        case attribute(String)
        case negate(Node)
        case binary(Character, Node, Node)
    }

    /// The text it was parsed from.
    public let format: String
    let root: Node?
    let parseError: CdExpressionError?

    /// Parses `format`. A malformed expression is reported (``CdExpressionError``) when the
    /// batch update that uses it runs, before anything is written.
    public init(_ format: String) {
        self.format = format
        var parser = Parser(text: Array(format))
        do {
            let node = try parser.expression().node
            parser.skipSpaces()
            guard parser.at == parser.text.count else {
                throw CdExpressionError(
                    format: format, message: "unexpected '\(parser.text[parser.at])'", offset: parser.at)
            }
            root = node
            parseError = nil
        } catch let error as CdExpressionError {
            root = nil
            parseError = error
        } catch {
            root = nil
            parseError = CdExpressionError(format: format, message: "\(error)", offset: 0)
        }
    }

    public var description: String { format }

    /// The attributes the expression reads.
    var attributes: Set<String> {
        var names = Set<String>()
        func walk(_ node: Node) {
            switch node {
            case .number: return
            case let .attribute(name): names.insert(name)
            case let .negate(inner): walk(inner)
            case let .binary(_, a, b):
                walk(a)
                walk(b)
            }
        }
        if let root { walk(root) }
        return names
    }

    /// The value for one object whose attributes are `values`.
    func evaluate(_ values: [String: PropertyValue], object: ObjectID) throws -> CdValue {
        if let parseError { throw parseError }
        return try Self.evaluate(root!, values, object, format)
    }

    private static func evaluate(
        _ node: Node, _ values: [String: PropertyValue], _ object: ObjectID, _ format: String
    ) throws -> CdValue {
        func fail(_ message: String) -> CdExpressionError {
            CdExpressionError(format: format, message: message + " (object \(object))", offset: 0)
        }
        switch node {
        case let .number(v): return v
        case let .attribute(name):
            guard let value = values[name] else { return .null }
            guard case let .attribute(v) = value else { throw fail("'\(name)' is a relationship, not a number") }
            switch v {
            case .null, .integer, .double: return v
            case let .decimal(d): return .double(NSDecimalNumber(decimal: d).doubleValue)
            default: throw fail("'\(name)' is \(v), not a number")
            }
        case let .negate(inner):
            switch try evaluate(inner, values, object, format) {
            case let .integer(i):
                guard i != .min else { throw fail("-(\(i)) overflows") }
                return .integer(-i)
            case let .double(d): return .double(-d)
            default: return .null
            }
        case let .binary(op, a, b):
            let x = try evaluate(a, values, object, format), y = try evaluate(b, values, object, format)
            if case let .integer(i) = x, case let .integer(j) = y {
                let (r, overflow): (Int64, Bool)
                switch op {
                case "+": (r, overflow) = i.addingReportingOverflow(j)
                case "-": (r, overflow) = i.subtractingReportingOverflow(j)
                case "*": (r, overflow) = i.multipliedReportingOverflow(by: j)
                default:
                    guard j != 0 else { throw fail("division by zero") }
                    if i % j == 0, !(i == .min && j == -1) { return .integer(i / j) }
                    return .double(Double(i) / Double(j))
                }
                guard !overflow else { throw fail("\(i) \(op) \(j) overflows a 64-bit integer") }
                return .integer(r)
            }
            func double(_ v: CdValue) -> Double? {
                switch v {
                case let .integer(i): return Double(i)
                case let .double(d): return d
                default: return nil
                }
            }
            guard let p = double(x), let q = double(y) else { return .null }
            switch op {
            case "+": return .double(p + q)
            case "-": return .double(p - q)
            case "*": return .double(p * q)
            default:
                guard q != 0 else { throw fail("division by zero") }
                return .double(p / q)
            }
        }
    }

    /// A recursive-descent parser over the grammar in the header. Every node it builds is at
    /// most `maxHeight` levels tall, so that neither the parse nor the recursive walks of the
    /// tree (evaluation, hashing, its release) can exhaust a thread's stack, whatever the text.
    private struct Parser {
        /// The tallest expression tree accepted (nesting and chained operators both count).
        static let maxHeight = 200

        let text: [Character]
        var at = 0
        /// How many parentheses and negations enclose the factor being parsed.
        var nesting = 0

        mutating func skipSpaces() { while at < text.count, text[at].isWhitespace { at += 1 } }

        /// `node` with its height, refused past `maxHeight`.
        func checked(_ node: Node, height: Int) throws -> (node: Node, height: Int) {
            guard height <= Self.maxHeight else {
                throw error("the expression nests or chains more than \(Self.maxHeight) levels deep")
            }
            return (node, height)
        }

        mutating func expression() throws -> (node: Node, height: Int) {
            var (node, height) = try term()
            while true {
                skipSpaces()
                guard at < text.count, text[at] == "+" || text[at] == "-" else { return (node, height) }
                let op = text[at]
                at += 1
                let right = try term()
                (node, height) = try checked(.binary(op, node, right.node), height: max(height, right.height) + 1)
            }
        }

        mutating func term() throws -> (node: Node, height: Int) {
            var (node, height) = try factor()
            while true {
                skipSpaces()
                guard at < text.count, text[at] == "*" || text[at] == "/" else { return (node, height) }
                let op = text[at]
                at += 1
                let right = try factor()
                (node, height) = try checked(.binary(op, node, right.node), height: max(height, right.height) + 1)
            }
        }

        mutating func factor() throws -> (node: Node, height: Int) {
            skipSpaces()
            guard at < text.count else { throw error("an operand is missing at the end") }
            guard nesting < Self.maxHeight else {
                throw error("the expression nests or chains more than \(Self.maxHeight) levels deep")
            }
            let c = text[at]
            if c == "-" {
                at += 1
                nesting += 1
                defer { nesting -= 1 }
                let inner = try factor()
                return try checked(.negate(inner.node), height: inner.height + 1)
            }
            if c == "(" {
                at += 1
                nesting += 1
                defer { nesting -= 1 }
                let inner = try expression()
                skipSpaces()
                guard at < text.count, text[at] == ")" else { throw error("')' expected") }
                at += 1
                return inner
            }
            if c.isNumber || c == "." {
                let start = at
                while at < text.count, text[at].isNumber || text[at] == "." || text[at] == "_" { at += 1 }
                let literal = String(text[start..<at]).replacingOccurrences(of: "_", with: "")
                if let i = Int64(literal) { return (.number(.integer(i)), 1) }
                if let d = Double(literal) { return (.number(.double(d)), 1) }
                at = start
                throw error("'\(literal)' is not a number")
            }
            if c.isLetter || c == "_" {
                let start = at
                while at < text.count, text[at].isLetter || text[at].isNumber || text[at] == "_" { at += 1 }
                if at < text.count, text[at] == "." {
                    throw error("key paths through relationships are not supported; name an attribute")
                }
                return (.attribute(String(text[start..<at])), 1)
            }
            throw error("unexpected '\(c)'")
        }

        func error(_ message: String) -> CdExpressionError {
            CdExpressionError(format: String(text), message: message, offset: at)
        }
    }
}

/// A batch update's expression that does not parse, names an attribute that is not a number,
/// or cannot be computed for an object (overflow, division by zero).
public struct CdExpressionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expression's text.
    public let format: String
    /// What is wrong.
    public let message: String
    /// Where in `format` (characters from the start), for parse errors.
    public let offset: Int

    public var description: String { "CdExpression \"\(format)\" at \(offset): \(message)" }
}
