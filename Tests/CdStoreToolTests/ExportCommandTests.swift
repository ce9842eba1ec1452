// `cdstore export`: every format to files and to standard output, paging past one page of
// objects, the golden stores, and the hostile object stores (never a trap).

import CdObjects
import CdStore
import Foundation
import Testing

@Suite struct ExportCommandTests {
    static func sample(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("sample.cdstore").path
        try SampleStore.create(at: path)
        return path
    }

    @Test(arguments: ["json", "ndjson", "csv"]) func eachFormatWritesOneFilePerEntity(_ format: String) throws {
        try Cdstore.withTempDir { dir in
            let out = dir.appendingPathComponent("out")
            let r = try Cdstore.run(["export", try Self.sample(in: dir), "--format", format, "--output", out.path])
            #expect(r.status == 0, "\(r.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
            #expect(files == ["Department.\(format)", "Employee.\(format)"])
            let employees = try String(contentsOf: out.appendingPathComponent("Employee.\(format)"), encoding: .utf8)
            switch format {
            case "json":
                let rows = try #require(
                    try JSONSerialization.jsonObject(with: Data(employees.utf8)) as? [[String: Any]])
                #expect(rows.map { $0["name"] as? String } == ["Ada", "Grace", "Linus", "Alan"])
            case "ndjson":
                #expect(employees.split(separator: "\n").count == 4)
            default:
                let lines = employees.split(separator: "\n")
                #expect(lines.first == "objectID,name,salary,rating,active,hired,photo,badge,department")
                #expect(lines.count == 5)
            }
        }
    }

    @Test func jsonToStandardOutputIsOneObjectOfArraysByEntity() throws {
        try Cdstore.withTempDir { dir in
            let r = try Cdstore.run(["export", try Self.sample(in: dir), "--format", "json"])
            #expect(r.status == 0, "\(r.stderr)")
            let all = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: [Any]])
            #expect(all.mapValues(\.count) == ["Department": 2, "Employee": 4])
        }
    }

    @Test func csvToStandardOutputNeedsOneEntity() throws {
        try Cdstore.withTempDir { dir in
            let path = try Self.sample(in: dir)
            let r = try Cdstore.run(["export", path, "--format", "csv"])
            #expect(r.status == 16)
            #expect(r.stderr.hasPrefix("cdstore: csv to standard output needs exactly one entity"))
            let one = try Cdstore.run(["export", path, "--format", "csv", "--entity", "Department"])
            #expect(one.status == 0)
            #expect(one.stdout.split(separator: "\n").count == 3)
            let typo = try Cdstore.run(["export", path, "--format", "csv", "--entity", "Departmnt"])
            #expect(typo.stderr == "cdstore: no entity named \"Departmnt\" (did you mean \"Department\"?)\n")
        }
    }

    /// A property named like the object ID column is refused, not written twice under one key.
    @Test func aPropertyNamedObjectIDIsRefused() throws {
        try Cdstore.withTempDir { dir in
            let path = dir.appendingPathComponent("clash.cdstore").path
            let model = try ObjectModel(entities: [
                EntityDescription(name: "Thing", attributes: [AttributeDescription(name: "objectID", type: .string)])
            ])
            try ObjectStore.open(path: path, model: model).close()
            for arguments in [["export", path, "--format", "ndjson"], ["query", path, "Thing"]] {
                let r = try Cdstore.run(arguments)
                #expect(r.status == 8)
                #expect(
                    r.stderr
                        == "cdstore: entity Thing has a property named objectID, the name of the object ID column\n")
                #expect(r.stdout.isEmpty)
            }
        }
    }

    /// More objects than one page (ExportCommand.pageSize): every object once, in key order.
    @Test func exportPagesThroughMoreObjectsThanOnePage() throws {
        try Cdstore.withTempDir { dir in
            let path = dir.appendingPathComponent("many.cdstore").path
            let model = try ObjectModel(entities: [
                EntityDescription(name: "Item", attributes: [AttributeDescription(name: "n", type: .integer64)])
            ])
            let store = try ObjectStore.open(path: path, model: model)
            let ids = try store.newObjectIDs(entity: "Item", count: 1300)
            try store.apply(
                ChangeSet(
                    inserted: Dictionary(
                        uniqueKeysWithValues: ids.map { ($0, ["n": .attribute(.integer($0.primaryKey * 7))]) })))
            try store.close()
            let r = try Cdstore.run(["export", path, "--format", "ndjson"])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.count == 1300)
            #expect(lines.first == "{\"objectID\":\"Item/1\",\"n\":7}")
            #expect(lines.last == "{\"objectID\":\"Item/1300\",\"n\":9100}")
            #expect(lines.map(String.init) == (1...1300).map { "{\"objectID\":\"Item/\($0)\",\"n\":\($0 * 7)}" })
        }
    }

    /// Every object of a golden store is exported once: the lines equal the objects info counts.
    @Test(arguments: InfoCommandTests.goldenStores) func goldenStoresExportEveryObject(_ name: String) throws {
        try Cdstore.withTempDir { dir in
            let path = try Cdstore.copyFixtureStore("migration/\(name)", to: dir)
            let info = try InfoCommandTests.info(path)
            let r = try Cdstore.run(["export", path, "--format", "ndjson"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.split(separator: "\n").count == info.entities.reduce(0) { $0 + $1.objects })
        }
    }

    struct HostileCase: Decodable, CustomTestStringConvertible {
        var name: String
        var objectStore: String
        var testDescription: String { name }
    }

    static let hostileCases: [HostileCase] = {
        let url = Cdstore.fixture("hostile/objects/cases.json")
        guard let data = try? Data(contentsOf: url),
            let cases = try? JSONDecoder().decode([HostileCase].self, from: data)
        else { return [] }
        return cases
    }()

    @Test func hostileCasesAreListed() { #expect(Self.hostileCases.count >= 10) }

    /// A damaged object store exports or fails with one line and exit 8; never a trap.
    @Test(arguments: hostileCases) func hostileStoresNeverTrap(_ hostile: HostileCase) throws {
        try Cdstore.withTempDir { dir in
            let path = try Cdstore.copyFixtureStore("hostile/objects/\(hostile.name).cdstore", to: dir)
            for arguments in [["info", path], ["export", path, "--format", "ndjson"]] {
                let r = try Cdstore.run(arguments)
                #expect(r.status == 0 || r.status == 8, "\(arguments): \(r.status) \(r.stderr)")
                if r.status == 8 {
                    #expect(r.stderr.hasPrefix("cdstore: ") && r.stderr.filter { $0 == "\n" }.count == 1, "\(r.stderr)")
                }
                if hostile.objectStore == "unsupportedObjectFormat" { #expect(r.status == 8) }
            }
        }
    }
}
