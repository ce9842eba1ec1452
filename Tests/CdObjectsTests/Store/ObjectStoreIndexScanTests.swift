// The same random data in two stores — one with indexes, one without — must answer every query
// identically; the indexed one must use its indexes. Seeded; set CD_SEED to replay.

import Foundation
import Testing
@testable import CdObjects

@Suite("ObjectStore index scans agree with full scans")
struct ObjectStoreIndexScanTests {
    static func model(indexed: Bool) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [
                    .init(name: "n", type: .integer64, isIndexed: indexed),
                    .init(name: "d", type: .double, isIndexed: indexed),
                    .init(name: "s", type: .string),
                    .init(name: "t", type: .date, isIndexed: indexed),
                    .init(name: "flag", type: .boolean),
                ],
                fetchIndexes: indexed
                    ? [
                        FetchIndexDescription(name: "byS", elements: [.ascending("s")]),
                        FetchIndexDescription(name: "bySN", elements: [.ascending("s"), .ascending("n")]),
                        FetchIndexDescription(name: "byTDescN", elements: [.descending("t"), .ascending("n")]),
                    ] : []),
            EntityDescription(
                name: "SpecialItem", parent: "Item", attributes: [.init(name: "extra", type: .integer32)]),
        ])
    }

    static let words = ["", "a", "ab", "abc", "abd", "b", "ba", "Bob", "bob", "é", "e", "zz", "a\u{0}b", "ab\u{0}"]

    static func randomValue(_ kind: Int, _ g: inout SeededGenerator) -> CdValue {
        if Int.random(in: 0..<12, using: &g) == 0 { return .null }
        switch kind {
        case 0: return .integer(Int64.random(in: -20...20, using: &g))
        case 1: return .double([-1.5, -0.0, 0.0, 0.25, 2.0, 1e9, -1e9, 3.75][Int.random(in: 0..<8, using: &g)])
        case 2: return .string(words[Int.random(in: 0..<words.count, using: &g)])
        default: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -5...5, using: &g)) * 86_400))
        }
    }

    static func randomPredicate(_ g: inout SeededGenerator) throws -> CdPredicate {
        let key = ["n", "d", "s", "t"][Int.random(in: 0..<4, using: &g)]
        let kind = ["n": 0, "d": 1, "s": 2, "t": 3][key]!
        func v() -> CdValue {
            var x = randomValue(kind, &g)
            while x.isNull { x = randomValue(kind, &g) }
            return x
        }
        let ops = ["==", "<", "<=", ">", ">="]
        let base: CdPredicate
        switch Int.random(in: 0..<6, using: &g) {
        case 0:
            base = try CdPredicate(format: "%K == %@", key, Int.random(in: 0..<10, using: &g) == 0 ? CdValue.null : v())
        case 1: base = try CdPredicate(format: "%K IN %@", key, [v(), v(), v()])
        case 2: base = try CdPredicate(format: "%K BETWEEN %@", key, [v(), v()])
        case 3:
            base = try CdPredicate(
                format:
                    "%K \(ops[Int.random(in: 1..<5, using: &g)]) %@ AND %K \(ops[Int.random(in: 1..<5, using: &g)]) %@",
                key, v(), key, v())
        case 4 where kind == 2:
            base = try CdPredicate(
                format: "s BEGINSWITH %@", ["", "a", "ab", "b", "a\u{0}", "é"][Int.random(in: 0..<6, using: &g)])
        default: base = try CdPredicate(format: "%K \(ops[Int.random(in: 0..<5, using: &g)]) %@", key, v())
        }
        return Bool.random(using: &g) ? base : .and(base, try CdPredicate(format: "flag == YES"))
    }

    @Test func indexAndScanGiveIdenticalResults() throws {
        let seed = testSeed("indexAndScanGiveIdenticalResults")
        var g = SeededGenerator(seed: seed)
        let indexed = try ObjectStore.open(path: nil, model: Self.model(indexed: true))
        let plain = try ObjectStore.open(path: nil, model: Self.model(indexed: false))
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for pk in 1...400 {
            let entity = pk % 5 == 0 ? "SpecialItem" : "Item"
            inserted[ObjectID(entity: entity, primaryKey: Int64(pk))] = [
                "n": .attribute(Self.randomValue(0, &g)), "d": .attribute(Self.randomValue(1, &g)),
                "s": .attribute(Self.randomValue(2, &g)), "t": .attribute(Self.randomValue(3, &g)),
                "flag": .attribute(.bool(Bool.random(using: &g))),
            ]
        }
        try indexed.apply(ChangeSet(inserted: inserted))
        try plain.apply(ChangeSet(inserted: inserted))
        let sorts: [[Sort]] = [
            [], [Sort("n")], [Sort("s")], [Sort("s"), Sort("n")],
            [Sort("d", ascending: false)], [Sort("s", caseInsensitive: true), Sort("t")],
        ]
        var usedIndex = 0
        for i in 0..<300 {
            var request = FetchRequest(entity: Bool.random(using: &g) ? "Item" : "SpecialItem")
            request.includesSubentities = Int.random(in: 0..<4, using: &g) != 0
            request.predicate = try Self.randomPredicate(&g)
            request.sortDescriptors = sorts[Int.random(in: 0..<sorts.count, using: &g)]
            if Bool.random(using: &g) { request.limit = Int.random(in: 0...15, using: &g) }
            if Bool.random(using: &g) { request.offset = Int.random(in: 0...5, using: &g) }
            let a = try indexed.read { try $0.fetchIDs(request) }
            let b = try plain.read { try $0.fetchIDs(request) }
            let plan = try indexed.read { try $0.explain(request) }
            #expect(
                a == b, "query \(i) seed \(seed): \(request.predicate!) sort \(request.sortDescriptors) plan \(plan)")
            #expect(try plain.read { try $0.explain(request) }.hasPrefix("FULL SCAN"))
            if plan.hasPrefix("INDEX") { usedIndex += 1 }
            #expect(try indexed.read { try $0.count(request) } == a.count)
        }
        #expect(usedIndex > 150, "the indexes were used for \(usedIndex) of 300 queries")
        #expect(try indexed.verify() == [])
        // Updates and deletes keep every index (ascending and descending columns) in step.
        var changes = ChangeSet()
        for (id, _) in inserted where Int.random(in: 0..<3, using: &g) == 0 {
            changes.updated[id] = [
                "n": .attribute(Self.randomValue(0, &g)), "t": .attribute(Self.randomValue(3, &g)),
                "s": .attribute(Self.randomValue(2, &g)),
            ]
        }
        for (id, _) in inserted where changes.updated[id] == nil && Int.random(in: 0..<5, using: &g) == 0 {
            changes.deleted.insert(id)
        }
        try indexed.apply(changes)
        try plain.apply(changes)
        #expect(try indexed.verify() == [], "seed \(seed)")
        var request = FetchRequest(entity: "Item")
        request.predicate = try CdPredicate(format: "s BEGINSWITH 'a' AND n > 0")
        request.sortDescriptors = [Sort("s"), Sort("n")]
        #expect(try indexed.fetch(request) == (try plain.fetch(request)), "seed \(seed)")
    }

    @Test func sortedIndexScanStopsAtTheLimitWithTheRightRows() throws {
        let store = try ObjectStore.open(path: nil, model: Self.model(indexed: true))
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for pk in 1...50 { inserted[ObjectID(entity: "Item", primaryKey: Int64(pk))] = ["n": int(Int64(100 - pk))] }
        try store.apply(ChangeSet(inserted: inserted))
        var request = FetchRequest(entity: "Item")
        request.predicate = try CdPredicate(format: "n >= 60")
        request.sortDescriptors = [Sort("n")]
        request.limit = 3
        request.offset = 1
        #expect(try store.read { try $0.explain(request) } == "INDEX SCAN Item(n) >= 60 (ORDERED); OFFSET 1; LIMIT 3")
        #expect(try store.fetch(request).map(\.primaryKey) == [39, 38, 37])
    }
}
