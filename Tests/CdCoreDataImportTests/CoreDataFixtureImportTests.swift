import CdCoreDataImport
import CdObjects
import Foundation
import Testing

/// Every real Core Data store imports whole: its version found by schema, one object per row
/// (counted per Z_ENT by SQLite itself), sampled rows equal to their objects, and the source
/// files unchanged.
@Suite("Core Data fixture stores", .enabled(if: CoreDataFixtures.shouldRun, CoreDataFixtures.skipReason))
struct CoreDataFixtureImportTests {
    @Test("every fixture store imports whole", arguments: CoreDataFixtures.all)
    func fixtureImports(_ fixture: CoreDataFixture) throws {
        guard let folder = CoreDataFixtures.directory(fixture) else { return }
        let before = try snapshotFiles(folder)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let output = scratch.url.appendingPathComponent("out.cdstore")
        let report = try CoreDataImport.importStore(
            at: folder.appendingPathComponent(fixture.store), model: folder.appendingPathComponent(fixture.model),
            to: output)
        #expect(try snapshotFiles(folder) == before, "the source files are unchanged")
        #expect(report.modelVersion == fixture.version)
        #expect(report.badRowCount == 0, "\(report.badRows)")
        #expect(!FileManager.default.fileExists(atPath: output.path + ".importing"))

        // An independent reading of a copy of the store.
        let copyFolder = scratch.url.appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: copyFolder, withIntermediateDirectories: true)
        let copy = copyFolder.appendingPathComponent(fixture.store)
        for suffix in ["", "-wal", "-shm"] {
            let source = folder.appendingPathComponent(fixture.store).path + suffix
            if FileManager.default.fileExists(atPath: source) {
                try FileManager.default.copyItem(atPath: source, toPath: copy.path + suffix)
            }
        }
        let sqlite = try TestSQLite(path: copy.path)
        defer { sqlite.close() }
        let uuid = try sqlite.rows("SELECT Z_UUID FROM Z_METADATA")
        #expect(uuid.first?.first == .text(report.storeUUID))

        let model = try ModelFileReader.load(
            at: folder.appendingPathComponent(fixture.model).path, version: fixture.version
        ).model
        var entityOfNumber: [Int64: String] = [:]
        for row in try sqlite.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            guard case let .integer(n) = row[0], case let .text(name) = row[1] else { continue }
            if let e = model.entity(named: name) ?? model.entities.first(where: { $0.renamingIdentifier == name }) {
                entityOfNumber[n] = e.name
            }
        }
        let store = try ObjectStore.open(path: output.path, model: model)
        defer { try? store.close() }
        var expectedCounts: [String: Int] = [:]
        for root in model.entities.filter({ $0.parent == nil }) {
            let table = "Z" + root.name.uppercased()
            for row in try sqlite.rows("SELECT Z_ENT, COUNT(*) FROM \(table) GROUP BY Z_ENT") {
                guard case let .integer(n) = row[0], case let .integer(count) = row[1] else { continue }
                let entity = try #require(entityOfNumber[n], "Z_ENT \(n) of \(table)")
                expectedCounts[entity] = Int(count)
            }
            try checkSampledRows(
                table: table, root: root.name, sqlite: sqlite, model: model, store: store,
                entityOfNumber: entityOfNumber)
        }
        #expect(report.objectCounts == expectedCounts)
        do {
            let snapshot = try store.beginRead()
            defer { snapshot.end() }
            for (entity, count) in expectedCounts {
                var request = FetchRequest(entity: entity)
                request.includesSubentities = false
                #expect(try snapshot.count(request) == count, "\(entity)")
            }
        }
        let problems = try store.engine.read { try ObjectStoreVerifier().verify($0) }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The first, middle and last rows of a table equal their objects: every attribute with a
    /// column of its own name, and every to-one's key.
    private func checkSampledRows(
        table: String, root: String, sqlite: TestSQLite, model: ObjectModel, store: ObjectStore,
        entityOfNumber: [Int64: String]
    ) throws {
        let columns = try sqlite.columns(of: table)
        let keys = try sqlite.rows("SELECT Z_PK FROM \(table) ORDER BY Z_PK").compactMap {
            if case let .integer(k) = $0[0] { return k } else { return nil }
        }
        guard !keys.isEmpty else { return }
        let sample = Set([keys[0], keys[keys.count / 2], keys[keys.count - 1]])
        for key in sample {
            let row = try #require(try sqlite.rows("SELECT * FROM \(table) WHERE Z_PK = \(key)").first)
            guard case let .integer(number)? = columns.firstIndex(of: "Z_ENT").map({ row[$0] }),
                let entity = entityOfNumber[number]
            else {
                Issue.record("\(table) Z_PK \(key): no entity")
                continue
            }
            let id = ObjectID(entity: entity, primaryKey: key)
            let values = try #require(try store.storedValues(id), "\(id) was imported")
            for a in model.allAttributes(of: entity) where !a.isTransient {
                guard let at = columns.firstIndex(of: "Z" + a.name.uppercased()) else { continue }
                let expected = try #require(expectedValue(row[at], a.type), "\(table).\(a.name) \(row[at])")
                guard case let .attribute(actual)? = values[a.name] else {
                    Issue.record("\(id).\(a.name) missing")
                    continue
                }
                #expect(sameValue(actual, expected), "\(id).\(a.name): \(actual) ≠ \(expected)")
            }
            for r in model.allRelationships(of: entity) where !r.isTransient && !r.isToMany {
                guard let at = columns.firstIndex(of: "Z" + r.name.uppercased()) else { continue }
                guard case let .toOne(target)? = values[r.name] else {
                    Issue.record("\(id).\(r.name) missing")
                    continue
                }
                switch row[at] {
                case .null: #expect(target == nil, "\(id).\(r.name)")
                case let .integer(k): #expect(target?.primaryKey == k, "\(id).\(r.name)")
                default: Issue.record("\(id).\(r.name): \(row[at])")
                }
            }
        }
    }
}

