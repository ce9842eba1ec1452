// The query planner: picks one access path for a fetch and says whether it delivers the sort.
//
// Access paths, best first (the planner looks at the conjuncts of the top-level AND):
//   PRIMARY KEY   `SELF == %@` / `SELF IN %@` with object IDs
//   INDEX SCAN    an index whose leading column is an attribute compared with constants:
//                 `==` (unique index first), `IN`, a two-sided range (`BETWEEN`, `>`/`<` pairs),
//                 `BEGINSWITH` (no [c]/[d]), a one-sided range
//   RELATIONSHIP  `toOne == %@`, `ANY toMany == %@`, `toMany CONTAINS %@` or `%@ IN toMany` with
//                 an object ID, when the relationship has a stored to-many inverse: the candidates
//                 are the target's inverse list, read from its relationship tree
//                 (QueryPlan+Relationships.swift)
//   RELATED       `ANY toMany.attribute op value`, `toOne.attribute op value`, or
//                 `SUBQUERY(toMany, $x, …).@count > 0`: the candidates are the inverse lists of the
//                 destination objects a fetch of the far-side condition finds, through the
//                 destination's own indexes; chosen after every index of the entity itself
//   INDEX ORDER   no usable condition, but an index whose columns are exactly the sort keys
//   FULL SCAN     the entity's record tree in primary-key order
// Whatever the path, the full predicate is evaluated on every candidate (so key cutting,
// decimal rounding and inclusive bounds only cost extra candidates, never wrong answers), with
// one exception: on the PRIMARY KEY path the `SELF ==` / `SELF IN` conjuncts that chose the keys
// are left out (`residual`). The executor reads exactly those IDs (entity and key), so they hold
// for every candidate, and testing `SELF IN` a list of n IDs on each of n candidates would cost
// n² comparisons.
//
// Order: every path yields candidates in primary-key order, except an index scan over one
// range or value (and INDEX ORDER), which yields (columns, primary key) order. That order is the
// sort when the sort keys are exactly the index's columns, all ascending, case-sensitive, and the
// types order bytewise like CdValue.compare (not decimal): then the executor skips the sort and
// stops at offset + limit. The full-scan path sorts stably from primary-key order, so both give
// identical results (ties broken by primary key).
//
// Strings are indexed as UTF-8 bytes; the predicate evaluator compares Swift strings (canonical
// equivalence). For strings in one normal form (NFC, as Foundation and Core Data hand them out)
// the two agree; a decomposed "é" is not found by an index lookup of a precomposed one.

/// How candidates are read from an index.
enum IndexAccess: Equatable {
    case equal(CdValue)
    case inList([CdValue])
    /// Bounds with their strictness (for the plan text; the scan itself is inclusive).
    case range(lower: CdValue?, lowerInclusive: Bool, upper: CdValue?, upperInclusive: Bool)
    case prefix(String)

    var rank: Int {
        switch self {
        case .equal: return 2
        case .inList: return 3
        case let .range(lower, _, upper, _): return lower != nil && upper != nil ? 4 : 6
        case .prefix: return 5
        }
    }
}

/// The chosen access path.
enum AccessPath {
    case fullScan
    case primaryKeys([ObjectID])
    case index(IndexLayout, IndexAccess)
    case indexOrder(IndexLayout)
    /// The objects in `target`'s to-many `inverse` (stored in `tree`).
    case relationship(target: ObjectID, inverse: RelationshipDescription, tree: String)
    /// The objects in the to-many `inverse` (stored in `tree`) of every object `targets` finds.
    case related(targets: FetchRequest, inverse: RelationshipDescription, tree: String)
}

/// A plan: the access path, and whether it already yields the requested sort.
struct QueryPlan {
    let entity: String
    let access: AccessPath
    let deliversSort: Bool
    let request: FetchRequest
    /// What the executor evaluates on each candidate: the request's predicate, less the
    /// conjuncts the access path already guarantees (see the top of this file).
    let residual: CdPredicate?
    /// On the RELATIONSHIP and RELATED paths, the residual without the conjunct that chose the
    /// path: every stored candidate is in the inverse list of an object that meets it, so
    /// (inverses agreeing, OV5) it holds for each. Only valid without an overlay, which may have
    /// changed lists the stored candidates are read from (QueryPlan+Relationships.swift, RA4).
    let storedResidual: CdPredicate??

