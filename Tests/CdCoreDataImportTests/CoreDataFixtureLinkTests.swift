import CdCoreDataImport
import CdObjects
import Foundation
import Testing

/// Every relationship of every real store comes across, checked against an independent reading
/// of a copy of the SQLite file: every row's to-ones equal their key columns (all rows, not a
/// sample), every to-many with a to-one inverse holds exactly the rows whose key column names
/// its owner, and every many-to-many holds as many links as its join table has rows. With the
/// object checks (inverses agree both ways) that covers every link of the store.
@Suite("Core Data fixture links", .enabled(if: CoreDataFixtures.shouldRun, CoreDataFixtures.skipReason))
struct CoreDataFixtureLinkTests {
    @Test("every link of every fixture store comes across", arguments: CoreDataFixtures.all)
    func everyLinkComesAcross(_ fixture: CoreDataFixture) throws {
        guard let folder = CoreDataFixtures.directory(fixture) else { return }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let output = scratch.url.appendingPathComponent("out.cdstore")
        var options = CoreDataImport.Options()
        options.commitSize = 7  // many commits, even in a small store
        let report = try CoreDataImport.importStore(
            at: folder.appendingPathComponent(fixture.store), model: folder.appendingPathComponent(fixture.model),
            to: output, options: options)
        #expect(report.badRowCount == 0, "\(report.badRows)")
        let copy = scratch.url.appendingPathComponent("copy.sqlite")
        for suffix in ["", "-wal", "-shm"] {
            let source = folder.appendingPathComponent(fixture.store).path + suffix
            if FileManager.default.fileExists(atPath: source) {
                try FileManager.default.copyItem(atPath: source, toPath: copy.path + suffix)
            }
        }
        let sqlite = try TestSQLite(path: copy.path)
        defer { sqlite.close() }
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
        let snapshot = try store.beginRead()
        defer { snapshot.end() }
        func integer(_ row: [SQLValue]) -> Int64? {
            if case let .integer(k) = row[0] { return k }
            return nil
        }
        func table(_ entity: String) -> String { "Z" + (model.rootEntity(of: entity)?.name ?? entity).uppercased() }
        var checked = 0
        // To-ones: every row.
        for root in model.entities where root.parent == nil {
            let columns = try sqlite.columns(of: table(root.name))
            for row in try sqlite.rows("SELECT * FROM \(table(root.name))") {
                guard case let .integer(key) = row[columns.firstIndex(of: "Z_PK")!],
                    case let .integer(number) = row[columns.firstIndex(of: "Z_ENT")!],
                    let entity = entityOfNumber[number]
                else { continue }
                let values = try #require(try snapshot.values(of: ObjectID(entity: entity, primaryKey: key)))
                for r in model.allRelationships(of: entity) where !r.isTransient && !r.isToMany {
                    guard let at = columns.firstIndex(of: "Z" + r.name.uppercased()) else { continue }
                    var target: ObjectID?? = nil
                    if case let .toOne(t)? = values[r.name] { target = .some(t) }
                    switch row[at] {
                    case .null: #expect(target == .some(nil), "\(entity)/\(key).\(r.name)")
                    case let .integer(k): #expect(target??.primaryKey == k, "\(entity)/\(key).\(r.name)")
                    default: Issue.record("\(entity)/\(key).\(r.name): \(row[at])")
                    }
                    checked += 1
                }
            }
        }
        // To-manys with a to-one inverse: exactly the rows naming the owner; many-to-many: counts.
        for e in model.entities {
            for r in e.relationships where !r.isTransient && r.isToMany {
                guard let inverse = model.inverse(of: r.name, in: e.name), !inverse.isTransient else { continue }
                var owners: [ObjectID] = []
                for row in try sqlite.rows("SELECT Z_PK, Z_ENT FROM \(table(e.name))") {
                    guard case let .integer(k) = row[0], case let .integer(n) = row[1], let entity = entityOfNumber[n],
                        model.isEntity(entity, kindOf: e.name)
                    else { continue }
                    owners.append(ObjectID(entity: entity, primaryKey: k))
                }
                if !inverse.isToMany {
                    let column = "Z" + inverse.name.uppercased()
                    guard try sqlite.columns(of: table(r.destination)).contains(column) else { continue }
                    for owner in owners {
                        let members = try sqlite.rows(
                            "SELECT Z_PK FROM \(table(r.destination)) WHERE \(column) = \(owner.primaryKey)"
                        ).compactMap(integer)
                        #expect(
                            try Set(snapshot.related(owner, r.name).map(\.primaryKey)) == Set(members),
                            "\(owner).\(r.name)")
                        checked += members.count
                    }
                } else {
                    let numbers = entityOfNumber.filter { $0.value == e.name }.keys
                    let candidates =
                        numbers.map { "Z_\($0)" + r.name.uppercased() }
                        + entityOfNumber.filter { $0.value == r.destination }.keys.map {
                            "Z_\($0)" + inverse.name.uppercased()
                        }
                    let tables = try Set(
                        sqlite.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap {
                            row -> String? in
                            if case let .text(t) = row[0] { return t }
                            return nil
                        })
                    guard let join = candidates.first(where: tables.contains) else {
                        Issue.record("\(e.name).\(r.name): no join table among \(candidates)")
                        continue
                    }
                    guard case let .integer(rows)? = try sqlite.rows("SELECT COUNT(*) FROM \(join)").first?.first
                    else { continue }
                    let links = try owners.reduce(0) { $0 + (try snapshot.related($1, r.name).count) }
                    #expect(links == Int(rows), "\(e.name).\(r.name): \(links) links, \(join) has \(rows) rows")
                    checked += links
                }
            }
        }
        #expect(checked > 0 || model.entities.allSatisfy { $0.relationships.isEmpty })
        let problems = try store.engine.read { try ObjectStoreVerifier().verify($0) }
        #expect(problems.isEmpty, "\(problems)")
    }
}
