// A read snapshot of the object store: an engine read transaction plus the store's layout.
//
// Confinement: a snapshot is used by one thread at a time (it wraps one engine transaction and
// caches tree handles); take one snapshot per thread.

import CdStore

/// A read snapshot of the last commit when it began.
///
/// ```swift
/// let snapshot = try store.beginRead()
/// defer { snapshot.end() }
/// var request = FetchRequest(entity: "Employee")
/// request.predicate = try CdPredicate(format: "salary > %@", 50_000)
/// let ids = try snapshot.fetchIDs(request)
/// ```
public final class ObjectSnapshot {
    let store: ObjectStore
    /// A read transaction, or the write transaction of an `ObjectStoreWriter` (which the
    /// snapshot never ends: the writer commits or rolls it back).
    let tx: Transaction
    let stored: StoredObjects

    init(store: ObjectStore, tx: Transaction) {
        self.store = store
        self.tx = tx
        self.stored = StoredObjects(tx: tx, layout: store.layout)
    }

    /// A snapshot on the reader of an earlier one, begun again (ObjectStore+SnapshotReuse SR2).
    init(store: ObjectStore, reusing stored: StoredObjects) {
        self.store = store
        self.tx = stored.tx
        self.stored = stored
    }

    deinit { (tx as? ReadTransaction)?.end() }

    /// The commit this snapshot sees.
    public var commit: CommitSequence { tx.snapshot }

    /// Releases the snapshot (also on deinit).
    public func end() { (tx as? ReadTransaction)?.end() }

    /// Stored attributes (`.attribute`, nil as `.attribute(.null)`) and to-one targets (`.toOne`)
    /// of an object; nil when no such object exists.
    ///
    /// ```swift
    /// if case let .attribute(.string(name))? = try snapshot.values(of: id)?["name"] { print(name) }
    /// ```
    public func values(of id: ObjectID) throws -> [String: PropertyValue]? {
        try wrap {
            guard let rec = try stored.record(id) else { return nil }
            return Self.values(of: rec)
        }
    }

    /// A record's attribute and to-one values, keyed by property name.
    static func values(of rec: Record) -> [String: PropertyValue] {
        var result: [String: PropertyValue] = [:]
        result.reserveCapacity(rec.entity.attributes.count + rec.entity.toOnes.count)
        for (slot, a) in rec.entity.attributes.enumerated() { result[a.name] = .attribute(rec.values[slot]) }
        for (i, r) in rec.entity.toOnes.enumerated() { result[r.name] = .toOne(rec.toOne[i]) }
        return result
    }

    /// Whether the object exists in this snapshot.
    public func exists(_ id: ObjectID) throws -> Bool {
        try wrap { try stored.record(id) != nil }
    }

    /// The targets of a to-many relationship (in order for an ordered one), read from the
    /// relationship's tree without a scan.
    ///
    /// ```swift
    /// let employees = try snapshot.related(department, "employees")
    /// ```
    public func related(_ id: ObjectID, _ relationship: String) throws -> [ObjectID] {
        try wrap {
            let entity = try store.layout.entityOrThrow(of: id)
            guard let r = entity.relationships[relationship], r.isToMany else {
                throw CdError.validation(
                    ValidationFailure(
                        entity: entity.name, objectID: id.description, key: relationship,
                        message: "\(relationship) is not a to-many relationship of \(entity.name)"))
            }
            return try stored.related(id, r, treeName: entity.toManyTrees[r.name]!)
        }
    }

    /// Runs a query. `pending` overlays unsaved changes: matching pending inserts are included,
    /// pending deletes excluded, pending updates evaluated with their new values — the answer is
    /// the one the query would give after saving them.
    public func fetchIDs(_ request: FetchRequest, pending: ChangeSet? = nil) throws -> [ObjectID] {
        try wrap { try executor(pending).matches(request, paging: true).map(\.id) }
    }

    /// Runs a query and returns each match with what ``values(of:)`` gives for it, read in the
    /// same pass: each record is read once, where `fetchIDs` followed by `values(of:)` reads it
    /// twice (and, on a store larger than the page cache, decompresses its page twice). With
    /// `pending` changes the values are still the stored ones, read by `values(of:)`.
    ///
    /// A non-empty `request.propertiesToFetch` is a projection: each match's values then hold
    /// only those of the names that are attributes or to-one relationships, and nothing else of
    /// the record is decoded. Only the returned page of matches is decoded at all.
    ///
    /// ```swift
    /// for (id, values) in try snapshot.fetchObjects(request) { print(id, values?["name"] as Any) }
    /// ```
    public func fetchObjects(
        _ request: FetchRequest, pending: ChangeSet? = nil
    ) throws
        -> [(id: ObjectID, values: [String: PropertyValue]?)]
    {
        try wrap {
            let properties = request.propertiesToFetch
            if let pending, !pending.isEmpty {
                return try executor(pending).matches(request, paging: true).map { match in
                    (
                        match.id,
                        try values(of: match.id).map { all in
                            properties.isEmpty
                                ? all
                                : all.filter {
                                    properties.contains($0.key)
                                }
                        }
                    )
                }
            }
            let executor = try executor(nil)
            return try executor.matches(request, paging: true, keepRecords: true).map { match in
                (match.id, try executor.values(of: match, properties: properties))
            }
        }
    }

    /// Dictionary rows (`request.resultType == .dictionaries`), with expressions and grouping.
    ///
    /// ```swift
    /// var r = FetchRequest(entity: "Item")
    /// r.resultType = .dictionaries
    /// r.expressions = [FetchExpression(name: "total", format: "@sum.id", resultType: .integer64)]
    /// r.propertiesToFetch = ["name", "total"]
    /// r.groupBy = ["name"]
    /// let rows = try snapshot.fetchRows(r)
    /// ```
    public func fetchRows(_ request: FetchRequest, pending: ChangeSet? = nil) throws -> [[String: PropertyValue]] {
        try wrap { try executor(pending).rows(request) }
    }

    /// The number of results `fetchIDs` (or `fetchRows` for dictionary requests) would return.
    public func count(_ request: FetchRequest, pending: ChangeSet? = nil) throws -> Int {
        try wrap {
            let e = try executor(pending)
            return request.resultType == .dictionaries ? try e.rows(request).count : try e.count(request)
        }
    }

    /// The plan the query would use, as text: `FULL SCAN Person`,
    /// `INDEX SCAN Person(age) >= 30 AND < 40; LIMIT 5`, `PRIMARY KEY Person = Person/3`.
    public func explain(_ request: FetchRequest) throws -> String {
        try wrap { try executor(nil).plan(request).description }
    }

    private func executor(_ pending: ChangeSet?) throws -> QueryExecutor {
        var overlay: ChangeApplier?
        if let pending, !pending.isEmpty {
            let applier = ChangeApplier(layout: store.layout, stored: stored, changes: pending, overlay: true)
            try applier.prepare()
            overlay = applier
        }
        return QueryExecutor(reader: ObjectReader(stored: stored, overlay: overlay))
    }

    private func wrap<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch let e as StoreError { throw CdError.store(e) }
    }
}