    /// `residual` nil (the default) means the whole predicate; `.some(nil)` means nothing is left.
    init(
        entity: String, access: AccessPath, deliversSort: Bool, request: FetchRequest, residual: CdPredicate?? = nil,
        storedResidual: CdPredicate?? = nil
    ) {
        self.entity = entity
        self.access = access
        self.deliversSort = deliversSort
        self.request = request
        self.residual = residual ?? request.predicate
        self.storedResidual = storedResidual
    }

    /// The plan as text, e.g. `INDEX SCAN Person(age) > 30 AND <= 50; LIMIT 10`.
    var description: String {
        var text: String
        switch access {
        case .fullScan:
            text = "FULL SCAN \(entity)"
        case let .primaryKeys(ids):
            text =
                ids.count == 1
                ? "PRIMARY KEY \(entity) = \(ids[0])"
                : "PRIMARY KEY \(entity) IN (\(ids.map(\.description).joined(separator: ", ")))"
        case let .indexOrder(index):
            text = "INDEX ORDER \(index.definition.label)"
        case let .relationship(target, inverse, _):
            text = "RELATIONSHIP \(target).\(inverse.name)"
        case let .related(targets, inverse, _):
            let far = targets.predicate.map { " WHERE \($0)" } ?? ""
            text = "RELATED \(inverse.name) OF \(targets.entity)\(far)"
        case let .index(index, access):
            text = "INDEX SCAN \(index.definition.label) "
            switch access {
            case let .equal(v): text += "= \(Self.format(v))"
            case let .inList(vs): text += "IN (\(vs.map(Self.format).joined(separator: ", ")))"
            case let .prefix(p): text += "BEGINSWITH \(Self.format(.string(p)))"
            case let .range(lower, li, upper, ui):
                var parts: [String] = []
                if let lower { parts.append("\(li ? ">=" : ">") \(Self.format(lower))") }
                if let upper { parts.append("\(ui ? "<=" : "<") \(Self.format(upper))") }
                text += parts.joined(separator: " AND ")
            }
        }
        if deliversSort { text += " (ORDERED)" }
        if !deliversSort && !request.sortDescriptors.isEmpty {
            text +=
                "; SORT BY "
                + request.sortDescriptors.map { s in
                    s.key + (s.caseInsensitive ? "[c]" : "") + (s.ascending ? "" : " DESC")
                }.joined(separator: ", ")
        }
        if request.offset > 0 { text += "; OFFSET \(request.offset)" }
        if let limit = request.limit { text += "; LIMIT \(limit)" }
        return text
    }

    static func format(_ v: CdValue) -> String {
        if case let .string(s) = v { return "'\(s)'" }
        return v.description
    }
}

