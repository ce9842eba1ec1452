// The compiled predicate against its oracle, the interpreter (CQ1): every predicate fixture case on
// every stored fixture record, and randomized predicates on randomized records; lazy reads of
// encoded records (ER1); and projected fetches.

import CdStore
import Foundation
import Testing
@testable import CdObjects

/// What an evaluation gave: the answer, or the kind of error it threw.
private enum Outcome: Equatable {
    case answer(Bool)
    case failure(String)

    init(_ body: () throws -> Bool) {
        do { self = .answer(try body()) } catch let e as CdPredicateError {
            self = .failure(e.kind.rawValue)
        } catch {
            self = .failure(String(describing: type(of: error)))
        }
    }
}

/// Both evaluations of `predicate` on every record of `entity` stored in `snapshot`.
private func compareOnEveryRecord(
    _ predicate: CdPredicate, entity: String, _ snapshot: ObjectSnapshot
) throws -> [(pk: Int64, compiled: Outcome, interpreted: Outcome)] {
    let layout = snapshot.stored.layout
    let reader = ObjectReader(stored: snapshot.stored, overlay: nil)
    let tree = try #require(try snapshot.stored.tree(try layout.entity(entity).recordTree))
    var compiled: [Int: CompiledPredicate] = [:]
    var results: [(Int64, Outcome, Outcome)] = []
    try tree.scan { key, value in
        let pk = Int64(bitPattern: key.readBE(UInt64.self, at: 0))
        let record = try EncodedRecord(value, layout: layout)
        guard record.entity.name == entity else { return true }
        let program = compiled[record.entity.code] ?? CompiledPredicate(predicate, entity: record.entity)
        compiled[record.entity.code] = program
        var candidate = PredicateCandidate(record: record, primaryKey: pk, reader: reader)
        let fast = Outcome { try program.evaluate(&candidate) }
        let decoded = try RecordCodec.decode(value, layout: layout)
        let object = RecordObject(id: ObjectID(entity: entity, primaryKey: pk), record: decoded, reader: reader)
        let slow = Outcome { try predicate.evaluate(with: object) }
        results.append((pk, fast, slow))
        return true
    }
    return results
}

@Suite("Compiled predicates and lazy record reads")
struct CompiledPredicateTests {
    // MARK: - Fixture equivalence

    static func fixtureCases() -> [PredicateCase] { (try? PredicateFixture.cases()) ?? [] }

    @Test(arguments: fixtureCases())
    func compiledAgreesWithTheInterpreterOnTheFixtures(_ c: PredicateCase) throws {
        let store = try PredicateFixtureStore.shared.get()
        let dataset = try PredicateFixture.dataset()
        guard
            var predicate = try? CdPredicate(
                format: c.format, argumentArray: c.args.map { PredicateFixtureStore.argument($0, dataset) })
        else { return }  // a syntax or argument case: nothing to evaluate
        if let variables = c.variables {
            guard
                let bound = try? predicate.withSubstitutionVariables(
                    variables.mapValues { PredicateFixtureStore.argument($0, dataset) })
            else { return }
            predicate = bound
        }
        let results = try store.read { try compareOnEveryRecord(predicate, entity: c.entity, $0) }
        #expect(!results.isEmpty)
        for r in results { #expect(r.compiled == r.interpreted, "\(c.entity)/\(r.pk): \(predicate)") }
    }

    @Test func fixtureCasesCoverEveryComparisonShape() throws {
        // The specialised tests, the generic compiled path and the fallback all occur.
        let store = try PredicateFixtureStore.shared.get()
        let person = store.layout.entities["Person"]!
        let shapes = [
            ("age > 30", 0), ("name CONTAINS[c] 'a'", 0), ("salary >= 50000.0", 0),
            ("department.name == 'R&D'", 1), ("age > 30 AND ANY friends.age < 30", 1),
        ]
        for (format, fallbacks) in shapes {
            #expect(
                CompiledPredicate(try CdPredicate(format: format), entity: person).fallbacks == fallbacks, "\(format)")
        }
    }

