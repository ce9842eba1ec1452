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

/// Where a match's values come from: a stored record, kept encoded until a caller asks for its
/// values (so that a page of a large result decodes only the page), or an overlay's record.
enum MatchSource {
    case stored(EncodedRecord)
    case decoded(Record)
}

/// One matching object. `source` is kept only when the caller asked for values (objects or
/// dictionary rows), so that a large fetch of IDs does not hold every record.
struct QueryMatch {
    let id: ObjectID
    let source: MatchSource?
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
        // Paging slices the matches with offset and limit: a negative one is refused here.
        if request.offset < 0 || (request.limit ?? 0) < 0 {
            throw CdPredicateError(
                .unsupportedArgument,
                "the request for \(request.entity) has offset \(request.offset) and limit "
                    + "\(request.limit.map(String.init) ?? "none"); both must be 0 or more")
        }
        try request.predicate?.validate(entity: request.entity, schema: layout.predicateSchema)
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
    /// each with its record (decoded when asked, `record(of:)`).
    ///
    /// Stored candidates are tested encoded: the residual predicate is compiled once per entity
    /// code (CompiledPredicate.swift) and reads only the fields it tests; sort keys that are
    /// attributes are read alone; nothing else of a record is decoded here.
    func matches(_ request: FetchRequest, paging: Bool, keepRecords: Bool = false) throws -> [QueryMatch] {
        try run(request, paging: paging, keepRecords: keepRecords, countOnly: false).matches
    }

    /// `matches(request, paging: true).count`, without making the matches when nothing needs
    /// them (no overlay, no sort): a count of a scan then allocates nothing per match.
    func matchCount(_ request: FetchRequest) throws -> Int {
        let countOnly = reader.overlay == nil && request.sortDescriptors.isEmpty
        let result = try run(request, paging: true, keepRecords: false, countOnly: countOnly)
        guard countOnly else { return result.matches.count }
        let start = min(request.offset, result.count)
        return (request.limit.map { min(result.count, start + $0) } ?? result.count) - start
    }

