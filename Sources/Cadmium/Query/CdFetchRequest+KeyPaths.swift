// The key-path forms of the request's chain methods: wherever a chain method takes a property
// name (`sorted`, `onlyProperties`, `groupBy`, `prefetch`) it also takes a key path on `T`, and
// `filter`, `and` and `or` take a typed predicate (`\.salary > 100_000`). Each resolves to the
// same names and `CdPredicate` as the string form, so both run the same way; a key path that does
// not resolve is kept and thrown by the terminals (TQ6 in CdFetchRequest.swift).

import Foundation
import CdObjects

extension CdFetchRequest {
    // MARK: - Typed predicates

    /// ANDs a typed predicate with the existing predicate (or sets it).
    ///
    /// ```swift
    /// Cd.objects(Employee.self).filter(\.salary > 100_000 && \.department?.name == "R&D")
    /// ```
    public func filter(_ predicate: CdTypedPredicate<T>) -> CdFetchRequest<T> {
        switch predicate.result {
        case let .success(p): return filter(p)
        case let .failure(error): return failed(error)
        }
    }

    /// A synonym of ``filter(_:)-(CdTypedPredicate<T>)``.
    public func and(_ predicate: CdTypedPredicate<T>) -> CdFetchRequest<T> { filter(predicate) }

    /// ORs a typed predicate with the whole existing predicate (or sets it).
    public func or(_ predicate: CdTypedPredicate<T>) -> CdFetchRequest<T> {
        switch predicate.result {
        case let .success(p): return or(p)
        case let .failure(error): return failed(error)
        }
    }

    // MARK: - Names from key paths

    /// The dotted property name of `keyPath` (`department.name`), or this request's failure.
    func name(_ keyPath: AnyKeyPath) -> Result<String, CdQueryError> {
        CdKeyPathNames.resolve(keyPath).map { $0.joined(separator: ".") }
    }

    /// `body` with the names of `keyPaths`, or this request with the first failure kept.
    func withNames(_ keyPaths: [AnyKeyPath], _ body: ([String]) -> CdFetchRequest<T>) -> CdFetchRequest<T> {
        var names: [String] = []
        for keyPath in keyPaths {
            switch name(keyPath) {
            case let .success(n): names.append(n)
            case let .failure(error): return failed(error)
            }
        }
        return body(names)
    }

    // MARK: - Sorting, properties, grouping, prefetching

    /// Appends a sort key.
    ///
    /// ```swift
    /// Cd.objects(Employee.self).sorted(by: \.salary, ascending: false).sorted(by: \.name)
    /// ```
    public func sorted<Value>(by keyPath: KeyPath<T, Value>, ascending: Bool = true) -> CdFetchRequest<T> {
        withNames([keyPath]) { sorted($0[0], ascending: ascending) }
    }

    /// Appends a sort key for a string attribute, case-insensitive if asked.
    public func sorted<S: CdStringAttributeValue>(
        by keyPath: KeyPath<T, S>, ascending: Bool = true, caseInsensitive: Bool
    ) -> CdFetchRequest<T> {
        withNames([keyPath]) { sorted(CdSortDescriptor($0[0], ascending: ascending, caseInsensitive: caseInsensitive)) }
    }

    /// Adds to the properties to fetch (see ``onlyProperties(_:)-([String])``).
    ///
    /// ```swift
    /// Cd.objects(Employee.self).onlyProperties(\.name, \.salary)
    /// ```
    public func onlyProperties(_ keyPaths: PartialKeyPath<T>...) -> CdFetchRequest<T> {
        withNames(keyPaths) { onlyProperties($0) }
    }

    /// Appends grouping keys (dictionary queries; see ``groupBy(_:)-([String])``).
    public func groupBy(_ keyPaths: PartialKeyPath<T>...) -> CdFetchRequest<T> {
        withNames(keyPaths) { groupBy($0) }
    }

    /// Relationship key paths to load with the results (replaces the list; see
    /// ``prefetch(_:)-([String])``).
    ///
    /// ```swift
    /// Cd.objects(Department.self).prefetch(\.employees)
    /// ```
    public func prefetch(_ keyPaths: PartialKeyPath<T>...) -> CdFetchRequest<T> {
        withNames(keyPaths) { prefetch($0) }
    }

    /// Only the given properties, each distinct combination once (a dictionary query's
    /// `onlyProperties` plus `distinct()`).
    ///
    /// ```swift
    /// let rows = try Cd.dictionaryQuery(for: Employee.self).distinct(\Employee.name).fetch()
    /// ```
    public func distinct<Root>(_ keyPaths: PartialKeyPath<Root>...) -> CdFetchRequest<T> {
        var names: [String] = []
        for keyPath in keyPaths {
            switch CdKeyPathNames.resolve(keyPath) {
            case let .success(n): names.append(n.joined(separator: "."))
            case let .failure(error): return failed(error)
            }
        }
        return onlyProperties(names).distinct()
    }
}
