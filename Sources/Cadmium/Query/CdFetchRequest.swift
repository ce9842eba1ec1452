// `CdFetchRequest`: Cadmium's chained query builder (docs/CADMIUM-API.md §3). Like Cadmium's it is a
// mutable class: every chain method changes the request and returns it, `sorted` appends,
// `or` wraps the whole existing predicate, `fetchOne` sets the limit to 1 for good.
// Terminals run in the calling thread's current context (check C1) with a fresh snapshot;
// inside a transaction the context's pending changes are passed along so the fetch sees them.
//
// Confinement: one thread at a time (it is a builder); `@unchecked Sendable` so that
// `delete()` can hand it to the transaction it starts.

import Foundation
import CdObjects

/// A query for objects of `T` (`Cd.objects`) or for dictionary rows (`Cd.dictionaryQuery`,
/// where `T` is `[String: Any]`).
///
/// ```swift
/// let rich = try Cd.objects(Employee.self)
///     .filter("salary > %@", 100_000)
///     .sorted("name")
///     .limit(10)
///     .fetch()
/// ```
public final class CdFetchRequest<T>: @unchecked Sendable {
    /// The underlying request (entity, predicate, sort, paging, rows): the object store's type,
    /// which apps do not see; the builder methods are the way to shape it.
    package private(set) var request: FetchRequest
    private var expressions: [String: FetchExpression] = [:]
    private var properties: [String] = []
    private var groupings: [String] = []
    private var prefetched: [String] = []
    private var fetchBatchSize = 0
    private let dictionaries: Bool
    /// A predicate format that failed to parse; thrown by the terminals.
    private var parseError: (any Error)?

    init(entityName: String, dictionaries: Bool) {
        request = FetchRequest(entity: entityName)
        self.dictionaries = dictionaries
    }

    // MARK: - Filtering

    /// ANDs `predicate` with the existing predicate (or sets it).
    @discardableResult
    public func filter(_ predicate: CdPredicate) -> Self {
        request.predicate = request.predicate.map { .and($0, predicate) } ?? predicate
        return self
    }

    /// ANDs a predicate in NSPredicate format (see docs/PREDICATES.md).
    ///
    /// ```swift
    /// Cd.objects(Item.self).filter("id > %@ AND id < %@", 1, 5)
    /// ```
    @discardableResult
    public func filter(_ format: String, _ args: Any...) -> Self {
        if let p = parse(format, args) { filter(p) }
        return self
    }

    /// A synonym of ``filter(_:)-(CdPredicate)``.
    @discardableResult
    public func and(_ predicate: CdPredicate) -> Self { filter(predicate) }

    /// A synonym of ``filter(_:_:)``.
    @discardableResult
    public func and(_ format: String, _ args: Any...) -> Self {
        if let p = parse(format, args) { filter(p) }
        return self
    }

    /// ORs `predicate` with the whole existing predicate (or sets it).
    @discardableResult
    public func or(_ predicate: CdPredicate) -> Self {
        request.predicate = request.predicate.map { .or($0, predicate) } ?? predicate
        return self
    }

    /// ORs a predicate in NSPredicate format with the whole existing predicate.
    @discardableResult
    public func or(_ format: String, _ args: Any...) -> Self {
        if let p = parse(format, args) { or(p) }
        return self
    }

    private func parse(_ format: String, _ args: [Any]) -> CdPredicate? {
        do {
            return try PredicateFormatCache.predicate(format, args)
        } catch {
            parseError = parseError ?? error
            return nil
        }
    }

    // MARK: - Sorting and paging

    /// Appends a sort key, so repeated calls add secondary keys.
    @discardableResult
    public func sorted(_ key: String, ascending: Bool = true) -> Self {
        request.sortDescriptors.append(CdObjects.SortDescriptor(key, ascending: ascending))
        return self
    }

    /// Appends a sort descriptor.
    ///
    /// ```swift
    /// Cd.objects(Employee.self).sorted(CdSortDescriptor("name", caseInsensitive: true))
    /// ```
    @discardableResult
    public func sorted(_ descriptor: CdSortDescriptor) -> Self {
        request.sortDescriptors.append(descriptor)
        return self
    }

    /// At most `limit` results.
    @discardableResult
    public func limit(_ limit: Int) -> Self { request.limit = limit; return self }

    /// Skips the first `offset` results.
    @discardableResult
    public func offset(_ offset: Int) -> Self { request.offset = offset; return self }

