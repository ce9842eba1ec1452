// `CdFetchRequest`: Cadmium's chained query builder (docs/CADMIUM-API.md §3), as a value: every
// chain method returns a new request and leaves the one it was called on as it was, and the
// terminals (`fetch`, `fetchOne`, `count`) change nothing, so a request can be stored, shared
// between threads and run again (Cadmium's requests were mutable and shared; docs/CADMIUM-API.md
// §6 says what differs). `sorted` appends, `or` wraps the whole existing predicate, as in Cadmium.
// Terminals run in the calling thread's current context (check C1) with a fresh snapshot;
// inside a transaction the context's pending changes are passed along so the fetch sees them.
//
// Invariants:
//  TQ5. A request never changes after its initialiser returns: every stored property is a
//       `let`, and the chain methods build a new request from a changed copy of `shape`.
//  TQ6. An error met while shaping the request (a format that does not parse, a key path that
//       names no stored property, a `#Predicate` part with no store equivalent) is kept in the
//       new request (the first one wins) and thrown by every terminal; nothing is run.
//
// Confinement: none needed (TQ5): `@unchecked Sendable` only because `T` and the kept error are
// not declared `Sendable`; neither is ever mutated.

import Foundation
import CdObjects

/// A query for objects of `T` (`Cd.objects`) or for dictionary rows (`Cd.dictionaryQuery`,
/// where `T` is `[String: Any]`). A value: each chain method returns a new request with the change
/// it describes ("ANDs", "appends") and leaves the request it is called on as it was.
///
/// ```swift
/// let rich = Cd.objects(Employee.self).filter(\.salary > 100_000)
/// let firstTen = try rich.sorted(by: \.name).limit(10).fetch()
/// let howMany = try rich.count()            // `rich` is unchanged by the line above
/// ```
public final class CdFetchRequest<T>: @unchecked Sendable {
    /// Everything a request holds; chain methods change a copy (TQ5).
    struct Shape {
        var request: FetchRequest
        var expressions: [String: FetchExpression] = [:]
        var properties: [String] = []
        var groupings: [String] = []
        var prefetched: [String] = []
        var fetchBatchSize = 0
        let dictionaries: Bool
        /// The first error met while shaping (TQ6).
        var buildError: (any Error)?

        /// Keeps `error` unless an earlier one is kept (TQ6).
        mutating func fail(_ error: any Error) { buildError = buildError ?? error }
    }

    let shape: Shape

    /// The underlying request (entity, predicate, sort, paging, rows): the object store's type,
    /// which apps do not see; the builder methods are the way to shape it.
    package var request: FetchRequest { shape.request }

    init(entityName: String, dictionaries: Bool) {
        shape = Shape(request: FetchRequest(entity: entityName), dictionaries: dictionaries)
    }

    init(shape: Shape) { self.shape = shape }

    /// A new request: this one's shape with `change` applied (keeps TQ5).
    func changed(_ change: (inout Shape) -> Void) -> CdFetchRequest<T> {
        var copy = shape
        change(&copy)
        // `Self`: the metadata of this instance, not looked up again for `T` (this code runs
        // unspecialised for every caller's `T`).
        return Self(shape: copy)
    }

    // MARK: - Filtering

    /// ANDs `predicate` with the existing predicate (or sets it).
    public func filter(_ predicate: CdPredicate) -> CdFetchRequest<T> {
        changed { $0.request.predicate = $0.request.predicate.map { .and($0, predicate) } ?? predicate }
    }

    /// ANDs a predicate in NSPredicate format (see docs/PREDICATES.md).
    ///
    /// ```swift
    /// Cd.objects(Item.self).filter("id > %@ AND id < %@", 1, 5)
    /// ```
    public func filter(_ format: String, _ args: Any...) -> CdFetchRequest<T> {
        parsed(format, args) { $0.filter($1) }
    }

    /// A synonym of ``filter(_:)-(CdPredicate)``.
    public func and(_ predicate: CdPredicate) -> CdFetchRequest<T> { filter(predicate) }

    /// A synonym of ``filter(_:_:)``.
    public func and(_ format: String, _ args: Any...) -> CdFetchRequest<T> {
        parsed(format, args) { $0.filter($1) }
    }

    /// ORs `predicate` with the whole existing predicate (or sets it).
    public func or(_ predicate: CdPredicate) -> CdFetchRequest<T> {
        changed { $0.request.predicate = $0.request.predicate.map { .or($0, predicate) } ?? predicate }
    }

    /// ORs a predicate in NSPredicate format with the whole existing predicate.
    public func or(_ format: String, _ args: Any...) -> CdFetchRequest<T> {
        parsed(format, args) { $0.or($1) }
    }

