// `CdTypedPredicate<Root>`: a predicate built from key paths (`\.salary > 100_000`), checked by
// the compiler against `Root`'s property types and turned into the store's `CdPredicate`, so it
// runs with the same planner and indexes as the format string it stands for. A key path that
// cannot be resolved to property names is carried as a `CdQueryError` and thrown by the request's
// terminals, as a format string's parse error is.
//
// Only a key path (or a to-many aggregate, `count(\.employees)`) on the left of an operator makes
// a predicate, so ordinary Boolean expressions in the same file keep their meaning.

import Foundation
import CdObjects

/// A predicate on objects (or values) of `Root`, written with key paths.
///
/// ```swift
/// let p: CdTypedPredicate<Employee> = \.salary > 100_000 && \.department?.name == "R&D"
/// let top = try Cd.objects(Employee.self).filter(p).fetch()
/// print(try p.predicate())    // salary > 100000 AND department.name == "R&D"
/// ```
public struct CdTypedPredicate<Root>: Sendable {
    /// The store's predicate, or why there is none.
    let result: Result<CdPredicate, CdQueryError>

    init(_ result: Result<CdPredicate, CdQueryError>) { self.result = result }

    /// A predicate that is `CdPredicate` `predicate` as it is.
    public init(_ predicate: CdPredicate) { self.result = .success(predicate) }

    /// The store's predicate; throws the error of a key path that names no stored property.
    public func predicate() throws -> CdPredicate { try result.get() }

    /// Combines two predicates' results (the first error wins).
    static func combine(
        _ lhs: CdTypedPredicate, _ rhs: CdTypedPredicate, _ make: (CdPredicate, CdPredicate) -> CdPredicate
    ) -> CdTypedPredicate {
        switch (lhs.result, rhs.result) {
        case let (.success(l), .success(r)): return CdTypedPredicate(.success(make(l, r)))
        case let (.failure(e), _), let (_, .failure(e)): return CdTypedPredicate(.failure(e))
        }
    }

    /// A comparison whose left side is `left` (a key path's or aggregate's expression).
    static func comparison(
        _ left: Result<CdPredicateExpression, CdQueryError>, _ op: PredicateOperator, _ right: CdPredicateExpression,
        options: PredicateStringOptions = []
    ) -> CdTypedPredicate {
        CdTypedPredicate(left.map { .comparison(PredicateComparison($0, op, right, options: options)) })
    }
}

/// The store's expression for a key path: `.keyPath(SELF, names)`.
func keyPathExpression(_ keyPath: AnyKeyPath) -> Result<CdPredicateExpression, CdQueryError> {
    CdKeyPathNames.resolve(keyPath).map { .keyPath(.evaluatedObject, $0) }
}

/// String options from the functions' flags.
func stringOptions(caseInsensitive: Bool, diacriticInsensitive: Bool) -> PredicateStringOptions {
    var options: PredicateStringOptions = []
    if caseInsensitive { options.insert(.caseInsensitive) }
    if diacriticInsensitive { options.insert(.diacriticInsensitive) }
    return options
}

// MARK: - Logic

/// Both predicates hold (`AND`).
public func && <Root>(lhs: CdTypedPredicate<Root>, rhs: CdTypedPredicate<Root>) -> CdTypedPredicate<Root> {
    .combine(lhs, rhs) { .and($0, $1) }
}

/// Either predicate holds (`OR`).
public func || <Root>(lhs: CdTypedPredicate<Root>, rhs: CdTypedPredicate<Root>) -> CdTypedPredicate<Root> {
    .combine(lhs, rhs) { .or($0, $1) }
}

/// The predicate does not hold (`NOT`).
public prefix func ! <Root>(predicate: CdTypedPredicate<Root>) -> CdTypedPredicate<Root> {
    CdTypedPredicate(predicate.result.map { .not($0) })
}
