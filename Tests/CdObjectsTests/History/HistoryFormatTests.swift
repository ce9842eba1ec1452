// The persistent history's bytes: the worked examples of docs/FORMAT.md §History encoded by the
// code and looked up in the doc, damaged entries that must fail to decode, and the layout
// versions a build opens (1 without history, 2 with it; 3 is refused).

import CdStore
import Foundation
import Testing
@testable import CdObjects

@Suite struct HistoryFormatTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined(separator: " ") }

    /// FORMAT.md's Item (code 0: attributes n slot 0, s slot 1 kept in tombstones; to-one owner)
    /// and Owner (code 1).
    static func layout() throws -> StoreLayout {
        StoreLayout(
            model: try ObjectModel(entities: [
                EntityDescription(
                    name: "Item",
                    attributes: [
                        .init(name: "s", type: .string, preservesValueInHistoryOnDeletion: true),
                        .init(name: "n", type: .integer64),
                    ],
                    relationships: [.init(name: "owner", destination: "Owner", inverse: "items")]),
                EntityDescription(
                    name: "Owner", relationships: [.toMany("items", destination: "Item", inverse: "owner")]),
            ]))
    }

    static func examples() throws -> [(String, [UInt8])] {
        let layout = try layout()
        let item = layout.entities["Item"]!, owner = layout.entities["Owner"]!
        var insert = HistoryPartBuilder(entityCount: 2)
        insert.appendInsert(item, 5, toManys: []) { $0 < 2 }
        var update = HistoryPartBuilder(entityCount: 2)
        update.appendUpdate(owner, 3, slots: [], toManys: ["items"])
        var delete = HistoryPartBuilder(entityCount: 2)
        delete.appendDelete(item, 5, tombstone: [(1, .string("hi"))])
        let header = HistoryHeader(
            timestamp: Date(timeIntervalSinceReferenceDate: 0), author: "importer", contextName: nil, partCount: 1)
        return [
            ("history key of transaction 3, part 1", HistoryLayout.key(3, part: 1)),
            ("history header: 2001-01-01, author \"importer\", one part", HistoryCodec.encodeHeader(header)),
            ("history part: insert Item/5 holding n and s", insert.encoded()),
            ("history part: update Owner/3, to-many items", update.encoded()),
            ("history part: delete Item/5, tombstone s = \"hi\"", delete.encoded()),
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

    @Test func examplesDecodeToWhatWasEncoded() throws {
        let layout = try Self.layout()
        let reader = HistoryReader(tree: nil, layout: layout, storeID: UUID())
        let examples = try Self.examples()
        let header = try HistoryCodec.decodeHeader(examples[1].1)
        #expect(header.author == "importer" && header.contextName == nil && header.partCount == 1)
        #expect(HistoryCodec.encodeHeader(header) == examples[1].1)
        let insert = try reader.decodePart(examples[2].1)
        #expect(insert.map(\.objectID) == [ObjectID(entity: "Item", primaryKey: 5)])
        #expect(insert[0].kind == .insert && insert[0].properties == ["n", "s"])
        let update = try reader.decodePart(examples[3].1)
        #expect(update[0].kind == .update && update[0].properties == ["items"] && update[0].tombstone == nil)
        let delete = try reader.decodePart(examples[4].1)
        #expect(delete[0].kind == .delete && delete[0].tombstone == ["s": .string("hi")])
    }

    /// Truncations, a bad version, kind, name index, entity, property, tag, and trailing bytes.
    @Test(arguments: [
        [UInt8](), [2, 0, 0], [1, 1, 4, 73, 116, 101, 109, 1, 9, 0, 5, 0],  // version 2; kind 9
        [1, 1, 4, 73, 116, 101, 109, 1, 1, 1, 5, 0],  // name index 1 of 1
        [1, 1, 4, 78, 111, 112, 101, 1, 1, 0, 5, 0],  // entity "Nope"
        [1, 1, 4, 73, 116, 101, 109, 1, 1, 0, 5, 1, 0],  // "Item" as a property of Item
        [1, 1, 4, 73, 116, 101, 109, 1, 1, 0, 0, 0],  // primary key 0
        [1, 2, 4, 73, 116, 101, 109, 1, 115, 1, 3, 0, 5, 0, 1, 1, 11, 0, 1],  // tombstone with an object tag
        [1, 1, 4, 73, 116, 101, 109, 1, 1, 0, 5, 0, 0],  // a trailing byte
        [1, 1, 4, 73, 116, 101, 109, 1, 1, 0, 5],  // truncated
    ])
    func damagedPartsFailToDecode(_ bytes: [UInt8]) throws {
        let reader = HistoryReader(tree: nil, layout: try Self.layout(), storeID: UUID())
        #expect(throws: RecordDecodingError.self) { try reader.decodePart(bytes) }
    }

    @Test(arguments: [
        [UInt8](), [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0],  // version; flag 4
        [1, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f, 0, 0],  // an infinite timestamp
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 5, 97, 0],  // truncated author
        [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0],  // a trailing byte
    ])
    func damagedHeadersFailToDecode(_ bytes: [UInt8]) {
        #expect(throws: RecordDecodingError.self) { try HistoryCodec.decodeHeader(bytes) }
    }

    @Test func theModelFileFlagMarksAttributesForTombstonesOutsideTheHash() throws {
        let xml = modelXML(
            "<entity name=\"A\"><attribute name=\"x\" attributeType=\"String\" preserveAfterDeletion=\"YES\"/>"
                + "<attribute name=\"y\" attributeType=\"String\"/></entity>")
        let model = try ModelFileReader.parse(contents: Data(xml.utf8), path: "memory").model
        let attributes = try #require(model.entitiesByName["A"]).attributes
        #expect(attributes.map(\.preservesValueInHistoryOnDeletion) == [true, false])
        let plain = try ModelFileReader.parse(
            contents: Data(xml.replacingOccurrences(of: " preserveAfterDeletion=\"YES\"", with: "").utf8),
            path: "memory"
        ).model
        #expect(model.versionHash == plain.versionHash, "not part of the stored shape")
        let json = try JSONEncoder().encode(model)
        #expect(try JSONDecoder().decode(ObjectModel.self, from: json) == model, "kept in the stored model")
    }

    @Test func layoutVersionsOneAndTwoOpenAndThreeIsRefused() {
        #expect(StoreLayout.formatProblem([1, 0, 0, 0]) == nil)
        #expect(StoreLayout.formatProblem([2, 0, 0, 0]) == nil)
        #expect(StoreLayout.formatProblem([3, 0, 0, 0]) == .newer(3))
        #expect(StoreLayout.formatProblem([0, 0, 0, 0]) != nil)
    }
}
