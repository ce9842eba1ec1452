// The typed terminals of a request: the values of one property (`fetchValues(\.name)`), the
// aggregates `sum`, `average`, `min` and `max` of an attribute over the matching objects, typed
// dictionary rows (`rows(.key(\.name), .sum(\.salary, as: "total"))`), and `explain()`, the
// store's plan for the request. Like `fetch`, each runs in the calling thread's current context
// and changes nothing (TQ5 in CdFetchRequest.swift).

import Foundation
import CdObjects

/// A column of a typed dictionary query: a property, or an aggregate named `as`.
///
/// ```swift
/// let rows = try Cd.objects(Employee.self).groupBy(\.name)
///     .rows(.key(\.name), .sum(\.salary, as: "total"), .count(as: "n")).fetch()
/// ```
public struct CdColumn<Root>: Sendable {
    let name: Result<String, CdQueryError>
    let expression: FetchExpression?

    /// The value of `keyPath`, under its dotted name (`department.name`).
    public static func key(_ keyPath: PartialKeyPath<Root>) -> CdColumn {
        CdColumn(name: CdKeyPathNames.resolve(keyPath).map { $0.joined(separator: ".") }, expression: nil)
    }

    /// The sum of `keyPath` over each group.
    public static func sum<V: CdAttributeValue>(_ keyPath: KeyPath<Root, V>, as name: String) -> CdColumn {
        aggregate(.sum, keyPath, name, V.cdAttributeType)
    }

    /// The mean of `keyPath` over each group, as a Double.
    public static func average<V: CdAttributeValue>(_ keyPath: KeyPath<Root, V>, as name: String) -> CdColumn {
        aggregate(.avg, keyPath, name, .double)
    }

    /// The smallest value of `keyPath` in each group.
    public static func min<V: CdAttributeValue>(_ keyPath: KeyPath<Root, V>, as name: String) -> CdColumn {
        aggregate(.min, keyPath, name, V.cdAttributeType)
    }

    /// The largest value of `keyPath` in each group.
    public static func max<V: CdAttributeValue>(_ keyPath: KeyPath<Root, V>, as name: String) -> CdColumn {
        aggregate(.max, keyPath, name, V.cdAttributeType)
    }

    /// The number of objects in each group.
    public static func count(as name: String) -> CdColumn {
        CdColumn(
            name: .success(name), expression: FetchExpression(name: name, format: "@count", resultType: .integer64))
    }

    private static func aggregate(
        _ function: PredicateAggregateFunction, _ keyPath: AnyKeyPath, _ name: String, _ type: AttributeType
    ) -> CdColumn {
        switch CdKeyPathNames.resolve(keyPath) {
        case let .success(path):
            let format = function.rawValue + "." + path.joined(separator: ".")
            return CdColumn(
                name: .success(name), expression: FetchExpression(name: name, format: format, resultType: type))
        case let .failure(error):
            return CdColumn(name: .failure(error), expression: nil)
        }
    }
}

extension CdFetchRequest {
    /// This request as a dictionary query of `columns` (its predicate, sort, paging, grouping,
    /// properties and expressions kept, the columns added after its properties).
    public func rows(_ columns: CdColumn<T>...) -> CdFetchRequest<[String: Any]> {
        var shape = CdFetchRequest<[String: Any]>.Shape(request: request, dictionaries: true)
        shape.groupings = self.shape.groupings
        shape.properties = self.shape.properties
        shape.expressions = self.shape.expressions
        shape.buildError = self.shape.buildError
        for column in columns {
            switch column.name {
            case let .success(name):
                if !shape.properties.contains(name) { shape.properties.append(name) }
                if let expression = column.expression { shape.expressions[name] = expression }
            case let .failure(error): shape.fail(error)
            }
        }
        return CdFetchRequest<[String: Any]>(shape: shape)
    }

    /// The value of `keyPath` for each matching object, in the request's order.
    ///
    /// ```swift
    /// let names: [String] = try Cd.objects(Employee.self).sorted(by: \.name).fetchValues(\.name)
    /// ```
    public func fetchValues<V: CdAttributeValue>(_ keyPath: KeyPath<T, V>) throws -> [V] {
        let name = try name(keyPath).get()
        var shape = CdFetchRequest<[String: Any]>.Shape(request: request, dictionaries: true)
        shape.properties = [name]
        shape.buildError = self.shape.buildError
        let rows = try CdFetchRequest<[String: Any]>(shape: shape).storeRows("fetchValues(\(name))")
        return rows.map { row in
            guard case let .attribute(value)? = row[name] else { return V.fromCdValue(.null) ?? V.cdEmptyValue }
            return V.fromCdValue(value) ?? V.cdEmptyValue
        }
    }