    /// Core Data's fetchBatchSize: above 0, an object query returns its objects as faults in
    /// batches of this size, and the first read of an object loads its whole batch from one
    /// snapshot (the other batches stay unloaded). 0, the default, loads every result with
    /// the fetch. Dictionary queries ignore it.
    ///
    /// ```swift
    /// for item in try Cd.objects(Item.self).sorted("id").batchSize(100).fetch() {
    ///     print(item.name)          // one snapshot read per 100 items
    /// }
    /// ```
    @discardableResult
    public func batchSize(_ batchSize: Int) -> Self { fetchBatchSize = max(0, batchSize); return self }

    /// Drops duplicate dictionary rows (only for dictionary queries with properties listed).
    @discardableResult
    public func distinct(_ distinct: Bool = true) -> Self { request.distinct = distinct; return self }

    /// Relationship key paths whose targets an object query loads with its results, from the
    /// same snapshot (replaces the list). A key path such as `department.employees` prefetches
    /// each step. Dictionary queries ignore it.
    ///
    /// ```swift
    /// let departments = try Cd.objects(Department.self).prefetch(["employees"]).fetch()
    /// let names = departments.flatMap(\.employees).map(\.name)   // no further store reads
    /// ```
    @discardableResult
    public func prefetch(_ relationships: [String]) -> Self { prefetched = relationships; return self }

    // MARK: - Dictionary queries

    /// Names an expression (`"@sum.salary"`, `"name.@count"`); it is fetched only if `named`
    /// is also listed in ``onlyProperties(_:)``. Dictionary queries only (check C3).
    @discardableResult
    public func includeExpression(_ named: String, resultType: AttributeType, withFormat format: String) -> Self {
        expressions[named] = FetchExpression(name: named, format: format, resultType: resultType)
        return self
    }

    /// Adds to the properties to fetch (a set: repeated names count once). For a dictionary
    /// query these are the columns of each row. For an object query (Core Data's
    /// `propertiesToFetch`) the objects keep only these attribute and to-one values and stay
    /// faults for the others, which load from the store when first read.
    ///
    /// ```swift
    /// let names = try Cd.objects(Item.self).onlyProperties(["name"]).fetch().map(\.name)
    /// ```
    @discardableResult
    public func onlyProperties(_ names: [String]) -> Self {
        for name in names where !properties.contains(name) { properties.append(name) }
        return self
    }

    /// Appends grouping keys; each must be in ``onlyProperties(_:)`` (check C2). Dictionary
    /// queries only (check C4).
    @discardableResult
    public func groupBy(_ names: [String]) -> Self { groupings += names; return self }

    /// Appends one grouping key.
    @discardableResult
    public func groupBy(_ name: String) -> Self { groupBy([name]) }

    // MARK: - Running

    /// The request as run, after checks C1 to C4, with its context.
    func prepared(_ call: String) throws -> (FetchRequest, CdManagedObjectContext) {
        guard let context = ThreadState.currentContext else {
            throw Misuse.report(
                .c1,
                "\(call) on \(request.entity) was called on a thread with no context "
                    + "(\(ThreadState.situation)\(Cd.stack == nil ? ", before Cd.initWithStore" : "")). "
                    + "Fetch on the main "
                    + "thread or inside Cd.transact { }, or use Cd.read { } on any thread.")
        }
        if let parseError { throw parseError }
        var request = self.request
        if dictionaries {
            for name in groupings where !properties.contains(name) {
                throw Misuse.report(
                    .c2,
                    "\(call) on \(request.entity) groups by '\(name)', which is not in "
                        + "onlyProperties(\(properties)). Add every groupBy name to onlyProperties.")
            }
            request.resultType = .dictionaries
            request.propertiesToFetch = properties
            request.expressions = properties.compactMap { expressions[$0] }
            request.groupBy = groupings
        } else {
            if !expressions.isEmpty {
                throw Misuse.report(
                    .c3,
                    "\(call) on \(request.entity) is an object query with includeExpression("
                        + "\(expressions.keys.sorted())). "
                        + "Expressions are for dictionary queries: use Cd.dictionaryQuery(for:)."
                )
            }
            if !groupings.isEmpty {
                throw Misuse.report(
                    .c4,
                    "\(call) on \(request.entity) is an object query with groupBy(\(groupings)). "
                        + "Grouping is for dictionary queries: use Cd.dictionaryQuery(for:).")
            }
        }
        return (request, context)
    }

    /// Pending changes to overlay: a transaction's own.
    private func pending(_ context: CdManagedObjectContext) -> ChangeSet? {
        context.kind == .transaction ? context.pendingChanges() : nil
    }