/// Order comes across: DuckDuckGo's bookmarks keep their folders' children (`Z_FOK_PARENT`) and
/// favorites (a self many-to-many ordered by `Z_FOK_1FAVORITES`) in Core Data's order.
@Suite("Core Data fixture order", .enabled(if: CoreDataFixtures.shouldRun, CoreDataFixtures.skipReason))
struct CoreDataFixtureOrderTests {
    @Test func orderedToManyAndOrderedManyToManyKeepTheirOrder() throws {
        guard let fixture = CoreDataFixtures.all.first(where: { $0.folder == "ddg-bookmarks-ordered-v4" }),
            let folder = CoreDataFixtures.directory(fixture)
        else { return }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let output = scratch.url.appendingPathComponent("out.cdstore")
        try CoreDataImport.importStore(
            at: folder.appendingPathComponent(fixture.store), model: folder.appendingPathComponent(fixture.model),
            to: output)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(
                atPath: folder.appendingPathComponent(fixture.store).path + suffix,
                toPath: scratch.url.appendingPathComponent("copy.sqlite").path + suffix)
        }
        let sqlite = try TestSQLite(path: scratch.url.appendingPathComponent("copy.sqlite").path)
        defer { sqlite.close() }
        let model = try ModelFileReader.load(
            at: folder.appendingPathComponent(fixture.model).path, version: fixture.version
        ).model
        let store = try ObjectStore.open(path: output.path, model: model)
        defer { try? store.close() }
        let snapshot = try store.beginRead()
        defer { snapshot.end() }
        func keys(_ rows: [[SQLValue]]) -> [Int64] {
            rows.compactMap { if case let .integer(k) = $0[0] { return k } else { return nil } }
        }
        let entity = "BookmarkEntity"
        var checked = 0
        for owner in keys(try sqlite.rows("SELECT Z_PK FROM ZBOOKMARKENTITY")) {
            let id = ObjectID(entity: entity, primaryKey: owner)
            let children = keys(
                try sqlite.rows("SELECT Z_PK FROM ZBOOKMARKENTITY WHERE ZPARENT = \(owner) ORDER BY Z_FOK_PARENT"))
            #expect(try snapshot.related(id, "children").map(\.primaryKey) == children, "\(id).children")
            let favorites = keys(
                try sqlite.rows(
                    "SELECT Z_1FAVORITES FROM Z_1FAVORITES WHERE Z_1FAVORITEFOLDERS = \(owner) "
                        + "ORDER BY Z_FOK_1FAVORITES"
                ))
            #expect(try snapshot.related(id, "favorites").map(\.primaryKey) == favorites, "\(id).favorites")
            checked += children.count + favorites.count
        }
        #expect(checked > 0, "the fixture has ordered members")
    }
}
