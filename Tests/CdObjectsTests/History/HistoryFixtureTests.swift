// Stores on disk: a store of object layout 1 (written before history existed, checked in under
// Fixtures/migration) opens as it is without history and starts history when asked; the golden
// store Fixtures/stores/objects-v2-history.cdstore (layout 2, three recorded commits) opens and
// reads its history. `CADMIUM_WRITE_FIXTURES=1` rewrites the golden store (only do that when
// the file is meant to change).

import CdStore
import Foundation
import Testing
@testable import CdObjects

@Suite struct HistoryFixtureTests {
    static let path = "/data/fixture.cdstore"
    static let layout1 = ModelFixtures.repoRoot.appendingPathComponent("Fixtures/migration/SampleModel-v3.cdstore")
    static let golden = ModelFixtures.repoRoot.appendingPathComponent("Fixtures/stores/objects-v2-history.cdstore")

    /// A file system holding a copy of `url` at `path` (the checked-in file never changes).
    static func copy(_ url: URL) throws -> InMemoryFileSystem {
        let bytes = try [UInt8](Data(contentsOf: url))
        let fs = InMemoryFileSystem()
        let file = try fs.open(path, mode: .createIfMissing)
        try bytes.withUnsafeBytes { try file.write($0, at: 0) }
        try file.close()
        return fs
    }

    static func formatEntry(_ store: ObjectStore) throws -> [UInt8]? {
        try store.engine.read { try $0.tree(StoreLayout.metaTree)?.get(StoreLayout.metaFormatKey) }
    }

    @Test func aLayoutOneStoreOpensWithoutHistoryAndStartsItWhenAsked() throws {
        let fs = try Self.copy(Self.layout1)
        var options = StoreOptions(fileSystem: fs)
        let model = try #require(try StoreMigrator.storedModel(path: Self.path, options: options)?.model)
        let plain = try ObjectStore.open(path: Self.path, model: model, options: options)
        #expect(try Self.formatEntry(plain) == [1, 0, 0, 0], "the fixture predates history")
        #expect(!plain.isHistoryTracked)
        #expect(try plain.history(after: nil).isEmpty)
        #expect(try plain.verify().isEmpty)
        try plain.close()

        options.history = .tracked
        let tracked = try ObjectStore.open(path: Self.path, model: model, options: options)
        #expect(tracked.isHistoryTracked)
        #expect(try tracked.history(after: nil).isEmpty)
        #expect(try Self.formatEntry(tracked) == [2, 0, 0, 0], "history raises the layout to 2")
        let someone = try #require(try tracked.fetch(FetchRequest(entity: model.entities[0].name)).first)
        try tracked.apply(ChangeSet(deleted: [someone]))
        let recorded = try tracked.history(after: nil)
        #expect(recorded.map(\.token.number) == [1])
        #expect(recorded[0].changes.contains { $0.objectID == someone && $0.kind == .delete })
        #expect(try tracked.verify().isEmpty)
        try tracked.close()
    }

    /// The golden store's three commits: an insert by "importer", an update, a cascading delete.
    static func writeGolden(_ fs: InMemoryFileSystem) throws {
        let store = try ObjectStore.open(path: path, model: try historyModel(), options: trackedOptions(fs))
        let d = try store.newObjectIDs(entity: "Department", count: 1)[0]
        let e = try store.newObjectIDs(entity: "Employee", count: 1)[0]
        var insert = ChangeSet(inserted: [
            d: ["name": str("R&D")], e: ["badge": str("1"), "name": str("Ann"), "department": .toOne(d)],
        ])
        insert.author = "importer"
        insert.contextName = "import"
        try store.apply(insert)
        try store.apply(ChangeSet(updated: [e: ["salary": int(5)]]))
        try store.apply(ChangeSet(deleted: [d]))
        try store.close()
    }

    @Test func theGoldenHistoryStoreReadsItsHistory() throws {
        if ProcessInfo.processInfo.environment["CADMIUM_WRITE_FIXTURES"] == "1" {
            let fs = InMemoryFileSystem()
            try Self.writeGolden(fs)
            try Data(try #require(fs.contents(of: Self.path))).write(to: Self.golden)
        }
        let fs = try Self.copy(Self.golden)
        var options = StoreOptions(fileSystem: fs)
        options.pageSize = 4096
        let store = try ObjectStore.open(path: Self.path, model: try historyModel(), options: options)
        defer { try? store.close() }
        #expect(store.isHistoryTracked, "a store with history keeps it without the option (HS6)")
        #expect(try Self.formatEntry(store) == [2, 0, 0, 0])
        let history = try store.history(after: nil)
        #expect(history.map(\.token.number) == [1, 2, 3])
        #expect(history.map(\.author) == ["importer", nil, nil])
        #expect(history.map(\.contextName) == ["import", nil, nil])
        let d = ObjectID(entity: "Department", primaryKey: 1), e = ObjectID(entity: "Employee", primaryKey: 1)
        #expect(
            recordedChanges(history[0]) == [
                d: ExpectedChange(kind: .insert, properties: ["name", "employees"]),
                e: ExpectedChange(kind: .insert, properties: ["badge", "name", "salary", "department"]),
            ])
        #expect(recordedChanges(history[1]) == [e: ExpectedChange(kind: .update, properties: ["salary"])])
        #expect(
            recordedChanges(history[2]) == [
                d: ExpectedChange(kind: .delete, properties: [], tombstone: ["name": .string("R&D")]),
                e: ExpectedChange(
                    kind: .delete, properties: [], tombstone: ["badge": .string("1"), "name": .string("Ann")]),
            ])
        #expect(history.allSatisfy { $0.token.storeID == history[0].token.storeID })
        #expect(try store.verify().isEmpty)
    }
}