    /// The body of `matches`; with `countOnly` (no overlay, no sort) it only counts the stored
    /// matches (`count`) and returns none.
    private func run(
        _ request: FetchRequest, paging: Bool, keepRecords: Bool, countOnly: Bool
    ) throws -> (matches: [QueryMatch], count: Int) {
        let layout = self.layout  // once, not through the reader for every candidate
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
        let stored = reader.stored
        // The entity codes the request covers, and the residual compiled per code (CQ2).
        var wanted = [Bool](repeating: false, count: layout.byCode.count)
        for kind in kinds { if let e = layout.entities[kind] { wanted[e.code] = true } }
        // Without an overlay the RELATIONSHIP path need not test the conjunct that chose it (RA4).
        let residual = overlay == nil ? (plan.storedResidual ?? plan.residual) : plan.residual
        let recordTree = try stored.tree(entity.recordTree)
        let rules = MatchRules(
            layout: layout, wanted: wanted, residual: residual, reader: reader, countOnly: countOnly,
            stopAfter: stopAfter, keepRecords: keepRecords, sortPaths: sortPaths,
            location: recordTree.map { RecordTreeLocation($0, path: stored.tx.store.path) })
        var matcher = RecordMatcher(rules: rules)

        // Lookups by primary key reuse one path (in key order on most access paths): nothing
        // writes to the store while a query runs.
        let lookup = recordTree?.lookupCursor()
        func load(_ pk: Int64, expected: ObjectID? = nil) throws -> Bool {
            guard let lookup else { return true }
            return try Tree.withValue(forBigEndianKey: UInt64(bitPattern: pk), using: lookup) { value in
                guard let value else { return true }
                return try matcher.consider(pk, lent: value, expected: expected)
            }
        }
        /// Reads the records of `keys` (with the IDs each was read for, when the path knows them)
        /// in order, in pieces on several threads when the read is large enough (RK2, TP1–TP2).
        func load(_ keys: [Int64], expected: [ObjectID]? = nil) throws {
            if let recordTree, let parts = try loadInPieces(keys, expected: expected, from: recordTree, rules) {
                for part in parts { matcher.append(part) }
                return
            }
            for (i, pk) in keys.enumerated() {
                guard try load(pk, expected: expected?[i]) else { break }
            }
        }

        switch plan.access {
        case .fullScan:
            if let recordTree {
                if let parts = try scanInPieces(recordTree, rules) {
                    for part in parts { matcher.append(part) }
                } else {
                    let location = RecordTreeLocation(recordTree, path: stored.tx.store.path)
                    try recordTree.scanBorrowing { key, value in
                        try matcher.consider(try Self.recordKey(key, in: location), lent: value)
                    }
                }
            }
        case let .primaryKeys(ids):
            let chosen = ids.filter { kinds.contains($0.entity) }
            try load(chosen.map(\.primaryKey), expected: chosen)
        case let .index(index, access):
            if let tree = try stored.tree(index.definition.tree) {
                let ranges = Self.keyRanges(access, index)
                if plan.deliversSort {
                    scan: for (lower, upper) in ranges {
                        var more = true
                        try tree.scanBorrowing(from: lower, upTo: upper) { key, _ in
                            more = try load(try stored.primaryKey(ofIndexEntry: key, in: tree))
                            return more
                        }
                        if !more { break scan }
                    }
                } else {
                    // Each object has one entry per index (EL2): only overlapping IN values repeat one.
                    var pks: [Int64] = []
                    for (lower, upper) in ranges {
                        try tree.scanBorrowing(from: lower, upTo: upper) { key, _ in
                            pks.append(try stored.primaryKey(ofIndexEntry: key, in: tree))
                            return true
                        }
                    }
                    pks.sort()
                    var unique: [Int64] = []
                    unique.reserveCapacity(pks.count)
                    for pk in pks where pk != unique.last { unique.append(pk) }
                    try load(unique)
                }
            }
        case let .relationship(target, inverse, treeName):
            let ids = try stored.related(target, inverse, treeName: treeName).sorted(by: {
                $0.primaryKey < $1.primaryKey
            }).filter { kinds.contains($0.entity) }
            try load(ids.map(\.primaryKey), expected: ids)
        case let .related(targets, inverse, treeName):
            // The far-side fetch runs on the same reader (RA3); the union of the targets' lists
            // is read in primary-key order, each candidate once.
            var candidates = Set<ObjectID>()
            for target in try matches(targets, paging: false) {
                candidates.formUnion(try stored.related(target.id, inverse, treeName: treeName))
            }
            let ids = candidates.sorted(by: { $0.primaryKey < $1.primaryKey }).filter { kinds.contains($0.entity) }
            try load(ids.map(\.primaryKey), expected: ids)
        case let .indexOrder(index):
            if let tree = try stored.tree(index.definition.tree) {
                try tree.scanBorrowing { key, _ in try load(try stored.primaryKey(ofIndexEntry: key, in: tree)) }
            }
        }

        let counted = matcher.counted
        var out = matcher.takeMatches()
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
                        id: id, source: keepRecords ? .decoded(rec) : nil,
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
            return (Array(out[start..<end]), counted)
        }
        return (out, counted)
    }

    /// The record of a match kept with `keepRecords`, decoded now.
    func record(of match: QueryMatch) throws -> Record? {
        switch match.source {
        case nil: return nil
        case let .decoded(record)?: return record
        case let .stored(encoded)?:
            return try located(encoded, match.id) { try RecordCodec.decode(encoded.bytes, layout: layout) }
        }
    }

    /// What `ObjectSnapshot.values(of:)` gives for a match kept with `keepRecords`; with
    /// `properties`, only those of them the entity stores (the rest of the record is not decoded).
    func values(of match: QueryMatch, properties: [String]) throws -> [String: PropertyValue]? {
        guard !properties.isEmpty, let source = match.source else {
            return try record(of: match).map(ObjectSnapshot.values(of:))
        }
        var result: [String: PropertyValue] = [:]
        result.reserveCapacity(properties.count)
        switch source {
        case let .stored(encoded):
            try located(encoded, match.id) {
                for name in properties { result[name] = try encoded.propertyValue(name, layout: layout) }
            }
        case let .decoded(record):
            for name in properties { result[name] = record.value(of: name) }
        }
        return result
    }

    /// Runs `body`, turning a damaged record into a corruption error that names its tree and key.
    private func located<R>(_ record: EncodedRecord, _ id: ObjectID, _ body: () throws -> R) throws -> R {
        do { return try body() } catch let e as RecordDecodingError {
            guard let tree = try reader.stored.tree(record.entity.recordTree) else { throw e }
            throw reader.stored.corruption(tree, "record \(id.primaryKey): \(e.message)")
        }
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
        return try matchCount(request)
    }
}
