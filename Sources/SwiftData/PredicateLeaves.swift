// The leaves of a `#Predicate` tree, read without translating it: its key paths, its captured
// values and its comparison operators, in a fixed order. Two predicates of one expression type
// whose key paths and operators agree differ only in their values, so the store form of one is
// the store form of the other with the values replaced (PredicateRequestCache.swift): the tree is
// translated once per shape, and each fetch only lists its leaves.
//
// Invariants:
//  PL1. A node type conforms only where each of its child expression types conforms, so
//       `expression as? any PredicateLeaves` succeeds exactly for trees made wholly of the node
//       types listed here, and the walk then makes no dynamic cast.
//  PL2. Leaves are listed depth first, children in the order the node declares them; every tree
//       of one expression type lists the same number of leaves of the same kinds in the same
//       positions.
//  PL3. Every stored part of a node that is not a child expression and that the translation
//       reads (a comparison's operator) is a leaf; variables are not (they are bound anew by
//       each translation and never appear in its result).

import Foundation

/// One leaf of a predicate tree (PL2).
enum PredicateLeaf {
    /// A key path node's key path.
    case keyPath(AnyKeyPath)
    /// A captured or literal value.
    case value(Any)
    /// A comparison's operator (PL3).
    case comparison(Int)
}

/// A `#Predicate` node whose leaves can be listed (PL1). Its metatype is sendable, so that the
/// cache's walker of a tree type (PC4 of PredicateRequestCache.swift) may be used from any context.
protocol PredicateLeaves: SendableMetatype {
    /// Appends this node's leaves, depth first (PL2).
    func collectLeaves(into leaves: inout [PredicateLeaf])
}

extension PredicateExpressions.Variable: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {}
}

extension PredicateExpressions.NilLiteral: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {}
}

extension PredicateExpressions.Value: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) { leaves.append(.value(value)) }
}

extension PredicateExpressions.KeyPath: PredicateLeaves where Root: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        root.collectLeaves(into: &leaves)
        leaves.append(.keyPath(keyPath))
    }
}

extension PredicateExpressions.ForcedUnwrap: PredicateLeaves where Inner: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) { inner.collectLeaves(into: &leaves) }
}

extension PredicateExpressions.OptionalFlatMap: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        wrapped.collectLeaves(into: &leaves)
        transform.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.Equal: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        lhs.collectLeaves(into: &leaves)
        rhs.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.NotEqual: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        lhs.collectLeaves(into: &leaves)
        rhs.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.Comparison: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        lhs.collectLeaves(into: &leaves)
        rhs.collectLeaves(into: &leaves)
        let code: Int
        switch op {
        case .lessThan: code = 0
        case .lessThanOrEqual: code = 1
        case .greaterThan: code = 2
        case .greaterThanOrEqual: code = 3
        @unknown default: code = -1
        }
        leaves.append(.comparison(code))  // keeps PL3
    }
}

extension PredicateExpressions.Conjunction: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        lhs.collectLeaves(into: &leaves)
        rhs.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.Disjunction: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        lhs.collectLeaves(into: &leaves)
        rhs.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.Negation: PredicateLeaves where Wrapped: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) { wrapped.collectLeaves(into: &leaves) }
}

extension PredicateExpressions.SequenceStartsWith: PredicateLeaves
where Base: PredicateLeaves, Prefix: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        base.collectLeaves(into: &leaves)
        prefix.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateLeaves
where Base: PredicateLeaves, Other: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        base.collectLeaves(into: &leaves)
        other.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.SequenceContains: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        sequence.collectLeaves(into: &leaves)
        element.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.SequenceContainsWhere: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        sequence.collectLeaves(into: &leaves)
        test.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        sequence.collectLeaves(into: &leaves)
        test.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.RangeExpressionContains: PredicateLeaves
where RangeExpression: PredicateLeaves, Element: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        range.collectLeaves(into: &leaves)
        element.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.ClosedRange: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        lower.collectLeaves(into: &leaves)
        upper.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.Range: PredicateLeaves where LHS: PredicateLeaves, RHS: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        lower.collectLeaves(into: &leaves)
        upper.collectLeaves(into: &leaves)
    }
}

extension PredicateExpressions.LocalizedStandardContains: PredicateLeaves
where Base: PredicateLeaves, Other: PredicateLeaves {
    func collectLeaves(into leaves: inout [PredicateLeaf]) {
        base.collectLeaves(into: &leaves)
        other.collectLeaves(into: &leaves)
    }
}
