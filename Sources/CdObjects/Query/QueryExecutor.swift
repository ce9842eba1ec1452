// Runs a plan (QueryPlan.swift): reads candidates along the access path, evaluates the full
// predicate on each, merges a pending overlay, sorts, and pages.
//
// Invariants:
//  Q1. Without an overlay, the result equals: every object of the requested entities (sub-entities
//      included by default) in primary-key order, filtered by the predicate, stably sorted by the
//      sort descriptors, then offset and limit — whichever access path is used.
//  Q2. With an overlay, stored candidates of objects the overlay touches are skipped and the
//      overlay's live objects are evaluated instead, so the result equals Q1 after saving.

import CdStore

/// One matching object. `record` is kept only when the caller asked for records (dictionary
/// rows), so that a large fetch of IDs does not hold every decoded record.
struct QueryMatch {
    let id: ObjectID
    let record: Record?
    var sortKey: [CdValue]
}

/// Executes fetch requests over one transaction (and an optional overlay).
final class QueryExecutor {
    let reader: ObjectReader
    var layout: StoreLayout { reader.layout }

    init(reader: ObjectReader) { self.reader = reader }

    /// The entity of the request, after the predicate and sort keys were checked against the model.
    func check(_ request: FetchRequest) throws -> EntityLayout {
        guard let entity = layout.entities[request.entity] else {
            throw CdPredicateError(.unknownKey, "the model has no entity named \(request.entity)")
        }
        try request.predicate?.validate(entity: request.entity, schema: ModelPredicateSchema(layout.model))
        for s in request.sortDescriptors { try checkPath(s.key, from: entity) }
        return entity
    }

    /// Checks a key path of to-one steps ending at an attribute or to-one relationship.
    func checkPath(_ key: String, from entity: EntityLayout) throws {
        var current = entity
        let path = key.split(separator: ".").map(String.init)
        for (i, step) in path.enumerated() {
            if i == path.count - 1, current.attributeSlots[step] != nil || current.toOneSlots[step] != nil { return }
            guard let s = current.toOneSlots[step], i < path.count - 1,
                let next = layout.entities[current.toOnes[s].destination]
            else {
                throw CdPredicateError(
                    .unknownKey, "\(current.name) has no attribute or to-one relationship '\(step)' (in \(key))")
            }
            current = next
        }
    }

    func plan(_ request: FetchRequest) throws -> QueryPlan {
        QueryPlanner.plan(request, entity: try check(request), layout: layout)
    }

