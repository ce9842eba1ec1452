// Recursive-descent parser from format tokens to the `CdPredicate` AST. The grammar it implements
// is written out in docs/PREDICATES.md; each `parse…` function below is one rule of it.
//
// Format arguments are bound while parsing (each `%` consumes the next argument), so the AST
// holds constants, never placeholders. Missing and extra arguments are errors. The one exception
// is a template parse (`PredicateTemplate`), which leaves each argument as a slot variable.

import Foundation

struct PredicateParser {
    private let tokens: [PredicateToken]
    private var position = 0
    /// How deeply the parse is nested now (parentheses, NOT, unary minus, aggregates, …).
    private var depth = 0
    /// The deepest nesting a format may have: each level is a frame of the recursive descent, and
    /// a format of thousands of `(` or `-` would otherwise overflow the thread's stack.
    static let maxDepth = 200
    private let arguments: [Any]
    private var argumentIndex = 0
    /// A template parse: specifiers become slot variables and are listed in `slots`.
    private let isTemplate: Bool
    /// In a template parse, each specifier met, in order: what it was and where.
    private(set) var slots: [PredicateTemplate.Slot] = []

    /// Words that cannot be keys unless escaped with `#`.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "ANY", "ALL", "NONE", "SOME", "BETWEEN", "LIKE", "MATCHES",
        "CONTAINS", "BEGINSWITH", "ENDSWITH", "TRUEPREDICATE", "FALSEPREDICATE", "NULL", "NIL",
        "SELF", "TRUE", "FALSE", "YES", "NO", "SUBQUERY", "CAST",
    ]

    init(format: String, arguments: [Any]) throws {
        tokens = try PredicateLexer.tokenize(format)
        self.arguments = arguments
        isTemplate = false
    }

    /// A template parse of `format` (see `PredicateTemplate`).
    init(templateFormat format: String) throws {
        tokens = try PredicateLexer.tokenize(format)
        arguments = []
        isTemplate = true
    }

    mutating func parse() throws -> CdPredicate {
        let predicate = try parseOr()
        guard case .end = current.kind else { throw expected("an operator, AND, OR or the end") }
        if !isTemplate && argumentIndex < arguments.count {
            throw CdPredicateError(
                .extraArgument,
                "\(arguments.count) arguments were passed but the format uses \(argumentIndex)"
            )
        }
        return predicate
    }

    /// Parses a standalone key path such as a `%K` argument: `department.name`, `employees.@count`.
    static func keyPath(_ text: String, source: PredicateArgument.Source) throws -> CdPredicateExpression {
        var parser: PredicateParser
        do { parser = try PredicateParser(format: text, arguments: []) } catch {
            throw CdPredicateError(.unsupportedArgument, "\(source.text) is not a key path: '\(text)'")
        }
        guard let expression = try? parser.parsePostfix(allowKeywords: true),
            case .end = parser.current.kind,
            expression.isKeyPathLike
        else { throw CdPredicateError(.unsupportedArgument, "\(source.text) is not a key path: '\(text)'") }
        return expression
    }

    // MARK: - Tokens

    private var current: PredicateToken { tokens[position] }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private func expected(_ what: String) -> CdPredicateError { .syntax(what, at: current.offset) }

    private func isSymbol(_ s: String) -> Bool { current.kind == .symbol(s) }

    /// The upper-cased word of an unescaped identifier token, or nil.
    private var keyword: String? {
        if case let .identifier(name, escaped: false) = current.kind { return name.uppercased() }
        return nil
    }

    private mutating func expectSymbol(_ s: String) throws {
        guard isSymbol(s) else { throw expected("'\(s)'") }
        advance()
    }

    // MARK: - Predicates

    /// Runs `body` one level deeper, refusing a format nested past `maxDepth`.
    private mutating func nested<T>(_ body: (inout PredicateParser) throws -> T) throws -> T {
        guard depth < Self.maxDepth else {
            throw CdPredicateError(
                .syntax, "the format nests more than \(Self.maxDepth) levels deep", offset: current.offset)
        }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func parseOr() throws -> CdPredicate {
        try nested { try $0.parseOrLevel() }
    }

    private mutating func parseOrLevel() throws -> CdPredicate {
        var left = try parseAnd()
        while keyword == "OR" || isSymbol("||") {
            advance()
            left = .or(left, try parseAnd())
        }
        return left
    }

    private mutating func parseAnd() throws -> CdPredicate {
        var left = try parseNot()
        while keyword == "AND" || isSymbol("&&") {
            advance()
            left = .and(left, try parseNot())
        }
        return left
    }

    private mutating func parseNot() throws -> CdPredicate {
        if keyword == "NOT" || isSymbol("!") {
            advance()
            return .not(try nested { try $0.parseNot() })
        }
        return try parsePrimaryPredicate()
    }

    private mutating func parsePrimaryPredicate() throws -> CdPredicate {
        if isSymbol("(") {
            advance()
            let inner = try parseOr()
            try expectSymbol(")")
            return inner
        }
        switch keyword {
        case "TRUEPREDICATE": advance(); return .constant(true)
        case "FALSEPREDICATE": advance(); return .constant(false)
        default: return try parseComparison()
        }
    }

    private mutating func parseComparison() throws -> CdPredicate {
        var quantifier = PredicateQuantifier.direct
        var negate = false
        switch keyword {
        case "ANY", "SOME": quantifier = .any; advance()
        case "ALL": quantifier = .all; advance()
        case "NONE": quantifier = .any; negate = true; advance()  // keeps CP2
        default: break
        }
        let left = try parseExpression()
        let op = try parseOperator()
        var options: PredicateStringOptions = []
        if isSymbol("[") {
            let optionsOffset = current.offset
            advance()
            guard case let .identifier(letters, escaped: false) = current.kind else {
                throw expected("comparison options c, d or n")
            }
            for letter in letters.lowercased() {
                switch letter {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                case "n": options.insert(.normalized)
                default: throw expected("comparison options c, d or n")
                }
            }
            guard op.acceptsStringOptions else {
                throw CdPredicateError(
                    .syntax, "operator \(op.rawValue) takes no options at offset \(optionsOffset)",
                    offset: optionsOffset)
            }
            advance()
            try expectSymbol("]")
        }
        let rightOffset = current.offset
        let right = try parseExpression()
        if op == .between {
            guard case let .aggregate(bounds) = right, bounds.count == 2 else {
                throw CdPredicateError(
                    .syntax, "expected a two-element collection after BETWEEN at offset \(rightOffset)",
                    offset: rightOffset)
            }
        }
        let comparison = CdPredicate.comparison(
            PredicateComparison(left, op, right, quantifier: quantifier, options: options))
        return negate ? .not(comparison) : comparison
    }

    private mutating func parseOperator() throws -> PredicateOperator {
        if case let .symbol(s) = current.kind {
            let op: PredicateOperator? =
                switch s {
                case "==": .equal
                case "!=": .notEqual
                case "<": .lessThan
                case "<=": .lessThanOrEqual
                case ">": .greaterThan
                case ">=": .greaterThanOrEqual
                default: nil
                }
            if let op { advance(); return op }
        }
        if let word = keyword, let op = PredicateOperator.allCases.first(where: { $0.rawValue == word }) {
            advance()
            return op
        }
        throw expected("a comparison operator")
    }

    // MARK: - Expressions

    private mutating func parseExpression() throws -> CdPredicateExpression {
        try parsePostfix(allowKeywords: false)
    }

    /// primary ( "." key | "." @function )*
    mutating func parsePostfix(allowKeywords: Bool) throws -> CdPredicateExpression {
        var expression = try parsePrimary(allowKeywords: allowKeywords)
        while isSymbol(".") {
            advance()
            switch current.kind {
            case let .atFunction(name):
                expression = .function(try aggregateFunction(name), expression)
                advance()
            case let .identifier(name, escaped):
                if !escaped, !allowKeywords, Self.reservedWords.contains(name.uppercased()) {
                    throw expected("a key (escape reserved words with #)")
                }
                expression = try Self.appendKey(name, to: expression, offset: current.offset)
                advance()
            default:
                throw expected("a key or @function after '.'")
            }
        }
        return expression
    }

    /// Extends a key path by one key; after `@sum` etc. the key applies to the elements.
    static func appendKey(
        _ key: String, to expression: CdPredicateExpression, offset: Int
    ) throws -> CdPredicateExpression {
        switch expression {
        case let .keyPath(base, keys): return .keyPath(base, keys + [key])
        case let .function(function, inner) where function != .count:
            return .function(function, try appendKey(key, to: inner, offset: offset))
        case .function:
            throw CdPredicateError(
                .syntax, "expected the end of the key path after @count at offset \(offset)", offset: offset)
        default: return .keyPath(expression, [key])
        }
    }

    private func aggregateFunction(_ name: String) throws -> PredicateAggregateFunction {
        guard let function = PredicateAggregateFunction(rawValue: "@" + name.lowercased()) else {
            throw expected("one of @count, @sum, @avg, @min, @max")
        }
        return function
    }

    private mutating func parsePrimary(allowKeywords: Bool) throws -> CdPredicateExpression {
        try nested { try $0.parsePrimaryLevel(allowKeywords: allowKeywords) }
    }

    private mutating func parsePrimaryLevel(allowKeywords: Bool) throws -> CdPredicateExpression {
        let token = current
        switch token.kind {
        case let .string(s): advance(); return .constant(.string(s))
        case let .integer(v): advance(); return .constant(.integer(v))
        case let .double(v): advance(); return .constant(.double(v))
        case let .variable(name): advance(); return .variable(name)
        case let .atFunction(name):
            // `@sum.salary` on its own: the function applies to SELF.
            let function = try aggregateFunction(name)
            advance()
            return .function(function, .evaluatedObject)
        case let .format(spec):
            advance()
            return try bindArgument(spec, offset: token.offset)
        case .symbol("-"):
            advance()
            let operandOffset = current.offset
            let operand = try parsePrimary(allowKeywords: false)
            switch operand {
            case let .constant(.integer(v)): return .constant(.integer(-v))
            case let .constant(.double(v)): return .constant(.double(-v))
            case let .constant(.decimal(v)): return .constant(.decimal(-v))
            default: throw CdPredicateError.syntax("a number after '-'", at: operandOffset)
            }
        case .symbol("{"):
            advance()
            var elements: [CdPredicateExpression] = []
            if !isSymbol("}") {
                elements.append(try parseExpression())
                while isSymbol(",") {
                    advance()
                    elements.append(try parseExpression())
                }
            }
            try expectSymbol("}")
            return .aggregate(elements)
        case let .identifier(name, escaped):
            if escaped || allowKeywords && !["SELF"].contains(name.uppercased()) {
                advance()
                return .keyPath(.evaluatedObject, [name])
            }
            switch name.uppercased() {
            case "NIL", "NULL": advance(); return .constant(.null)
            case "TRUE", "YES": advance(); return .constant(.bool(true))
            case "FALSE", "NO": advance(); return .constant(.bool(false))
            case "SELF": advance(); return .evaluatedObject
            case "SUBQUERY": return try parseSubquery()
            case "CAST": return try parseCast()
            case let word where Self.reservedWords.contains(word): throw expected("an expression")
            default: advance(); return .keyPath(.evaluatedObject, [name])
            }
        default:
            throw expected("an expression")
        }
    }

    private mutating func parseSubquery() throws -> CdPredicateExpression {
        advance()
        try expectSymbol("(")
        let collection = try parseExpression()
        try expectSymbol(",")
        guard case let .variable(name) = current.kind else { throw expected("a $variable") }
        advance()
        try expectSymbol(",")
        let predicate = try parseOr()
        try expectSymbol(")")
        return .subquery(collection: collection, variable: name, predicate: predicate)
    }

    private mutating func parseCast() throws -> CdPredicateExpression {
        advance()
        try expectSymbol("(")
        let valueOffset = current.offset
        let value = try parseExpression()
        try expectSymbol(",")
        guard case let .string(typeName) = current.kind else { throw expected("a class name string") }
        let typeOffset = current.offset
        advance()
        try expectSymbol(")")
        guard case let .constant(constant) = value else {
            throw CdPredicateError(.syntax, "expected a constant to CAST at offset \(valueOffset)", offset: valueOffset)
        }
        guard let result = PredicateCast.cast(constant, to: typeName) else {
            throw CdPredicateError(
                .syntax, "cannot CAST \(constant) to '\(typeName)' at offset \(typeOffset)", offset: typeOffset)
        }
        return .constant(result)
    }

    // MARK: - Arguments

    private mutating func bindArgument(_ spec: String, offset: Int) throws -> CdPredicateExpression {
        if isTemplate {
            // A %K changes the tree's shape, not a value in it: no template.
            guard spec != "K" else { throw PredicateTemplate.NotATemplate() }
            slots.append(PredicateTemplate.Slot(specifier: spec, offset: offset))
            return .variable(PredicateTemplate.slotName(slots.count - 1))
        }
        guard argumentIndex < arguments.count else {
            throw CdPredicateError(
                .missingArgument,
                "format specifier %\(spec) at offset \(offset) has no argument (\(arguments.count) passed)",
                offset: offset)
        }
        let value = arguments[argumentIndex]
        let source = PredicateArgument.Source.argument(argumentIndex)
        argumentIndex += 1
        switch spec {
        case "@": return try PredicateArgument.expression(value, source: source)
        case "K":
            guard
                let key = PredicateArgument.unwrapOptional(value).flatMap({
                    $0 as? String ?? ($0 as? Substring).map(String.init)
                })
            else {
                throw CdPredicateError(
                    .unsupportedArgument,
                    "\(source.text) for %K must be a String key path, not \(type(of: value))")
            }
            return try Self.keyPath(key, source: source)
        case "f", "lf": return try PredicateArgument.double(value, source: source, specifier: spec)
        default: return try PredicateArgument.integer(value, source: source, specifier: spec)
        }
    }
}

extension CdPredicateExpression {
    /// True for expressions a `%K` may stand for: key paths and aggregates of key paths.
    var isKeyPathLike: Bool {
        switch self {
        case let .keyPath(base, _): return base == .evaluatedObject
        case let .function(_, inner): return inner == .evaluatedObject || inner.isKeyPathLike
        default: return false
        }
    }
}

extension CdPredicate {
    /// Parses `format`, binding `%@ %K %d …` to `arguments` in order.
    ///
    /// ```swift
    /// let p = try CdPredicate(format: "%K BEGINSWITH[c] %@", "name", "an")
    /// ```
    public init(format: String, _ arguments: Any...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses `format`, binding `%@ %K %d …` to the elements of `argumentArray` in order. To parse
    /// one format many times with different arguments, keep a ``PredicateTemplate`` of it.
    public init(format: String, argumentArray: [Any]) throws {
        var parser = try PredicateParser(format: format, arguments: argumentArray)
        self = try parser.parse()
    }
}
