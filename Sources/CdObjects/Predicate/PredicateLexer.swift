// The lexer of the format language. It works on `Character`s so that every offset it reports is
// a character offset into the format string, as `CdPredicateError.offset` promises.
//
// Keywords are not tokens of their own: an identifier's text is matched case-insensitively by the
// parser, and `#name` forces an identifier even when `name` is a keyword (as NSPredicate does).

import Foundation

/// One token and where it starts.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String, escaped: Bool)
        case string(String)
        case integer(Int64)
        case double(Double)
        case variable(String)  // $NAME
        case atFunction(String)  // @count, @sum, …
        case format(String)  // "@", "K", "d", "ld", "f", …  (without the %)
        case symbol(String)  // == != <= >= < > = && || ! ( ) { } , . [ ] -
        case end
    }
    let kind: Kind
    let offset: Int
}

struct PredicateLexer {
    private let chars: [Character]
    private var index = 0

    init(_ text: String) { chars = Array(text) }

    /// All tokens, ending with `.end`.
    static func tokenize(_ text: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        var tokens: [PredicateToken] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ ahead: Int = 0) -> Character? {
        index + ahead < chars.count ? chars[index + ahead] : nil
    }

    private static func isIdentifierStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
    private static func isIdentifierPart(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    private mutating func identifier() -> String {
        let start = index
        while let c = peek(), Self.isIdentifierPart(c) { index += 1 }
        return String(chars[start..<index])
    }

    mutating func next() throws -> PredicateToken {
        while let c = peek(), c.isWhitespace { index += 1 }
        let start = index
        guard let c = peek() else { return PredicateToken(kind: .end, offset: start) }

        if Self.isIdentifierStart(c) {
            return PredicateToken(kind: .identifier(identifier(), escaped: false), offset: start)
        }
        if c.isASCII, c.isNumber { return try number(start: start) }
        switch c {
        case "#":
            index += 1
            guard let n = peek(), Self.isIdentifierStart(n) else {
                throw CdPredicateError.syntax("a key after '#'", at: index)
            }
            return PredicateToken(kind: .identifier(identifier(), escaped: true), offset: start)
        case "$":
            index += 1
            guard let n = peek(), Self.isIdentifierStart(n) else {
                throw CdPredicateError.syntax("a variable name after '$'", at: index)
            }
            return PredicateToken(kind: .variable(identifier()), offset: start)
        case "@":
            index += 1
            guard let n = peek(), Self.isIdentifierStart(n) else {
                throw CdPredicateError.syntax("a function name after '@'", at: index)
            }
            return PredicateToken(kind: .atFunction(identifier()), offset: start)
        case "%":
            index += 1
            for spec in ["@", "K", "lld", "ld", "lf", "d", "i", "u", "f"] where matches(spec) {
                index += spec.count
                return PredicateToken(kind: .format(spec), offset: start)
            }
            throw CdPredicateError.syntax("a format specifier (%@, %K, %d, %i, %ld, %lld, %u, %f, %lf)", at: start)
        case "\"", "'":
            return PredicateToken(kind: .string(try string(quote: c)), offset: start)
        default:
            break
        }
        for symbol in ["==", "!=", "<>", "<=", ">=", "=<", "=>", "&&", "||"] where matches(symbol) {
            index += 2
            let canonical = ["<>": "!=", "=<": "<=", "=>": ">="][symbol] ?? symbol
            return PredicateToken(kind: .symbol(canonical), offset: start)
        }
        if "=<>!(){},.[]-".contains(c) {
            index += 1
            return PredicateToken(kind: .symbol(c == "=" ? "==" : String(c)), offset: start)
        }
        throw CdPredicateError(.syntax, "unexpected character '\(c)' at offset \(start)", offset: start)
    }

    private func matches(_ text: String) -> Bool {
        for (i, ch) in text.enumerated() where peek(i) != ch { return false }
        return true
    }

    private mutating func number(start: Int) throws -> PredicateToken {
        if peek() == "0", let p = peek(1), "xXoObB".contains(p) {
            let radix = "xX".contains(p) ? 16 : "oO".contains(p) ? 8 : 2
            index += 2
            let digitsStart = index
            while let c = peek(), c.isHexDigit { index += 1 }
            let digits = String(chars[digitsStart..<index])
            guard !digits.isEmpty, let value = Int64(digits, radix: radix) else {
                throw CdPredicateError.syntax("a base-\(radix) integer", at: digitsStart)
            }
            return PredicateToken(kind: .integer(value), offset: start)
        }
        var isDouble = false
        while let c = peek(), c.isASCII, c.isNumber { index += 1 }
        if peek() == ".", let n = peek(1), n.isASCII, n.isNumber {
            isDouble = true
            index += 1
            while let c = peek(), c.isASCII, c.isNumber { index += 1 }
        }
        if let e = peek(), e == "e" || e == "E" {
            var j = 1
            if let s = peek(1), s == "+" || s == "-" { j = 2 }
            if let d = peek(j), d.isASCII, d.isNumber {
                isDouble = true
                index += j
                while let c = peek(), c.isASCII, c.isNumber { index += 1 }
            }
        }
        let text = String(chars[start..<index])
        if isDouble {
            guard let value = Double(text) else { throw CdPredicateError.syntax("a number", at: start) }
            return PredicateToken(kind: .double(value), offset: start)
        }
        guard let value = Int64(text) else {
            throw CdPredicateError(.syntax, "integer literal out of range at offset \(start)", offset: start)
        }
        return PredicateToken(kind: .integer(value), offset: start)
    }

    private mutating func string(quote: Character) throws -> String {
        let start = index
        index += 1
        var result = ""
        while let c = peek() {
            index += 1
            if c == quote { return result }
            guard c == "\\" else { result.append(c); continue }
            guard let e = peek() else { break }
            index += 1
            switch e {
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "r": result.append("\r")
            case "0": result.append("\0")
            case "u":
                let hexStart = index
                while let h = peek(), h.isHexDigit, index - hexStart < 4 { index += 1 }
                guard index - hexStart == 4,
                    let code = UInt32(String(chars[hexStart..<index]), radix: 16),
                    let scalar = Unicode.Scalar(code)
                else { throw CdPredicateError.syntax("four hex digits after \\u", at: hexStart) }
                result.unicodeScalars.append(scalar)
            default: result.append(e)  // \\ \" \' and any other escaped character stand for themselves
            }
        }
        throw CdPredicateError.syntax("closing \(quote) for the string starting", at: start)
    }
}