    /// `combine(self, predicate)` for the parsed format, or this request with the parse error
    /// kept (TQ6).
    private func parsed(
        _ format: String, _ args: [Any], _ combine: (CdFetchRequest<T>, CdPredicate) -> CdFetchRequest<T>
    ) -> CdFetchRequest<T> {
        do {
            return combine(self, try PredicateFormatCache.predicate(format, args))
        } catch {
            return failed(error)
        }
    }

    /// This request with `error` kept for the terminals (TQ6).
    func failed(_ error: any Error) -> CdFetchRequest<T> { changed { $0.fail(error) } }

    // MARK: - Sorting and paging

    /// Appends a sort key, so repeated calls add secondary keys.
    public func sorted(_ key: String, ascending: Bool = true) -> CdFetchRequest<T> {
        changed { $0.request.sortDescriptors.append(CdObjects.SortDescriptor(key, ascending: ascending)) }
    }

    /// Appends a sort descriptor.
    ///
    /// ```swift
    /// Cd.objects(Employee.self).sorted(CdSortDescriptor("name", caseInsensitive: true))
    /// ```
    public func sorted(_ descriptor: CdSortDescriptor) -> CdFetchRequest<T> {
        changed { $0.request.sortDescriptors.append(descriptor) }
    }

    /// At most `limit` results.
    public func limit(_ limit: Int) -> CdFetchRequest<T> { changed { $0.request.limit = limit } }

    /// Skips the first `offset` results.
    public func offset(_ offset: Int) -> CdFetchRequest<T> { changed { $0.request.offset = offset } }

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
    public func batchSize(_ batchSize: Int) -> CdFetchRequest<T> {
        changed { $0.fetchBatchSize = Swift.max(0, batchSize) }
    }

    /// Drops duplicate dictionary rows (only for dictionary queries with properties listed).
    public func distinct(_ distinct: Bool = true) -> CdFetchRequest<T> { changed { $0.request.distinct = distinct } }

    /// Relationship key paths whose targets an object query loads with its results, from the
    /// same snapshot (replaces the list). A key path such as `department.employees` prefetches
    /// each step. Dictionary queries ignore it.
    ///
    /// ```swift
    /// let departments = try Cd.objects(Department.self).prefetch(["employees"]).fetch()
    /// let names = departments.flatMap(\.employees).map(\.name)   // no further store reads
    /// ```
    public func prefetch(_ relationships: [String]) -> CdFetchRequest<T> { changed { $0.prefetched = relationships } }

    // MARK: - Dictionary queries

    /// Names an expression (`"@sum.salary"`, `"name.@count"`); it is fetched only if `named`
    /// is also listed in ``onlyProperties(_:)``. Dictionary queries only (check C3).
    public func includeExpression(
        _ named: String, resultType: AttributeType, withFormat format: String
    ) -> CdFetchRequest<T> {
        changed { $0.expressions[named] = FetchExpression(name: named, format: format, resultType: resultType) }
    }

    /// Adds to the properties to fetch (a set: repeated names count once). For a dictionary
    /// query these are the columns of each row. For an object query (Core Data's
    /// `propertiesToFetch`) the objects keep only these attribute and to-one values and stay
    /// faults for the others, which load from the store when first read.
    ///
    /// ```swift
    /// let names = try Cd.objects(Item.self).onlyProperties(["name"]).fetch().map(\.name)
    /// ```
    public func onlyProperties(_ names: [String]) -> CdFetchRequest<T> {
        changed { shape in
            for name in names where !shape.properties.contains(name) { shape.properties.append(name) }
        }
    }

    /// Appends grouping keys; each must be in ``onlyProperties(_:)`` (check C2). Dictionary
    /// queries only (check C4).
    public func groupBy(_ names: [String]) -> CdFetchRequest<T> { changed { $0.groupings += names } }

    /// Appends one grouping key.
    public func groupBy(_ name: String) -> CdFetchRequest<T> { groupBy([name]) }

    // MARK: - Running

