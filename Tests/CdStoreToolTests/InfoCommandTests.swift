// `cdstore info`: its JSON on a store the test creates and on the golden stores, and the
// one-line errors for what is not an object store.

import CdObjects
import CdStore
import Foundation
import Testing

@Suite struct InfoCommandTests {
    /// The parts of info's JSON the tests read (docs/CDSTORE.md, "info").
    struct Info: Decodable {
        struct Entity: Decodable {
            struct Index: Decodable { var name: String, elements: [String] }
            struct Relationship: Decodable { var name: String, destination: String, toMany: Bool, inverse: String? }
            var name: String
            var objects: Int
            var indexes: [Index]
            var relationships: [Relationship]
        }
        var formatVersion: UInt32?
        var objectFormatVersion: UInt32?
        var pageSize: Int
        var pageFileBytes: UInt64
        var walBytes: UInt64
        var modelVersionHash: String
        var entities: [Entity]
    }

    static func info(_ path: String) throws -> Info {
        let r = try Cdstore.run(["info", "--format", "json", path])
        #expect(r.status == 0, "\(r.stderr)")
        return try JSONDecoder().decode(Info.self, from: Data(r.stdout.utf8))
    }

    @Test func jsonDescribesTheSampleStore() throws {
        try Cdstore.withTempDir { dir in
            let path = dir.appendingPathComponent("sample.cdstore").path
            try SampleStore.create(at: path)
            let info = try Self.info(path)
            #expect(info.formatVersion == 1)
            #expect(info.objectFormatVersion == 2, "new stores are written as object layout 2 (FORMAT.md)")
            #expect(info.pageSize == 8192)
            #expect(info.pageFileBytes > 0)
            #expect(info.modelVersionHash == SampleStore.model.versionHash)
            #expect(info.entities.map(\.name) == ["Department", "Employee"])
            #expect(info.entities.map(\.objects) == [2, 4])
            let employee = try #require(info.entities.last)
            #expect(employee.indexes.map(\.name) == ["bySalary"])
            #expect(employee.indexes.first?.elements == ["-salary"])
            #expect(employee.relationships.map(\.destination) == ["Department"])
            #expect(info.entities.first?.relationships.first?.toMany == true)
            #expect(info.entities.first?.relationships.first?.inverse == "department")
        }
    }

    @Test func textNamesEachEntityWithoutEscapeCodesInAPipe() throws {
        try Cdstore.withTempDir { dir in
            let path = dir.appendingPathComponent("sample.cdstore").path
            try SampleStore.create(at: path)
            let r = try Cdstore.run(["info", path])
            #expect(r.status == 0)
            #expect(r.stdout.contains("Employee  4 objects"))
            #expect(r.stdout.contains("department → Department (to-one, inverse employees, delete Nullify)"))
            #expect(!r.stdout.contains("\u{1B}["))
        }
    }

    static let goldenStores = ["SampleModel-v1.cdstore", "SampleModel-v2.cdstore", "SampleModel-v3.cdstore"]

    /// Each entity's count in info agrees with the library's own count of that entity's objects.
    @Test(arguments: goldenStores) func countsOfTheGoldenStoresAgreeWithTheLibrary(_ name: String) throws {
        try Cdstore.withTempDir { dir in
            let path = try Cdstore.copyFixtureStore("migration/\(name)", to: dir)
            let info = try Self.info(path)
            var options = StoreOptions()
            options.readOnly = true
            let (store, record) = try ObjectStore.openWithStoredModel(path: path, options: options)
            defer { try? store.close() }
            #expect(info.modelVersionHash == record.versionHash)
            for entity in info.entities {
                var request = FetchRequest(entity: entity.name)
                request.includesSubentities = false
                #expect(entity.objects == (try store.read { try $0.count(request) }), "\(name) \(entity.name)")
            }
            #expect(info.entities.reduce(0) { $0 + $1.objects } > 0)
        }
    }

    @Test func whatIsNotAnObjectStoreIsOneLineAndExitEight() throws {
        try Cdstore.withTempDir { dir in
            let missing = try Cdstore.run(["info", dir.appendingPathComponent("nope.cdstore").path])
            #expect(missing.status == 8)
            #expect(missing.stderr.hasSuffix("nope.cdstore: no such file\n"))
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("nope.cdstore").path))
            let engineOnly = try Cdstore.copyFixtureStore("stores/v1-clean.cdstore", to: dir)
            let r = try Cdstore.run(["info", engineOnly])
            #expect(r.status == 8)
            #expect(r.stderr == "cdstore: \(engineOnly): an engine store without an object model (no cd.meta tree)\n")
            let junk = dir.appendingPathComponent("junk").path
            try Data(repeating: 0x41, count: 10_000).write(to: URL(fileURLWithPath: junk))
            let notAStore = try Cdstore.run(["info", junk])
            #expect(notAStore.status == 8)
            #expect(notAStore.stderr.hasPrefix("cdstore: ") && notAStore.stderr.filter { $0 == "\n" }.count == 1)
        }
    }
}
