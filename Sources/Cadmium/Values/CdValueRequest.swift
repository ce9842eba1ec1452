// `CdValueRequest`: the query of `Cd.values(T.self)`. It keeps the shape of the query (predicate,
// sort keys, paging) as plain data — every chain call returns a changed copy — and at each
// terminal builds the object query of `Cd.objects` for the struct's entity, runs it where the
// caller is (main context, transaction, `Cd.read`) and unboxes each object into a value.
// On a background thread outside any context a value query reads the last commit, as `Cd.read`
// does: values are not confined to a context, so there is no context to require.

import Foundation
import CdObjects

/// A query for values of `T`; the chain of ``CdFetchRequest`` with values as results.
///
/// ```swift
/// let first = try Cd.values(Employee.self).filter("age > %@", 30).sorted("name").limit(10).fetch()
/// let count = try Cd.values(Employee.self).filter("type == %@", CarType.sedan.rawValue).count()
/// ```
public struct CdValueRequest<T: CdManagedStruct>: Sendable {
    private var predicate: CdPredicate?
    private var sortDescriptors: [CdSortDescriptor] = []
    private var limitCount: Int?
    private var offsetCount: Int?
    /// A predicate format that failed to parse, or a key path or `#Predicate` with no store
    /// equivalent; thrown by the terminals.
    private var buildError: (any Error)?

    init() {}

    // MARK: - Filtering

    /// ANDs `predicate` with the existing predicate (or sets it).
    public func filter(_ predicate: CdPredicate) -> Self {
        var copy = self
        copy.predicate = self.predicate.map { .and($0, predicate) } ?? predicate
        return copy
    }

    /// ANDs a predicate in NSPredicate format (docs/PREDICATES.md).
    public func filter(_ format: String, _ args: Any...) -> Self { parsed(format, args) { $0.filter($1) } }

    /// A synonym of ``filter(_:)-(CdPredicate)``.
    public func and(_ predicate: CdPredicate) -> Self { filter(predicate) }

    /// A synonym of ``filter(_:_:)``.
    public func and(_ format: String, _ args: Any...) -> Self { parsed(format, args) { $0.filter($1) } }

    /// ORs `predicate` with the whole existing predicate (or sets it).
    public func or(_ predicate: CdPredicate) -> Self {
        var copy = self
        copy.predicate = self.predicate.map { .or($0, predicate) } ?? predicate
        return copy
    }

    /// ORs a predicate in NSPredicate format with the whole existing predicate.
    public func or(_ format: String, _ args: Any...) -> Self { parsed(format, args) { $0.or($1) } }

    private func parsed(_ format: String, _ args: [Any], _ apply: (Self, CdPredicate) -> Self) -> Self {
        do {
            return apply(self, try PredicateFormatCache.predicate(format, args))
        } catch {
            return failed(error as? CdPredicateError ?? CdPredicateError(.syntax, "\(format): \(error)"))
        }
    }

    /// This request with `error` kept for the terminals (the first error wins).
    func failed(_ error: any Error) -> Self {
        var copy = self
        copy.buildError = buildError ?? error
        return copy
    }

    // MARK: - Sorting and paging

    /// Appends a sort key, so repeated calls add secondary keys.
    public func sorted(_ key: String, ascending: Bool = true) -> Self {
        sorted(CdSortDescriptor(key, ascending: ascending))
    }

    /// Appends a sort descriptor.
    public func sorted(_ descriptor: CdSortDescriptor) -> Self {
        var copy = self
        copy.sortDescriptors.append(descriptor)
        return copy
    }

    /// At most `limit` results.
    public func limit(_ limit: Int) -> Self {
        var copy = self
        copy.limitCount = limit
        return copy
    }

    /// Skips the first `offset` results.
    public func offset(_ offset: Int) -> Self {
        var copy = self
        copy.offsetCount = offset
        return copy
    }

    // MARK: - Running

    /// The values that match, in the calling thread's context (main, transaction, `Cd.read`), or
    /// from the last commit on a background thread outside any context.
    public func fetch() throws -> [T] {
        try run { request in try request.fetch().map { try T(object: $0) } }
    }

    /// The first value that matches (the query with limit 1).
    public func fetchOne() throws -> T? {
        try limit(1).fetch().first
    }

    /// The number of values that match.
    public func count() throws -> Int {
        try run { request in try request.count() }
    }

    /// The object query of the same shape.
    func objectRequest() -> CdFetchRequest<CdManagedObject> {
        // Reassigned at each step: right whether the chain returns the request or a copy.
        var request = CdFetchRequest<CdManagedObject>(entityName: T.entityName, dictionaries: false)
        if let predicate { request = request.filter(predicate) }
        for descriptor in sortDescriptors { request = request.sorted(descriptor) }
        if let limitCount { request = request.limit(limitCount) }
        if let offsetCount { request = request.offset(offsetCount) }
        return request
    }

    /// Throws what keeps the request from running: an error kept while it was built, an entity
    /// the model does not have.
    func validate() throws {
        if let buildError { throw buildError }
        if let container = Cd.container, container.model.objectModel.entity(named: T.entityName) == nil {
            throw CdValueError(
                .unknownEntity, structName: String(describing: T.self), entity: T.entityName,
                message: "the model has no entity named '\(T.entityName)'.")
        }
    }

    private func run<R>(_ body: (CdFetchRequest<CdManagedObject>) throws -> R) throws -> R {
        try validate()
        if Cd.container != nil, !ThreadState.isMain, ThreadState.currentContext == nil {
            return try Cd.read { try body(objectRequest()) }
        }
        return try body(objectRequest())
    }
}