/// Chooses plans.
enum QueryPlanner {
    static func plan(_ request: FetchRequest, entity: EntityLayout, layout: StoreLayout) -> QueryPlan {
        var best: (IndexLayout, IndexAccess)?
        var keys: [ObjectID]?
        var otherConjuncts: [CdPredicate] = []
        var related: AccessPath?
        var relatedConjunct: CdPredicate?
        var relatedThrough: AccessPath?
        var relatedThroughConjunct: CdPredicate?
        if let predicate = request.predicate {
            var ranges: [String: (IndexLayout, CdValue?, Bool, CdValue?, Bool)] = [:]
            for conjunct in conjuncts(predicate) {
                guard case let .comparison(c) = conjunct else { otherConjuncts.append(conjunct); continue }
                if relatedThrough == nil, let path = farSideAccess(c, entity, layout) {
                    relatedThrough = path
                    relatedThroughConjunct = conjunct
                }
                guard c.quantifier == .direct else {
                    otherConjuncts.append(conjunct)
                    if related == nil, let path = relationshipAccess(c, entity, layout) {
                        related = path
                        relatedConjunct = conjunct
                    }
                    continue
                }
                if let ids = primaryKeys(c) {
                    if let previous = keys {
                        let these = Set(ids)
                        keys = previous.filter(these.contains)
                    } else {
                        keys = ids
                    }
                    continue
                }
                otherConjuncts.append(conjunct)
                if related == nil, let path = relationshipAccess(c, entity, layout) {
                    related = path
                    relatedConjunct = conjunct
                    continue
                }
                guard let (property, op, right) = normalized(c),
                    let index = entity.indexes.first(where: { leads($0, property) }),
                    case let .attribute(_, type) = index.columns[0].source
                else { continue }
                let stringOptionsOK = c.options.subtracting(.normalized).isEmpty
                var candidate: IndexAccess?
                switch (op, right) {
                case let (.equal, .constant(v)) where stringOptionsOK:
                    candidate = IndexKey.columnValue(v, type: type).map(IndexAccess.equal)
                case let (.in, .aggregate(elements)) where stringOptionsOK:
                    var values: [CdValue] = []
                    for e in elements {
                        guard case let .constant(v) = e, let cv = IndexKey.columnValue(v, type: type) else {
                            values = []; break
                        }
                        values.append(cv)
                    }
                    if !values.isEmpty || elements.isEmpty { candidate = .inList(values) }
                case let (.between, .aggregate(bounds)) where bounds.count == 2:
                    if case let .constant(lo) = bounds[0], case let .constant(hi) = bounds[1],
                        !lo.isNull, !hi.isNull, let l = IndexKey.columnValue(lo, type: type),
                        let h = IndexKey.columnValue(hi, type: type)
                    {
                        candidate = .range(lower: l, lowerInclusive: true, upper: h, upperInclusive: true)
                    }
                case let (.beginsWith, .constant(.string(p))) where stringOptionsOK && type == .string:
                    if IndexKey.stringPrefix(p) != nil { candidate = .prefix(p) }
                case let (.lessThan, .constant(v)), let (.lessThanOrEqual, .constant(v)),
                    let (.greaterThan, .constant(v)), let (.greaterThanOrEqual, .constant(v)):
                    guard !v.isNull, let cv = IndexKey.columnValue(v, type: type) else { break }
                    var r = ranges[property] ?? (index, nil, true, nil, true)
                    if op == .lessThan || op == .lessThanOrEqual {
                        if r.3 == nil || CdValue.compare(cv, r.3!) == .orderedAscending {
                            r.3 = cv; r.4 = op == .lessThanOrEqual
                        }
                    } else if r.1 == nil || CdValue.compare(cv, r.1!) == .orderedDescending {
                        r.1 = cv; r.2 = op == .greaterThanOrEqual
                    }
                    ranges[property] = r
                    candidate = .range(lower: r.1, lowerInclusive: r.2, upper: r.3, upperInclusive: r.4)
                default:
                    break
                }
                guard let candidate else { continue }
                let rank =
                    candidate.rank
                    - (candidate.rank == 2 && index.definition.isUnique && index.columns.count == 1 ? 1 : 0)
                let bestRank =
                    best.map {
                        $0.1.rank - ($0.1.rank == 2 && $0.0.definition.isUnique && $0.0.columns.count == 1 ? 1 : 0)
                    } ?? Int.max
                if rank < bestRank
                    || (rank == bestRank && best.map { $0.0.definition.tree == index.definition.tree } == true)
                {
                    best = (index, candidate)
                }
            }
        }
        if let keys {
            var unique = Set<ObjectID>()
            let sorted = keys.filter { unique.insert($0).inserted }.sorted { $0.primaryKey < $1.primaryKey }
            // Only the key conjuncts set `keys`; every other conjunct is still tested.
            let residual = otherConjuncts.reduce(nil) { (all: CdPredicate?, next) in all.map { .and($0, next) } ?? next
            }
            return QueryPlan(
                entity: entity.name, access: .primaryKeys(sorted), deliversSort: false, request: request,
                residual: residual)
        }
        /// The predicate without the conjunct an access path guarantees for stored candidates (RA4).
        func without(_ chosen: CdPredicate?) -> CdPredicate?? {
            var rest = request.predicate.map(conjuncts) ?? []
            if let chosen, let i = rest.firstIndex(of: chosen) { rest.remove(at: i) }
            return .some(rest.reduce(nil) { (all: CdPredicate?, next) in all.map { .and($0, next) } ?? next })
        }
        if let related, best.map({ $0.1.rank > 2 || !$0.0.definition.isUnique }) ?? true {
            return QueryPlan(
                entity: entity.name, access: related, deliversSort: false, request: request,
                storedResidual: without(relatedConjunct))
        }
        if let (index, access) = best {
            let single: Bool
            switch access {
            case .equal, .range, .prefix: single = true
            case .inList: single = false
            }
            return QueryPlan(
                entity: entity.name, access: .index(index, access),
                deliversSort: single && sortMatches(request.sortDescriptors, index), request: request)
        }
        if let relatedThrough {
            return QueryPlan(
                entity: entity.name, access: relatedThrough, deliversSort: false, request: request,
                storedResidual: without(relatedThroughConjunct))
        }
        if !request.sortDescriptors.isEmpty,
            let index = entity.indexes.first(where: { sortMatches(request.sortDescriptors, $0) })
        {
            return QueryPlan(entity: entity.name, access: .indexOrder(index), deliversSort: true, request: request)
        }
        return QueryPlan(entity: entity.name, access: .fullScan, deliversSort: false, request: request)
    }