    /// Runs the query in the calling thread's current context.
    public func fetch() throws -> [T] {
        let (request, context) = try prepared("fetch()")
        let (snapshot, owned) = try context.readSnapshot()
        defer { if owned { snapshot.end() } }
        if dictionaries {
            let rows = try snapshot.fetchRows(request, pending: pending(context))
            return rows.map { row in
                var out: [String: Any] = [:]
                for (key, value) in row {
                    switch value {
                    case let .attribute(v): if let any = v.anyValue { out[key] = any }
                    case let .toOne(id): if let id { out[key] = id }
                    case let .toMany(ids): out[key] = ids
                    }
                }
                return out as! T
            }
        }
        let keys = properties.isEmpty ? nil : Set(properties)
        let objects: [CdManagedObject]
        if fetchBatchSize > 0 {
            // Batched faults load their values later, a batch at a time.
            let ids = try snapshot.fetchIDs(request, pending: pending(context))
            objects = try context.materialize(ids, from: snapshot, keys: keys, batchSize: fetchBatchSize)
        } else {
            // The values come with the matches: each record is read once, and with
            // onlyProperties only those fields of it are decoded.
            var request = request
            request.propertiesToFetch = properties
            let matches = try snapshot.fetchObjects(request, pending: pending(context))
            objects = try context.materialize(
                matches.map(\.id), from: snapshot, keys: keys, values: matches.map(\.values))
        }
        if !prefetched.isEmpty { try context.prefetch(prefetched, for: objects, from: snapshot) }
        return objects.compactMap { $0 as? T }
    }

    /// The first result; sets the request's limit to 1, as Cadmium does.
    public func fetchOne() throws -> T? {
        request.limit = 1
        return try fetch().first
    }

    /// The number of results, in the calling thread's current context.
    public func count() throws -> Int {
        let (request, context) = try prepared("count()")
        let (snapshot, owned) = try context.readSnapshot()
        defer { if owned { snapshot.end() } }
        return try snapshot.count(request, pending: pending(context))
    }
}

extension CdFetchRequest where T: CdManagedObject {
    /// Deletes every matching object: at once inside a transaction; elsewhere (main thread, or
    /// no transaction) in a new asynchronous transaction, whose errors go to `completion`.
    public func delete(completion: (((any Error)?) -> Void)? = nil) throws {
        if !ThreadState.isMain, let context = ThreadState.current.context, context.kind == .transaction {
            try Cd.throwing.delete(try fetch())
            completion?(nil)
            return
        }
        let copy = CdFetchRequest<T>(entityName: request.entity, dictionaries: false)
        copy.request = request
        copy.parseError = parseError
        Cd.transact(operation: { try copy.delete() }, completion: completion)
    }
}

/// The object store's sort key under a name that does not clash with Foundation's
/// `SortDescriptor` (a file importing both would otherwise have to write `CdObjects.SortDescriptor`).
public typealias CdSortDescriptor = CdObjects.SortDescriptor

extension Cd {
    /// A query for objects of `T`'s entity.
    public static func objects<T: CdManagedObject>(_ objectClass: T.Type) -> CdFetchRequest<T> {
        CdFetchRequest<T>(entityName: T.cachedEntityName, dictionaries: false)
    }

    /// The same as ``objects(_:)``.
    public static func objectQuery<T: CdManagedObject>(for objectClass: T.Type) -> CdFetchRequest<T> {
        objects(objectClass)
    }

    /// A query for dictionary rows of `T`'s entity: attribute values and expressions by name.
    ///
    /// ```swift
    /// let rows = try Cd.dictionaryQuery(for: Item.self)
    ///     .includeExpression("sum", resultType: .integer64, withFormat: "@sum.id")
    ///     .onlyProperties(["name", "sum"])
    ///     .groupBy("name")
    ///     .fetch()
    /// ```
    public static func dictionaryQuery<T: CdManagedObject>(for objectClass: T.Type) -> CdFetchRequest<[String: Any]> {
        CdFetchRequest<[String: Any]>(entityName: T.cachedEntityName, dictionaries: true)
    }

    /// The object whose `key` equals `idValue` (`filter("<key> == %@", idValue).fetchOne()`).
    public static func objectWithID<T: CdManagedObject>(
        _ objectClass: T.Type, idValue: Any, key: String = "id"
    ) throws -> T? {
        try objects(objectClass).filter("%K == %@", key, idValue).fetchOne()
    }

    /// The objects whose `key` is in `idValues`.
    public static func objectsWithIDs<T: CdManagedObject>(
        _ objectClass: T.Type, idValues: [Any], key: String = "id"
    ) throws -> [T] {
        try objects(objectClass).filter("%K IN %@", key, idValues).fetch()
    }
}