    /// The request as run, after checks C1 to C4, with its context: `explicit`, else the
    /// calling thread's.
    func prepared(
        _ call: String, in explicit: CdManagedObjectContext? = nil
    ) throws -> (FetchRequest, CdManagedObjectContext) {
        guard let context = explicit ?? ThreadState.currentContext else {
            throw Misuse.report(
                .c1,
                "\(call) on \(request.entity) was called on a thread with no context "
                    + "(\(ThreadState.situation)\(Cd.container == nil ? ", before Cd.initWithStore" : "")). "
                    + "Fetch on the main "
                    + "thread or inside Cd.transact { }, or use Cd.read { } on any thread.")
        }
        if let buildError = shape.buildError { throw buildError }  // keeps TQ6
        var request = self.request
        let (properties, groupings, expressions) = (shape.properties, shape.groupings, shape.expressions)
        if shape.dictionaries {
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

    /// Pending changes to overlay: a transaction's or an editing context's own, if it has any.
    private func pending(_ context: CdManagedObjectContext) -> ChangeSet? { context.overlayChanges() }

    /// Runs the query in the calling thread's current context.
    public func fetch() throws -> [T] {
        switch try fetchResults() {
        case let .objects(objects): return objects.compactMap { $0 as? T }
        case let .rows(rows): return rows.compactMap { $0 as? T }
        }
    }

    /// Runs the query in `editor`, an editing context: its pending inserts, changes and deletes
    /// count, and the objects are `editor`'s.
    ///
    /// ```swift
    /// let staff = try Cd.objects(Employee.self).filter(\.salary > 100_000).fetch(in: editor)
    /// ```
    @MainActor
    public func fetch(in editor: CdEditingContext) throws -> [T] {
        switch try fetchResults(in: editor.context) {
        case let .objects(objects): return objects.compactMap { $0 as? T }
        case let .rows(rows): return rows.compactMap { $0 as? T }
        }
    }

    /// The first result in `editor` (see ``fetch(in:)``).
    @MainActor
    public func fetchOne(in editor: CdEditingContext) throws -> T? {
        switch try fetchResults(limit: 1, in: editor.context) {
        case let .objects(objects): return objects.lazy.compactMap { $0 as? T }.first
        case let .rows(rows): return rows.lazy.compactMap { $0 as? T }.first
        }
    }

    /// The number of results in `editor`, its pending changes included.
    @MainActor
    public func count(in editor: CdEditingContext) throws -> Int {
        let (request, context) = try prepared("count(in:)", in: editor.context)
        let (snapshot, owned) = try context.readSnapshot()
        defer { if owned { snapshot.end() } }
        return try snapshot.count(request, pending: pending(context))
    }

    /// `fetch()` before the results are cast to `T`; with `limit`, as `limit(limit).fetch()`
    /// would run it, without making that request; in `explicit`, else the thread's context.
    private func fetchResults(limit: Int? = nil, in explicit: CdManagedObjectContext? = nil) throws -> FetchedResults {
        let (checked, context) = try prepared(explicit == nil ? "fetch()" : "fetch(in:)", in: explicit)
        var request = checked
        if let limit { request.limit = limit }
        let (snapshot, owned) = try context.readSnapshot()
        defer { if owned { snapshot.end() } }
        let (properties, prefetched, fetchBatchSize) = (shape.properties, shape.prefetched, shape.fetchBatchSize)
        if shape.dictionaries {
            let rows = try snapshot.fetchRows(request, pending: pending(context))
            return .rows(
                rows.map { row in
                    var out: [String: Any] = [:]
                    for (key, value) in row {
                        switch value {
                        case let .attribute(v): if let any = v.anyValue { out[key] = any }
                        case let .toOne(id): if let id { out[key] = id }
                        case let .toMany(ids): out[key] = ids
                        }
                    }
                    return out
                })
        }
        let keys = properties.isEmpty ? nil : Set(properties)
        let objects: [CdManagedObject]
        if fetchBatchSize > 0 {
            // Batched faults load their values later, a batch at a time.
            let ids = try snapshot.fetchIDs(request, pending: pending(context))
            objects = try context.materialize(ids, from: snapshot, keys: keys, batchSize: fetchBatchSize)
        } else if keys == nil {
            // The values come with the matches, by slot: each record is read once and its
            // values become the object's buffer as they are.
            let matches = try snapshot.fetchSlotObjects(request, pending: pending(context))
            objects = try context.materialize(matches.map(\.id), from: snapshot, slotValues: matches.map(\.values))
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
        return .objects(objects)
    }

    /// The first result: `limit(1).fetch().first`. The request itself keeps its limit
    /// (Cadmium set it to 1 for good).
    public func fetchOne() throws -> T? {
        // The first result that is a `T`, without building an array of `T`.
        switch try fetchResults(limit: 1) {
        case let .objects(objects): for object in objects { if let result = object as? T { return result } }
        case let .rows(rows): for row in rows { if let result = row as? T { return result } }
        }
        return nil
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
        Cd.transact(operation: { try self.delete() }, completion: completion)
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

/// What a fetch found, before the results are cast to the request's type.
private enum FetchedResults {
    case objects([CdManagedObject])
    case rows([[String: Any]])
}
