// The worked examples of docs/FORMAT.md, encoded by the code and looked up in the doc
// byte for byte, so the two cannot drift apart.

import Foundation
import Testing
@testable import CdObjects

@Suite("Object store format")
struct ObjectStoreFormatTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined(separator: " ") }

    static func column(_ v: CdValue, _ type: AttributeType, descending: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        IndexKey.appendColumn(v, type: type, to: &out)
        if descending { IndexKey.complement(&out, from: 0) }
        return out
    }

    static func examples() throws -> [(String, [UInt8])] {
        let model = try ObjectModel(entities: [
            EntityDescription(
                name: "Item",
                attributes: [.init(name: "s", type: .string, isIndexed: true), .init(name: "n", type: .integer64)],
                relationships: [.init(name: "owner", destination: "Owner", inverse: "items")]),
            EntityDescription(name: "Owner", relationships: [.toMany("items", destination: "Item", inverse: "owner")]),
        ])
        let layout = StoreLayout(model: model)
        let item = layout.entities["Item"]!
        var rec = Record(defaultsOf: item)
        rec.values = [.integer(-2), .string("hi")]
        rec.toOne = [ObjectID(entity: "Owner", primaryKey: 3)]
        var sIndexKey = Record(defaultsOf: item)
        sIndexKey.values = [.null, .string("ab")]
        return [
            ("record key of primary key 1", RecordCodec.key(1)),
            ("nil (any type)", column(.null, .integer64)),
            ("integer 0", column(.integer(0), .integer64)),
            ("integer -1", column(.integer(-1), .integer64)),
            ("integer 42", column(.integer(42), .integer64)),
            ("integer 42 descending", column(.integer(42), .integer64, descending: true)),
            ("double 1.0", column(.double(1), .double)),
            ("double -1.0", column(.double(-1), .double)),
            ("boolean YES", column(.bool(true), .boolean)),
            ("string \"ab\"", column(.string("ab"), .string)),
            ("string \"a\\0b\"", column(.string("a\u{0}b"), .string)),
            ("date 2001-01-01 00:00:01 UTC", column(.date(Date(timeIntervalSinceReferenceDate: 1)), .date)),
            ("index key Item(s) \"ab\", primary key 7", IndexKey.key(item.indexes[0], sIndexKey, primaryKey: 7)),
            ("record Item n = -2, s = \"hi\", owner = Owner/3", RecordCodec.encode(rec, layout: layout)),
            ("to-many entry key Owner/3 → Item/5", RecordCodec.key(3) + RecordCodec.key(5)),
            ("to-many entry value (target entity Item)", [UInt8(item.code)]),
        ]
    }

    @Test func everyWorkedExampleIsInTheDocument() throws {
        let doc = try String(
            contentsOf: ModelFixtures.repoRoot.appendingPathComponent("docs/FORMAT.md"), encoding: .utf8)
        for (name, bytes) in try Self.examples() {
            let row = "| \(name) | `\(Self.hex(bytes))` |"
            #expect(doc.contains(row), "missing from docs/FORMAT.md: \(row)")
        }
    }

    @Test func recordsDecodeToWhatWasEncoded() throws {
        let layout = StoreLayout(model: try companyModel())
        let e = layout.entities["Manager"]!
        var rec = Record(defaultsOf: e)
        rec.values[e.attributeSlots["badge"]!] = .string("x")
        rec.toOne[e.toOneSlots["department"]!] = ObjectID(entity: "Department", primaryKey: 1 << 40)
        let decoded = try RecordCodec.decode(RecordCodec.encode(rec, layout: layout), layout: layout)
        #expect(decoded.entity === e)
        #expect(decoded.values == rec.values)
        #expect(decoded.toOne == rec.toOne)
    }

    @Test(arguments: [
        [UInt8](), [2], [1, 99], [1, 0, 1, 0, 1], [1, 0, 1, 0, 9, 1], [1, 0, 1, 0, 4, 5, 0x61], [1, 0, 0, 0],
    ])
    func damagedRecordsFailToDecode(_ bytes: [UInt8]) throws {
        let layout = StoreLayout(
            model: try ObjectModel(entities: [
                EntityDescription(name: "A", attributes: [.init(name: "s", type: .string)])
            ]))
        #expect(throws: RecordDecodingError.self) { try RecordCodec.decode(bytes, layout: layout) }
    }

    @Test func keyOrderIsValueOrder() throws {
        let seed = testSeed("keyOrderIsValueOrder")
        var g = SeededGenerator(seed: seed)
        let specials: [Double] = [-.infinity, -1e300, -1, -0.0, 0, 1e-300, 1, .infinity]
        for _ in 0..<2000 {
            let pairs: [(CdValue, CdValue, AttributeType)] = [
                (
                    .integer(Int64.random(in: .min ... .max, using: &g)), .integer(Int64.random(in: -3...3, using: &g)),
                    .integer64
                ),
                (
                    .double(specials.randomElement(using: &g)! * Double.random(in: 0...2, using: &g)),
                    .double(Double.random(in: -5...5, using: &g)), .double
                ),
                (
                    .string(
                        String(
                            (0..<Int.random(in: 0...3, using: &g)).map { _ in
                                ["a", "b", "\u{0}", "é", "Z"].randomElement(using: &g)!
                            }.joined())),
                    .string(["", "a", "a\u{0}", "b", "é"].randomElement(using: &g)!), .string
                ),
            ]
            for (a, b, type) in pairs {
                let order = CdValue.compare(a, b)
                let ka = Self.column(a, type), kb = Self.column(b, type)
                let keyOrder: ComparisonResult =
                    ka == kb ? .orderedSame : ka.lexicographicallyPrecedes(kb) ? .orderedAscending : .orderedDescending
                #expect(order == keyOrder, "seed \(seed): \(a) vs \(b)")
            }
        }
    }
}
