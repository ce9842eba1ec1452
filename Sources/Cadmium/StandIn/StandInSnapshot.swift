// A snapshot of the stand-in store: a copy of its records at one commit, and the queries over
// it (predicates through `PredicateEvaluable`, sorting, paging, dictionary rows).
//
// Confinement: one thread at a time (it is immutable, so in fact any).

import Foundation
import CdObjects

final class StandInSnapshot: SnapshotBackend {
    let records: StandInObjectStore.Records
    let commitNumber: UInt64
    let model: ObjectModel

    init(records: StandInObjectStore.Records, commitNumber: UInt64, model: ObjectModel) {
        self.records = records
        self.commitNumber = commitNumber
        self.model = model
    }

    func end() {}

    func values(of id: ObjectID) throws -> [String: PropertyValue]? {
        records[id]?.filter { if case .toMany = $0.value { return false } else { return true } }
    }

    func exists(_ id: ObjectID) throws -> Bool { records[id] != nil }

    func related(_ id: ObjectID, _ relationship: String) throws -> [ObjectID] {
        switch records[id]?[relationship] {
        case let .toMany(list)?: return list
        case let .toOne(target?)?: return [target]
        default: return []
        }
    }

    // MARK: - Queries

    private func view(pending: ChangeSet?) throws -> StandInObjectStore.Records {
        guard let pending, !pending.isEmpty else { return records }
        var copy = records
        _ = try StandInObjectStore.apply(pending, to: &copy, model: model, validate: false)
        return copy
    }

    /// Matching objects, sorted, before paging.
    private func matches(_ request: FetchRequest, in records: StandInObjectStore.Records) throws -> [ObjectID] {
        guard model.entity(named: request.entity) != nil else {
            throw CdPredicateError(.unknownKey, "no entity named \(request.entity)")
        }
        var entities: Set<String> = [request.entity]
        if request.includesSubentities { entities.formUnion(model.allSubentities(of: request.entity).map(\.name)) }
        var ids = records.keys.filter { entities.contains($0.entity) }.sorted()
        if let predicate = request.predicate {
            ids = try ids.filter { try predicate.evaluate(with: StandInRecord(id: $0, records: records)) }
        }
        if !request.sortDescriptors.isEmpty {
            let keyed = ids.map { id in
                (id, request.sortDescriptors.map { StandInRecord(id: id, records: records).value(atPath: $0.key) })
            }
            ids = keyed.sorted { a, b in
                for (i, sort) in request.sortDescriptors.enumerated() {
                    let order = CdValue.compare(a.1[i], b.1[i], options: sort.caseInsensitive ? .caseInsensitive : [])
                    if order == .orderedSame { continue }
                    return (order == .orderedAscending) == sort.ascending
                }
                return a.0 < b.0
            }.map(\.0)
        }
        return ids
    }

    private func page<T>(_ items: [T], _ request: FetchRequest) -> [T] {
        let start = min(request.offset, items.count)
        let end = request.limit.map { min(items.count, start + $0) } ?? items.count
        return Array(items[start..<end])
    }

    func fetchIDs(_ request: FetchRequest, pending: ChangeSet?) throws -> [ObjectID] {
        page(try matches(request, in: try view(pending: pending)), request)
    }

    func count(_ request: FetchRequest, pending: ChangeSet?) throws -> Int {
        try fetchIDs(request, pending: pending).count
    }

