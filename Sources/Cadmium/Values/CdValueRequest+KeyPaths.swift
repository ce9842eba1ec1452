// The typed forms of a value query's chain: `filter`, `and` and `or` take a key-path predicate
// (`\.age > 30`) or Foundation's `#Predicate`, and `sorted(by:)` a key path, as on `Cd.objects`.
// A struct's key paths name its stored properties, which are its coding keys and so the entity's
// property names; they resolve to the same `CdPredicate` and sort keys as the format strings, so
// both forms run the same way. A key path or `#Predicate` part with no store equivalent is kept
// and thrown by the terminals, as a format string's parse error is.

import Foundation
import CdObjects

extension CdValueRequest {
    /// ANDs a typed predicate with the existing predicate (or sets it).
    ///
    /// ```swift
    /// let adults = try Cd.values(Employee.self).filter(\.age >= 18 && \.position != nil).fetch()
    /// ```
    public func filter(_ predicate: CdTypedPredicate<T>) -> Self {
        switch predicate.result {
        case let .success(p): return filter(p)
        case let .failure(error): return failed(error)
        }
    }

    /// A synonym of ``filter(_:)-(CdTypedPredicate<T>)``.
    public func and(_ predicate: CdTypedPredicate<T>) -> Self { filter(predicate) }

    /// ORs a typed predicate with the whole existing predicate (or sets it).
    public func or(_ predicate: CdTypedPredicate<T>) -> Self {
        switch predicate.result {
        case let .success(p): return or(p)
        case let .failure(error): return failed(error)
        }
    }

    /// ANDs a Foundation predicate with the existing predicate (or sets it).
    ///
    /// ```swift
    /// let h = try Cd.values(Shop.self).filter(#Predicate<Shop> { $0.name.starts(with: "H") }).fetch()
    /// ```
    public func filter(_ predicate: Predicate<T>) -> Self { filter(CdTypedPredicate(predicate)) }

    /// A synonym of ``filter(_:)-(Predicate<T>)``.
    public func and(_ predicate: Predicate<T>) -> Self { filter(CdTypedPredicate(predicate)) }

    /// ORs a Foundation predicate with the whole existing predicate (or sets it).
    public func or(_ predicate: Predicate<T>) -> Self { or(CdTypedPredicate(predicate)) }

    /// Appends a sort key given as a key path (a stored property, or a path through to-one
    /// values such as `\.owner?.name`).
    ///
    /// ```swift
    /// let byAge = try Cd.values(Employee.self).sorted(by: \.age, ascending: false).fetch()
    /// ```
    public func sorted<Value>(by keyPath: KeyPath<T, Value>, ascending: Bool = true) -> Self {
        switch CdKeyPathNames.resolve(keyPath) {
        case let .success(names): return sorted(names.joined(separator: "."), ascending: ascending)
        case let .failure(error): return failed(error)
        }
    }
}
