// Dictionary results: properties and key paths per object, expressions, grouping and distinct.
//
// Expressions (`FetchExpression.format`): `@sum.x`, `@avg.x`, `@min.x`, `@max.x`, `@count.x`,
// `x.@count` (and `x.@sum` …), `@count` (objects in the group), or a plain key path. Aggregates
// follow the predicate layer's rules (PE5): nil values are ignored, `@sum` of nothing is 0,
// `@avg`/`@min`/`@max` of nothing are nil; the result is converted to the expression's type.
//
// Without `groupBy` and without aggregate expressions there is one row per object, in sort order.
// Otherwise the matching objects form groups (all of them one group when `groupBy` is empty), in
// order of first appearance by primary key; the sort descriptors then order the rows by their
// values. `distinct` drops repeated rows; offset and limit apply last. Nil values are left out of
// rows, as Core Data's NSDictionaryResultType does.

import Foundation

/// A parsed fetch expression.
struct ParsedExpression {
    let function: PredicateAggregateFunction?
    let path: [String]
    let resultType: AttributeType

    init(_ e: FetchExpression) throws {
        var parts = e.format.split(separator: ".").map { String($0).trimmingCharacters(in: .whitespaces) }
        var function: PredicateAggregateFunction?
        if let first = parts.first, first.hasPrefix("@") {
            function = PredicateAggregateFunction(rawValue: first)
            parts.removeFirst()
        } else if let last = parts.last, last.hasPrefix("@") {
            function = PredicateAggregateFunction(rawValue: last)
            parts.removeLast()
        } else if parts.isEmpty {
            throw CdPredicateError(.syntax, "empty expression '\(e.format)' for \(e.name)")
        }
        if function == nil && e.format.contains("@") {
            throw CdPredicateError(.syntax, "unknown function in expression '\(e.format)' for \(e.name)")
        }
        if function != nil && function != .count && parts.isEmpty {
            throw CdPredicateError(.syntax, "expression '\(e.format)' for \(e.name) needs a key")
        }
        self.function = function
        self.path = parts
        self.resultType = e.resultType
    }
}

extension QueryExecutor {
    func rows(_ request: FetchRequest) throws -> [[String: PropertyValue]] {
        let entity = try check(request)
        let expressions = try Dictionary(
            request.expressions.map { ($0.name, try ParsedExpression($0)) }, uniquingKeysWith: { a, _ in a })
        let properties = request.propertiesToFetch.isEmpty ? entity.attributes.map(\.name) : request.propertiesToFetch
        for p in properties where expressions[p] == nil { try checkPath(p, from: entity) }
        for g in request.groupBy { try checkPath(g, from: entity) }
        for e in expressions.values where !e.path.isEmpty { try checkPath(e.path.joined(separator: "."), from: entity) }
        let grouped = !request.groupBy.isEmpty || properties.contains { expressions[$0]?.function != nil }

        var rows: [[String: PropertyValue]] = []
        if !grouped {
            for m in try matches(request, paging: false, keepRecords: true) {
                rows.append(try row(properties, expressions, try record(of: m).map { [$0] } ?? []))
            }
        } else {
            var unsorted = request
            unsorted.sortDescriptors = []
            var order: [[CdValue]] = []
            var groups: [[CdValue]: [Record]] = [:]
            for m in try matches(unsorted, paging: false, keepRecords: true) {
                guard let record = try record(of: m) else { continue }
                let key = try request.groupBy.map {
                    try reader.value(of: record, path: $0.split(separator: ".").map(String.init))
                }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(record)
            }
            if request.groupBy.isEmpty && order.isEmpty { order = [[]]; groups[[]] = [] }
            for key in order {
                rows.append(try row(properties, expressions, groups[key]!))
            }
            let sort = request.sortDescriptors
            if !sort.isEmpty {
                rows = rows.enumerated().sorted { a, b in
                    for s in sort {
                        let r = CdValue.compare(
                            Self.scalar(a.element[s.key]), Self.scalar(b.element[s.key]),
                            options: s.caseInsensitive ? .caseInsensitive : [])
                        if r != .orderedSame { return s.ascending ? r == .orderedAscending : r == .orderedDescending }
                    }
                    return a.offset < b.offset
                }.map(\.element)
            }
        }
        if request.distinct {
            var seen = Set<[String: PropertyValue]>()
            rows = rows.filter { seen.insert($0).inserted }
        }
        let start = min(request.offset, rows.count)
        let end = request.limit.map { min(rows.count, start + $0) } ?? rows.count
        return Array(rows[start..<end])
    }