    static func conjuncts(_ p: CdPredicate) -> [CdPredicate] {
        if case let .and(a, b) = p { return conjuncts(a) + conjuncts(b) }
        return [p]
    }

    /// `SELF == id` or `SELF IN {ids}`.
    static func primaryKeys(_ c: PredicateComparison) -> [ObjectID]? {
        guard c.left == .evaluatedObject else { return nil }
        func id(_ e: CdPredicateExpression) -> ObjectID? {
            if case let .object(o) = e { return o.identity.base as? ObjectID }
            return nil
        }
        switch (c.op, c.right) {
        case let (.equal, e): return id(e).map { [$0] }
        case let (.in, .aggregate(elements)):
            let ids = elements.compactMap(id)
            return ids.count == elements.count ? ids : nil
        default: return nil
        }
    }

    /// `key op constant`, with `constant op key` turned around.
    static func normalized(_ c: PredicateComparison) -> (String, PredicateOperator, CdPredicateExpression)? {
        if case let .keyPath(.evaluatedObject, path) = c.left, path.count == 1 { return (path[0], c.op, c.right) }
        if case let .keyPath(.evaluatedObject, path) = c.right, path.count == 1, case .constant = c.left {
            let flipped: PredicateOperator
            switch c.op {
            case .equal: flipped = .equal
            case .lessThan: flipped = .greaterThan
            case .lessThanOrEqual: flipped = .greaterThanOrEqual
            case .greaterThan: flipped = .lessThan
            case .greaterThanOrEqual: flipped = .lessThanOrEqual
            default: return nil
            }
            return (path[0], flipped, c.left)
        }
        return nil
    }

    static func leads(_ index: IndexLayout, _ property: String) -> Bool {
        index.columns[0].property == property && index.columns[0].ascending
    }

    /// Whether the index order is exactly the sort (see the header).
    static func sortMatches(_ sort: [SortDescriptor], _ index: IndexLayout) -> Bool {
        guard !sort.isEmpty, sort.count == index.columns.count else { return false }
        for (s, c) in zip(sort, index.columns) {
            guard s.key == c.property, s.ascending, c.ascending, !s.caseInsensitive,
                case let .attribute(_, type) = c.source, type != .decimal
            else { return false }
        }
        return true
    }
}
