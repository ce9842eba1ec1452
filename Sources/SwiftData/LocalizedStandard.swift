// `localizedStandardContains` in `#Predicate`, and the `.localizedStandard` string comparator:
// both exist on Apple's systems only (Foundation keeps them under FOUNDATION_FRAMEWORK), so
// predicates and sorts that use them would not compile here. The `#Predicate` macro turns
// `$0.name.localizedStandardContains(text)` into `PredicateExpressions.build_localizedStandardContains`,
// which this file supplies; the store runs it as CONTAINS[cd] (case- and diacritic-insensitive).

import Foundation

/// This module's `localizedStandardContains` node, recognised by the translation.
protocol LocalizedStandardContainsNode {
    var baseNode: Any { get }
    var otherNode: Any { get }
}

extension PredicateExpressions {
    /// `base.localizedStandardContains(other)` in a `#Predicate`: whether `other` occurs in
    /// `base`, ignoring case and diacritics.
    public struct LocalizedStandardContains<Base: PredicateExpression, Other: PredicateExpression>: PredicateExpression,
        LocalizedStandardContainsNode
    where Base.Output: StringProtocol, Other.Output: StringProtocol {
        /// Whether `other` occurs in `base`.
        public typealias Output = Bool
        /// The string searched.
        public let base: Base
        /// The string searched for.
        public let other: Other

        /// The node of `base.localizedStandardContains(other)`.
        public init(base: Base, other: Other) {
            self.base = base
            self.other = other
        }

        /// Evaluates the node in memory (the store runs it as CONTAINS[cd] in a fetch).
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            let text = String(try base.evaluate(bindings)), part = String(try other.evaluate(bindings))
            return text.range(of: part, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }

        var baseNode: Any { base }
        var otherNode: Any { other }
    }

    /// What `#Predicate` calls for `localizedStandardContains`.
    public static func build_localizedStandardContains<Base, Other>(
        _ base: Base, _ other: Other
    ) -> LocalizedStandardContains<Base, Other> {
        LocalizedStandardContains(base: base, other: other)
    }
}

extension PredicateExpressions.LocalizedStandardContains: Sendable where Base: Sendable, Other: Sendable {}

extension PredicateExpressions.LocalizedStandardContains: Codable where Base: Codable, Other: Codable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(base)
        try container.encode(other)
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        base = try container.decode(Base.self)
        other = try container.decode(Other.self)
    }
}

extension PredicateExpressions.LocalizedStandardContains: StandardPredicateExpression
where Base: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension String.StandardComparator {
    /// Apple's localized standard comparison. Foundation here cannot make that comparator, so
    /// this is `.lexical`; a fetch sorts every String property case-insensitively, which is what
    /// SwiftData's default `SortDescriptor` over a String (`.localizedStandard`) does, so both
    /// spellings sort the same in a fetch.
    public static var localizedStandard: String.StandardComparator { .lexical }
}