    /// The sum of `keyPath` over the matching objects (0 when none match).
    ///
    /// ```swift
    /// let total: Int64 = try Cd.objects(Employee.self).sum(\.salary)
    /// ```
    /// A sum that does not fit `V` (`Int16` values adding up above `Int16.max`) throws
    /// ``CdQueryError`` (`resultOutOfRange`).
    public func sum<V: CdAttributeValue>(_ keyPath: KeyPath<T, V>) throws -> V {
        try typed(aggregate(.sum, keyPath, V.cdAttributeType), .sum, keyPath) ?? V.cdEmptyValue
    }

    /// The mean of `keyPath` over the matching objects; nil when none match.
    public func average<V: CdAttributeValue>(_ keyPath: KeyPath<T, V>) throws -> Double? {
        Double.fromCdValue(try aggregate(.avg, keyPath, .double))
    }

    /// The largest value of `keyPath` among the matching objects; nil when none match.
    public func max<V: CdAttributeValue>(_ keyPath: KeyPath<T, V>) throws -> V? {
        try typed(aggregate(.max, keyPath, V.cdAttributeType), .max, keyPath)
    }

    /// The smallest value of `keyPath` among the matching objects; nil when none match.
    public func min<V: CdAttributeValue>(_ keyPath: KeyPath<T, V>) throws -> V? {
        try typed(aggregate(.min, keyPath, V.cdAttributeType), .min, keyPath)
    }

    /// `value` as a `V`: nil for no value; `resultOutOfRange` when it does not fit `V`.
    private func typed<V: CdAttributeValue>(
        _ value: CdValue, _ function: PredicateAggregateFunction, _ keyPath: AnyKeyPath
    ) throws -> V? {
        if value.isNull { return nil }
        guard let typed = V.fromCdValue(value) else {
            let part = function.rawValue + "." + ((try? name(keyPath).get()) ?? "\(keyPath)")
            throw CdQueryError(
                .resultOutOfRange, part: part,
                message: "\(part) of \(T.self) is \(value), which does not fit \(V.self) (the attribute's type)")
        }
        return typed
    }

    /// `function` of `keyPath` over the matching objects, as the store computes it.
    private func aggregate(
        _ function: PredicateAggregateFunction, _ keyPath: AnyKeyPath, _ type: AttributeType
    ) throws -> CdValue {
        let path = try name(keyPath).get()
        var shape = CdFetchRequest<[String: Any]>.Shape(request: request, dictionaries: true)
        shape.request.sortDescriptors = []
        shape.buildError = self.shape.buildError
        let expression = FetchExpression(name: "value", format: function.rawValue + "." + path, resultType: type)
        shape.expressions = ["value": expression]
        shape.properties = ["value"]
        let rows = try CdFetchRequest<[String: Any]>(shape: shape).storeRows("\(function.rawValue)(\(path))")
        guard case let .attribute(value)? = rows.first?["value"] else { return .null }
        return value
    }

    /// The store's rows for this (dictionary) request, in the current context.
    func storeRows(_ call: String) throws -> [[String: PropertyValue]] {
        let (request, context) = try prepared(call)
        let (snapshot, owned) = try context.readSnapshot()
        defer { if owned { snapshot.end() } }
        return try snapshot.fetchRows(request, pending: context.overlayChanges())
    }

    /// The store's plan for this request: its access path (primary key, index scan, relationship,
    /// index order or full scan) and whether it yields the sort, as one line of text. Typed,
    /// format-string and `#Predicate` forms of the same query give the same plan.
    ///
    /// ```swift
    /// print(try Cd.objects(Employee.self).filter(\.email == "a@b.c").explain())
    /// ```
    public func explain() throws -> String {
        let (request, context) = try prepared("explain()")
        let (snapshot, owned) = try context.readSnapshot()
        defer { if owned { snapshot.end() } }
        guard let store = snapshot as? ObjectSnapshot else { return "no plan: \(type(of: snapshot)) does not plan" }
        return try store.explain(request)
    }
}