    static func scalar(_ v: PropertyValue?) -> CdValue {
        switch v {
        case let .attribute(x)?: return x
        case let .toOne(id?)?: return .integer(id.primaryKey)
        default: return .null
        }
    }

    /// One row over a group (a single object without grouping). Plain properties come from the
    /// group's first object.
    private func row(
        _ properties: [String], _ expressions: [String: ParsedExpression], _ records: [Record]
    ) throws -> [String: PropertyValue] {
        var row: [String: PropertyValue] = [:]
        for p in properties {
            if let e = expressions[p] {
                let value: CdValue
                if let f = e.function {
                    let values =
                        try e.path.isEmpty
                        ? [] : records.map { try reader.value(of: $0, path: e.path) }.filter { !$0.isNull }
                    value = Self.aggregate(f, values, count: e.path.isEmpty ? records.count : values.count)
                } else if let first = records.first {
                    value = try reader.value(of: first, path: e.path)
                } else {
                    value = .null
                }
                let converted = Self.convert(value, to: e.resultType)
                if !converted.isNull { row[p] = .attribute(converted) }
                continue
            }
            guard let first = records.first else { continue }
            if let s = first.entity.attributeSlots[p] {
                if !first.values[s].isNull { row[p] = .attribute(first.values[s]) }
            } else if let s = first.entity.toOneSlots[p] {
                if let t = first.toOne[s] { row[p] = .toOne(t) }
            } else {
                let v = try reader.value(of: first, path: p.split(separator: ".").map(String.init))
                if !v.isNull { row[p] = .attribute(v) }
            }
        }
        return row
    }

    static func aggregate(_ f: PredicateAggregateFunction, _ values: [CdValue], count: Int) -> CdValue {
        switch f {
        case .count:
            return .integer(Int64(count))
        case .min, .max:
            let want: ComparisonResult = f == .min ? .orderedAscending : .orderedDescending
            return values.reduce(nil as CdValue?) { best, v in
                guard let best else { return v }
                return CdValue.compare(v, best) == want ? v : best
            } ?? .null
        case .sum, .avg:
            if values.isEmpty { return f == .sum ? .integer(0) : .null }
            let sum: CdValue
            if values.contains(where: {
                if case .decimal = $0 { return true }; return false
            }) {
                sum = .decimal(values.reduce(Decimal(0)) { $0 + $1.decimalValue })
            } else if values.allSatisfy({
                if case .integer = $0 { return true }; if case .bool = $0 { return true }; return false
            }) {
                var total: Int64 = 0
                var overflow = false
                for v in values {
                    let i: Int64
                    switch v {
                    case let .integer(x): i = x
                    case let .bool(b): i = b ? 1 : 0
                    default: i = 0
                    }
                    let (r, o) = total.addingReportingOverflow(i)
                    total = r
                    overflow = overflow || o
                }
                sum = overflow ? .double(values.reduce(0) { $0 + $1.doubleValue }) : .integer(total)
            } else {
                sum = .double(values.reduce(0) { $0 + $1.doubleValue })
            }
            guard f == .avg else { return sum }
            if case let .decimal(d) = sum { return .decimal(d / Decimal(values.count)) }
            return .double(sum.doubleValue / Double(values.count))
        }
    }

    /// Converts a numeric result to the expression's declared type.
    static func convert(_ v: CdValue, to type: AttributeType) -> CdValue {
        switch (type, v) {
        case (.integer16, let .double(d)), (.integer32, let .double(d)), (.integer64, let .double(d)):
            return d.isFinite && abs(d) < 9.2e18 ? .integer(Int64(d.rounded())) : v
        case (.integer16, let .decimal(d)), (.integer32, let .decimal(d)), (.integer64, let .decimal(d)):
            return .integer(Int64(truncating: NSDecimalNumber(decimal: d)))
        case (.double, .integer), (.float, .integer), (.double, .decimal), (.float, .decimal):
            return .double(v.doubleValue)
        case (.decimal, .integer), (.decimal, .double):
            return .decimal(v.decimalValue)
        default:
            return v
        }
    }
}