    // MARK: - Randomized equivalence

    static func randomModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription(
                name: "Thing",
                attributes: [
                    .init(name: "n", type: .integer64), .init(name: "m", type: .integer16),
                    .init(name: "s", type: .string), .init(name: "t", type: .string),
                    .init(name: "d", type: .double), .init(name: "b", type: .boolean),
                ]),
            EntityDescription(name: "Sub", parent: "Thing", attributes: [.init(name: "a", type: .string)]),
        ])
    }

    static let strings: [CdValue] = [
        .null, .string(""), .string("abc"), .string("ABC"), .string("aBc d"), .string("café"), .string("CAFÉ"),
        .string("cafe\u{301}"), .string("line\r\nbreak"), .string("x\ry"), .string("Straße"), .string("b*c"),
    ]

    /// A random constant of any class, mostly ones that fit the attribute.
    static func constant(for attribute: String, _ g: inout SeededGenerator) -> CdValue {
        let pick = Int.random(in: 0..<10, using: &g)
        if pick == 0 { return .null }
        if pick == 1 { return [.integer(2), .double(1.5), .bool(true), .string("x")].randomElement(using: &g)! }
        switch attribute {
        case "n", "m": return .integer(Int64.random(in: -3...3, using: &g))
        case "d": return Bool.random(using: &g) ? .double(Double(Int.random(in: -3...3, using: &g)) / 2) : .integer(1)
        case "b": return .bool(Bool.random(using: &g))
        default:
            return [
                .string("a"), .string("B"), .string("bc"), .string(""), .string("é"), .string("caf"),
                .string("x\ry"), .string("line"), .string("*c"), .string("abc"),
            ].randomElement(using: &g)!
        }
    }

    static func comparison(_ g: inout SeededGenerator) -> CdPredicate {
        let attribute = ["n", "m", "s", "t", "d", "b", "a"].randomElement(using: &g)!
        let ops: [PredicateOperator] = [
            .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
            .contains, .beginsWith, .endsWith, .like, .in, .between,
        ]
        let op = ops.randomElement(using: &g)!
        var right: CdPredicateExpression = .constant(constant(for: attribute, &g))
        if op == .between || (op == .in && Bool.random(using: &g)) {
            let count = op == .between ? 2 : Int.random(in: 0...3, using: &g)
            right = .aggregate((0..<count).map { _ in .constant(constant(for: attribute, &g)) })
        }
        let options = [
            PredicateStringOptions(), .caseInsensitive, .diacriticInsensitive,
            [.caseInsensitive, .diacriticInsensitive],
            .normalized,
        ].randomElement(using: &g)!
        let key = CdPredicateExpression.keyPath(.evaluatedObject, [attribute])
        if Bool.random(using: &g), case .constant = right,
            [PredicateOperator.equal, .lessThan, .greaterThanOrEqual].contains(op)
        {
            return .comparison(PredicateComparison(right, op, key, options: options))
        }
        return .comparison(PredicateComparison(key, op, right, options: options))
    }

    static func predicate(_ g: inout SeededGenerator, depth: Int = 0) -> CdPredicate {
        switch depth < 2 ? Int.random(in: 0..<6, using: &g) : 0 {
        case 1: return .and(predicate(&g, depth: depth + 1), predicate(&g, depth: depth + 1))
        case 2: return .or(predicate(&g, depth: depth + 1), predicate(&g, depth: depth + 1))
        case 3: return .not(predicate(&g, depth: depth + 1))
        default: return comparison(&g)
        }
    }

    @Test func compiledAgreesWithTheInterpreterOnRandomRecords() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("compiledAgreesWithTheInterpreterOnRandomRecords seed \(seed)")
        var g = SeededGenerator(seed: seed)
        let store = try ObjectStore.open(path: nil, model: Self.randomModel())
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for pk in 1...60 {
            let entity = pk % 3 == 0 ? "Sub" : "Thing"
            var values: [String: PropertyValue] = [:]
            func maybe(_ v: CdValue) -> PropertyValue { .attribute(Int.random(in: 0..<5, using: &g) == 0 ? .null : v) }
            values["n"] = maybe(.integer(Int64.random(in: -3...3, using: &g)))
            values["m"] = maybe(.integer(Int64.random(in: -3...3, using: &g)))
            values["s"] = .attribute(Self.strings.randomElement(using: &g)!)
            values["t"] = .attribute(Self.strings.randomElement(using: &g)!)
            values["d"] = maybe(.double(Double(Int.random(in: -6...6, using: &g)) / 2))
            values["b"] = maybe(.bool(Bool.random(using: &g)))
            if entity == "Sub" { values["a"] = .attribute(Self.strings.randomElement(using: &g)!) }
            inserted[ObjectID(entity: entity, primaryKey: Int64(pk))] = values
        }
        try store.apply(ChangeSet(inserted: inserted))
        var compared = 0
        try store.read { snapshot in
            for _ in 0..<400 {
                let p = Self.predicate(&g)
                for entity in ["Thing", "Sub"] {
                    for r in try compareOnEveryRecord(p, entity: entity, snapshot) {
                        #expect(r.compiled == r.interpreted, "seed \(seed): \(entity)/\(r.pk): \(p)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == 400 * 60)
    }

    // MARK: - Lazy reads

    @Test func aFieldIsReadWithoutDecodingTheFieldsAfterIt() throws {
        let layout = StoreLayout(model: try Self.randomModel())
        let thing = layout.entities["Thing"]!
        let (b, n, s) = (thing.attributeSlots["b"]!, thing.attributeSlots["n"]!, thing.attributeSlots["s"]!)
        #expect(b < n && n < s)
        // n = 3, then a string field whose length runs past the end of the value.
        var bytes: [UInt8] = [StoreLayout.formatVersion, UInt8(thing.code), 2]
        bytes += [UInt8(n), RecordTag.integer.rawValue, 6, UInt8(s), RecordTag.string.rawValue, 50, 0x61]
        let record = try EncodedRecord(bytes, layout: layout)
        #expect(try record.value(ofAttribute: n) == .integer(3))
        #expect(try record.value(ofAttribute: b) == .null)
        #expect(throws: RecordDecodingError.self) { try record.value(ofAttribute: s) }
        #expect(throws: RecordDecodingError.self) { try RecordCodec.decode(bytes, layout: layout) }
        // A test of n alone never reaches the damage; one of s does.
        let store = try ObjectStore.open(path: nil, model: Self.randomModel())
        let (onN, onS) = (
            CompiledPredicate(try CdPredicate(format: "n == 3"), entity: thing),
            CompiledPredicate(try CdPredicate(format: "s CONTAINS 'a'"), entity: thing)
        )
        let snapshot = try store.beginRead()
        defer { snapshot.end() }
        let reader = ObjectReader(stored: snapshot.stored, overlay: nil)
        var candidate = PredicateCandidate(record: record, primaryKey: 1, reader: reader)
        #expect(try onN.evaluate(&candidate))
        #expect(throws: RecordDecodingError.self) { try onS.evaluate(&candidate) }
        withExtendedLifetime(reader) {}  // the candidate does not hold it
    }

    @Test func damageBeforeTheFieldIsReported() throws {
        let layout = StoreLayout(model: try Self.randomModel())
        let thing = layout.entities["Thing"]!
        let (n, s) = (thing.attributeSlots["n"]!, thing.attributeSlots["s"]!)
        let cases: [[UInt8]] = [
            [UInt8(n), 99, 0, UInt8(s), RecordTag.string.rawValue, 1, 0x61],  // unknown tag
            [UInt8(n), RecordTag.integer.rawValue, 2, UInt8(n), RecordTag.integer.rawValue, 2],  // slot repeated
            [UInt8(n), RecordTag.object.rawValue, 0, 1, UInt8(s), RecordTag.string.rawValue, 1, 0x61],
        ]
        for fields in cases {
            let record = try EncodedRecord([StoreLayout.formatVersion, UInt8(thing.code), 2] + fields, layout: layout)
            #expect(throws: RecordDecodingError.self, "\(fields)") { try record.value(ofAttribute: s) }
        }
        #expect(throws: RecordDecodingError.self) { try EncodedRecord([7, 0, 0], layout: layout) }
        #expect(throws: RecordDecodingError.self) {
            try EncodedRecord([StoreLayout.formatVersion, 99, 0], layout: layout)
        }
    }

    // MARK: - Projection

    @Test func projectedFetchesHoldExactlyTheAskedProperties() throws {
        let store = try PredicateFixtureStore.shared.get()
        var request = FetchRequest(entity: "Person")
        request.predicate = try CdPredicate(format: "age > 30")
        request.sortDescriptors = [SortDescriptor("name")]
        let full = try store.read { try $0.fetchObjects(request) }
        request.propertiesToFetch = ["nickname", "department", "friends", "noSuchKey"]
        let projected = try store.read { try $0.fetchObjects(request) }
        #expect(projected.map(\.id) == full.map(\.id))
        #expect(!projected.isEmpty)
        for (p, f) in zip(projected, full) {
            let values = try #require(p.values)
            #expect(Set(values.keys) == ["nickname", "department"])
            #expect(values["nickname"] == f.values?["nickname"])
            #expect(values["department"] == f.values?["department"])
        }
    }

    @Test func countsAgreeWithTheFetchedPageWithoutMakingMatches() throws {
        let store = try PredicateFixtureStore.shared.get()
        for format in ["age > 30", "name CONTAINS[c] 'a'", "department.name != 'x'", "age < 0"] {
            for (offset, limit) in [(0, nil), (0, 3), (2, nil), (2, 4), (50, 5)] as [(Int, Int?)] {
                var request = FetchRequest(entity: "Person")
                request.predicate = try CdPredicate(format: format)
                request.offset = offset
                request.limit = limit
                let ids = try store.read { try $0.fetchIDs(request) }
                #expect(try store.read { try $0.count(request) } == ids.count, "\(format) \(offset) \(limit as Any)")
            }
        }
    }

    @Test func aPageDecodesOnlyItsOwnRecords() throws {
        // Matches outside the page keep their bytes undecoded: a damaged record past the limit
        // does not fail a fetch that stops before it.
        let store = try ObjectStore.open(path: nil, model: Self.randomModel())
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        for pk in 1...3 { inserted[ObjectID(entity: "Thing", primaryKey: Int64(pk))] = ["n": .attribute(.integer(1))] }
        try store.apply(ChangeSet(inserted: inserted))
        let thing = store.layout.entities["Thing"]!
        let n = UInt8(thing.attributeSlots["n"]!)
        let damaged: [UInt8] = [StoreLayout.formatVersion, UInt8(thing.code), 2, n, 1, 2, n + 1, 4, 40]
        try store.engine.write { tx in try tx.tree("cd.rec.Thing")!.put(RecordCodec.key(3), damaged) }
        var request = FetchRequest(entity: "Thing")
        request.predicate = try CdPredicate(format: "n == 1")
        request.sortDescriptors = [SortDescriptor("n")]  // every record is read, then sorted
        request.limit = 2
        let page = try store.read { try $0.fetchObjects(request) }
        #expect(page.map(\.id.primaryKey) == [1, 2])
        request.limit = nil
        #expect(throws: CdError.self) { try store.read { try $0.fetchObjects(request) } }
    }
}
