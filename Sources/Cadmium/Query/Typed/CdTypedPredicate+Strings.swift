// The string and membership functions of typed predicates: `beginsWith`, `endsWith`, `contains`,
// `like`, `matches` (each with the format's `[c]` and `[d]` as `caseInsensitive:` and
// `diacriticInsensitive:`), and `isIn` for `key IN {…}`.

import Foundation
import CdObjects

/// A string attribute's Swift type: `String` or `String?`.
public protocol CdStringAttributeValue: CdAttributeValue {}
extension String: CdStringAttributeValue {}
extension Optional: CdStringAttributeValue where Wrapped == String {}

/// `key BEGINSWITH[cd] prefix`.
public func beginsWith<Root, S: CdStringAttributeValue>(
    _ keyPath: KeyPath<Root, S>, _ prefix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
) -> CdTypedPredicate<Root> {
    .comparison(
        keyPathExpression(keyPath), .beginsWith, .constant(.string(prefix)),
        options: stringOptions(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
}

/// `key ENDSWITH[cd] suffix`.
public func endsWith<Root, S: CdStringAttributeValue>(
    _ keyPath: KeyPath<Root, S>, _ suffix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
) -> CdTypedPredicate<Root> {
    .comparison(
        keyPathExpression(keyPath), .endsWith, .constant(.string(suffix)),
        options: stringOptions(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
}

/// `key CONTAINS[cd] part`.
public func contains<Root, S: CdStringAttributeValue>(
    _ keyPath: KeyPath<Root, S>, _ part: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
) -> CdTypedPredicate<Root> {
    .comparison(
        keyPathExpression(keyPath), .contains, .constant(.string(part)),
        options: stringOptions(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
}

/// `key LIKE[cd] pattern`: `*` matches any run of characters, `?` one character.
public func like<Root, S: CdStringAttributeValue>(
    _ keyPath: KeyPath<Root, S>, _ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
) -> CdTypedPredicate<Root> {
    .comparison(
        keyPathExpression(keyPath), .like, .constant(.string(pattern)),
        options: stringOptions(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
}

/// `key MATCHES[cd] regex`: the whole string matches the regular expression.
public func matches<Root, S: CdStringAttributeValue>(
    _ keyPath: KeyPath<Root, S>, _ regex: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
) -> CdTypedPredicate<Root> {
    .comparison(
        keyPathExpression(keyPath), .matches, .constant(.string(regex)),
        options: stringOptions(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
}

/// `key IN {values…}` (`[c]`/`[d]` apply to string values).
public func isIn<Root, Value: CdAttributeValue & Equatable>(
    _ keyPath: KeyPath<Root, Value>, _ values: some Sequence<Value>, caseInsensitive: Bool = false,
    diacriticInsensitive: Bool = false
) -> CdTypedPredicate<Root> {
    .comparison(
        keyPathExpression(keyPath), .in, .aggregate(values.map { .constant($0.cdValue) }),
        options: stringOptions(caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
}