    func fetchRows(_ request: FetchRequest, pending: ChangeSet?) throws -> [[String: PropertyValue]] {
        let records = try view(pending: pending)
        let ids = try matches(request, in: records)
        let expressions = Dictionary(request.expressions.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var properties = request.propertiesToFetch
        if properties.isEmpty {
            properties = model.allAttributes(of: request.entity).filter { !$0.isTransient }.map(\.name)
        }
        let usesExpressions = properties.contains { expressions[$0] != nil }
        // Groups: by the groupBy keys; all rows in one group when expressions are used without
        // grouping; otherwise one group per object.
        var groups: [[ObjectID]] = []
        if !request.groupBy.isEmpty {
            var index: [[CdValue]: Int] = [:]
            for id in ids {
                let key = request.groupBy.map { StandInRecord(id: id, records: records).value(atPath: $0) }
                if let i = index[key] { groups[i].append(id) } else { index[key] = groups.count; groups.append([id]) }
            }
        } else if usesExpressions {
            groups = ids.isEmpty ? [] : [ids]
        } else {
            groups = ids.map { [$0] }
        }
        var rows: [[String: PropertyValue]] = groups.map { group in
            var row: [String: PropertyValue] = [:]
            for name in properties {
                if let expression = expressions[name] {
                    row[name] = .attribute(Self.evaluate(expression, over: group, records: records))
                } else if case let .toOne(target)? = records[group[0]]?[name] {
                    row[name] = .toOne(target)
                } else {
                    row[name] = .attribute(StandInRecord(id: group[0], records: records).value(atPath: name))
                }
            }
            return row
        }
        if request.distinct {
            var seen = Set<[String: PropertyValue]>()
            rows = rows.filter { seen.insert($0).inserted }
        }
        return page(rows, request)
    }

    /// `@sum.key`, `key.@sum`, `@count`, `key.@count` (and avg, min, max) over a group.
    static func evaluate(_ expression: FetchExpression, over group: [ObjectID],
                         records: StandInObjectStore.Records) -> CdValue {
        let parts = expression.format.split(separator: ".").map(String.init)
        guard let function = parts.first(where: { $0.hasPrefix("@") }) else { return .null }
        let key = parts.first { !$0.hasPrefix("@") }
        let values: [CdValue] = key.map { key in
            group.map { StandInRecord(id: $0, records: records).value(atPath: key) }.filter { !$0.isNull }
        } ?? group.map { _ in CdValue.integer(1) }
        func number(_ v: CdValue) -> Double? {
            switch v {
            case let .integer(i): return Double(i)
            case let .double(d): return d
            case let .decimal(d): return NSDecimalNumber(decimal: d).doubleValue
            default: return nil
            }
        }
        switch function.lowercased() {
        case "@count":
            return .integer(Int64(key == nil ? group.count : values.count))
        case "@sum":
            if values.allSatisfy({ if case .integer = $0 { return true } else { return false } }) {
                return .integer(values.reduce(0) { if case let .integer(i) = $1 { return $0 + i } else { return $0 } })
            }
            return .double(values.compactMap(number).reduce(0, +))
        case "@avg":
            let numbers = values.compactMap(number)
            return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        case "@min":
            return values.min { CdValue.compare($0, $1) == .orderedAscending } ?? .null
        case "@max":
            return values.max { CdValue.compare($0, $1) == .orderedAscending } ?? .null
        default:
            return .null
        }
    }
}

/// One record of a snapshot, as the predicate evaluator sees it.
struct StandInRecord: PredicateEvaluable {
    let id: ObjectID
    let records: StandInObjectStore.Records

    var predicateIdentity: AnyHashable { AnyHashable(id) }

    func predicateValue(forKey key: String) throws -> PredicateValue {
        if key == "self" || key == "SELF" { return .object(self) }
        switch records[id]?[key] {
        case let .attribute(value)?: return .value(value)
        case let .toOne(target)?: return .object(target.map { StandInRecord(id: $0, records: records) })
        case let .toMany(list)?: return .collection(list.map { .object(StandInRecord(id: $0, records: records)) })
        case nil: throw CdPredicateError(.unknownKey, "\(id.entity) has no key '\(key)'")
        }
    }

    /// The attribute at a key path through to-one relationships; `.null` when absent.
    func value(atPath path: String) -> CdValue {
        var current: ObjectID? = id
        let keys = path.split(separator: ".").map(String.init)
        for (i, key) in keys.enumerated() {
            guard let id = current, let value = records[id]?[key] else { return .null }
            switch value {
            case let .attribute(v): return i == keys.count - 1 ? v : .null
            case let .toOne(target): current = target
            case .toMany: return .null
            }
        }
        return .null
    }
}