    /// The matching objects, sorted; with `paging`, offset and limit applied; with `keepRecords`,
    /// each with its record.
    func matches(_ request: FetchRequest, paging: Bool, keepRecords: Bool = false) throws -> [QueryMatch] {
        let entity = try check(request)
        let plan = QueryPlanner.plan(request, entity: entity, layout: layout)
        let kinds = request.includesSubentities ? entity.kinds : [entity.name]
        let overlay = reader.overlay
        let ordered = plan.deliversSort && overlay == nil
        let sortPaths = request.sortDescriptors.map { $0.key.split(separator: ".").map(String.init) }
        var stopAfter: Int?
        if paging, let limit = request.limit, overlay == nil, request.sortDescriptors.isEmpty || ordered {
            stopAfter = request.offset + limit
        }
        var out: [QueryMatch] = []
        let stored = reader.stored

        func consider(_ pk: Int64, _ rec: Record) throws -> Bool {
            guard kinds.contains(rec.entity.name) else { return true }
            let id = ObjectID(entity: rec.entity.name, primaryKey: pk)
            if overlay != nil, reader.touched.contains(id) { return true }
            if let p = plan.residual, !(try p.evaluate(with: RecordObject(id: id, record: rec, reader: reader))) {
                return true
            }
            out.append(
                QueryMatch(
                    id: id, record: keepRecords ? rec : nil,
                    sortKey: try sortPaths.map { try reader.value(of: rec, path: $0) }))
            if let stopAfter, out.count >= stopAfter { return false }
            return true
        }

        let recordTree = try stored.tree(entity.recordTree)
        func load(_ pk: Int64) throws -> Record? {
            guard let recordTree, let bytes = try recordTree.get(RecordCodec.key(pk)) else { return nil }
            return try stored.decode(bytes, tree: recordTree, primaryKey: pk)
        }

        switch plan.access {
        case .fullScan:
            // Nothing to evaluate, sort or return but IDs: the entity code is all that is read.
            let idsOnly = request.predicate == nil && sortPaths.isEmpty && !keepRecords && overlay == nil
            if let recordTree {
                let codes = Set(kinds.compactMap { layout.entities[$0]?.code })
                try recordTree.scan { key, value in
                    guard key.count == 8 else {
                        throw stored.corruption(recordTree, "record key of \(key.count) bytes")
                    }
                    let code: Int
                    do { code = try RecordCodec.entityCode(value) } catch let e as RecordDecodingError {
                        throw stored.corruption(recordTree, e.message)
                    }
                    guard codes.contains(code) else { return true }
                    let pk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
                    if idsOnly {
                        out.append(
                            QueryMatch(
                                id: ObjectID(entity: layout.byCode[code].name, primaryKey: pk), record: nil, sortKey: []
                            ))
                        return stopAfter.map { out.count < $0 } ?? true
                    }
                    return try consider(pk, try stored.decode(value, tree: recordTree, primaryKey: pk))
                }
            }
        case let .primaryKeys(ids):
            for id in ids where kinds.contains(id.entity) {
                guard let rec = try load(id.primaryKey), rec.entity.name == id.entity else { continue }
                guard try consider(id.primaryKey, rec) else { break }
            }
        case let .index(index, access):
            if let tree = try stored.tree(index.definition.tree) {
                let ranges = Self.keyRanges(access, index)
                if plan.deliversSort {
                    scan: for (lower, upper) in ranges {
                        var more = true
                        try tree.scan(from: lower, upTo: upper) { key, _ in
                            let pk = try stored.primaryKey(ofIndexEntry: key, in: tree)
                            guard let rec = try load(pk) else { return true }
                            more = try consider(pk, rec)
                            return more
                        }
                        if !more { break scan }
                    }
                } else {
                    var pks = Set<Int64>()
                    for (lower, upper) in ranges {
                        try tree.scan(from: lower, upTo: upper) { key, _ in
                            pks.insert(try stored.primaryKey(ofIndexEntry: key, in: tree))
                            return true
                        }
                    }
                    for pk in pks.sorted() {
                        guard let rec = try load(pk) else { continue }
                        guard try consider(pk, rec) else { break }
                    }
                }
            }
        case let .relationship(target, inverse, treeName):
            for id in try stored.related(target, inverse, treeName: treeName).sorted(by: {
                $0.primaryKey < $1.primaryKey
            })
            where kinds.contains(id.entity) {
                guard let rec = try load(id.primaryKey), rec.entity.name == id.entity else { continue }
                guard try consider(id.primaryKey, rec) else { break }
            }
        case let .indexOrder(index):
            if let tree = try stored.tree(index.definition.tree) {
                try tree.scan { key, _ in
                    let pk = try stored.primaryKey(ofIndexEntry: key, in: tree)
                    guard let rec = try load(pk) else { return true }
                    return try consider(pk, rec)
                }
            }
        }

        if let overlay {
            var live = Set(overlay.changes.inserted.keys).union(overlay.updated)
            live.subtract(overlay.deleting)
            // On the PRIMARY KEY path only the chosen IDs can match, and they meet the key
            // conjuncts: test the rest (QueryPlan's residual), as for stored candidates.
            var predicate = request.predicate
            if case let .primaryKeys(ids) = plan.access {
                live.formIntersection(ids)
                predicate = plan.residual
            }
            for id in live where kinds.contains(id.entity) {
                guard let rec = try overlay.record(id) else { continue }
                if let p = predicate, !(try p.evaluate(with: RecordObject(id: id, record: rec, reader: reader))) {
                    continue
                }
                out.append(
                    QueryMatch(
                        id: id, record: keepRecords ? rec : nil,
                        sortKey: try sortPaths.map { try reader.value(of: rec, path: $0) }))
            }
        }
        if !ordered && (overlay != nil || !request.sortDescriptors.isEmpty) {
            let sort = request.sortDescriptors
            out.sort { a, b in
                for (i, s) in sort.enumerated() {
                    let r = CdValue.compare(
                        a.sortKey[i], b.sortKey[i], options: s.caseInsensitive ? .caseInsensitive : [])
                    if r != .orderedSame { return s.ascending ? r == .orderedAscending : r == .orderedDescending }
                }
                return a.id.primaryKey < b.id.primaryKey
            }
        }
        if paging {
            let start = min(request.offset, out.count)
            let end = request.limit.map { min(out.count, start + $0) } ?? out.count
            return Array(out[start..<end])
        }
        return out
    }

    /// Inclusive key ranges of the leading column for an index access (QueryPlan header).
    static func keyRanges(_ access: IndexAccess, _ index: IndexLayout) -> [([UInt8], [UInt8]?)] {
        guard case let .attribute(_, type) = index.columns[0].source else { return [] }
        func encoded(_ v: CdValue) -> [UInt8] {
            var out: [UInt8] = []
            IndexKey.appendColumn(v, type: type, to: &out)
            return out
        }
        switch access {
        case let .equal(v):
            let e = encoded(v)
            return [(e, IndexKey.successor(e))]
        case let .inList(values):
            return values.map { v in
                let e = encoded(v); return (e, IndexKey.successor(e))
            }
        case let .range(lower, _, upper, _):
            return [(lower.map(encoded) ?? [1], upper.map { IndexKey.successor(encoded($0)) } ?? [2])]
        case let .prefix(p):
            guard let e = IndexKey.stringPrefix(p) else { return [] }
            return [(e, IndexKey.successor(e))]
        }
    }

    /// The number of matches; counts record entity codes only when there is nothing to evaluate.
    func count(_ request: FetchRequest) throws -> Int {
        let entity = try check(request)
        if request.predicate == nil, reader.overlay == nil, request.offset == 0, request.limit == nil {
            guard let tree = try reader.stored.tree(entity.recordTree) else { return 0 }
            let codes = Set(
                (request.includesSubentities ? entity.kinds : [entity.name]).compactMap { layout.entities[$0]?.code })
            if codes.count == layout.entities[entity.root]!.kinds.count { return try tree.count() }
            var n = 0
            try tree.scan { key, value in
                do {
                    if codes.contains(try RecordCodec.entityCode(value)) { n += 1 }
                } catch let e as RecordDecodingError {
                    throw reader.stored.corruption(tree, "record \(key): \(e.message)")
                }
                return true
            }
            return n
        }
        return try matches(request, paging: true).count
    }
}
