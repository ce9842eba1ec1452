// `cdstore import`: export then import into an empty store with the same model reproduces every
// object, value and relationship (the sample store, a store with every attribute type at its
// limits, the `make demo` company store), in each format; bad input (Fixtures/cdstore-import/
// errors) gets a one-line error naming the record and leaves the store as it was.

import CdObjects
import CdStore
import Foundation
import Testing

@Suite struct CdstoreImportTests {
    /// Exports `store` in `format` into a new directory under `dir`; returns the directory.
    static func export(_ store: String, _ format: String, into dir: URL, name: String) throws -> URL {
        let out = dir.appendingPathComponent(name)
        let r = try Cdstore.run(["export", store, "--format", format, "--output", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        return out
    }

    /// The files of `dir` by name, with their bytes.
    static func contents(_ dir: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            files[name] = try Data(contentsOf: dir.appendingPathComponent(name))
        }
        return files
    }

    /// A new empty store beside `store` with the model `store` records.
    static func emptyCopy(of store: String, at path: String) throws {
        var options = StoreOptions()
        options.readOnly = true
        let (source, record) = try ObjectStore.openWithStoredModel(path: store, options: options)
        try source.close()
        try ObjectStore.open(path: path, model: record.model).close()
    }

    /// Export, import into an empty store, export again: the two exports are byte for byte equal.
    static func roundTrip(_ store: String, format: String, in dir: URL, batch: Int? = nil) throws {
        let first = try export(store, format, into: dir, name: "first-\(format)")
        let copy = dir.appendingPathComponent("copy-\(format).cdstore").path
        try emptyCopy(of: store, at: copy)
        let r = try Cdstore.run(["import", copy, first.path] + (batch.map { ["--batch", "\($0)"] } ?? []))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("imported "))
        let second = try export(copy, format, into: dir, name: "second-\(format)")
        let before = try contents(first)
        let after = try contents(second)
        #expect(before.keys.sorted() == after.keys.sorted())
        for (name, bytes) in before {
            #expect(
                String(decoding: after[name] ?? Data(), as: UTF8.self) == String(decoding: bytes, as: UTF8.self),
                "\(name) differs after the round trip")
        }
        let verify = try Cdstore.run(["verify", copy])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test(arguments: ["json", "ndjson", "csv"]) func theSampleStoreRoundTrips(_ format: String) throws {
        try Cdstore.withTempDir { dir in
            try Self.roundTrip(try ExportCommandTests.sample(in: dir), format: format, in: dir)
        }
    }

    @Test(arguments: ["json", "ndjson", "csv"]) func everyAttributeTypeAtItsLimitsRoundTrips(_ format: String) throws {
        try Cdstore.withTempDir { dir in
            let path = dir.appendingPathComponent("types.cdstore").path
            try EveryTypeStore.create(at: path, forCSV: format == "csv")
            try Self.roundTrip(path, format: format, in: dir)
        }
    }

    /// Runs of one record each: every run is whole records, and a relationship names an object of
    /// an earlier run, so the departments come first, without their employee lists (whose
    /// inverse, each employee's department, links them).
    @Test func runsOfOneRecordEachRebuildTheSampleStore() throws {
        try Cdstore.withTempDir { dir in
            let store = try ExportCommandTests.sample(in: dir)
            let first = try Self.export(store, "ndjson", into: dir, name: "first")
            let departments = try String(contentsOf: first.appendingPathComponent("Department.ndjson"), encoding: .utf8)
            let withoutLists = departments.split(separator: "\n").map { line in
                line.replacing(/,"employees":\[[^\]]*\]/, with: "")
            }
            let departmentFile = dir.appendingPathComponent("departments.ndjson")
            try Data((withoutLists.joined(separator: "\n") + "\n").utf8).write(to: departmentFile)
            let copy = dir.appendingPathComponent("copy.cdstore").path
            try Self.emptyCopy(of: store, at: copy)
            let d = try Cdstore.run(["import", copy, departmentFile.path, "--entity", "Department", "--batch", "1"])
            #expect(d.stdout == "imported 2 objects (2 Department) in 2 commits\n", "\(d.stderr)")
            let e = try Cdstore.run([
                "import", copy, first.appendingPathComponent("Employee.ndjson").path, "--batch", "1",
            ])
            #expect(e.stdout == "imported 4 objects (4 Employee) in 4 commits\n", "\(e.stderr)")
            let second = try Self.export(copy, "ndjson", into: dir, name: "second")
            #expect(try Self.contents(second) == (try Self.contents(first)))
        }
    }

    @Test func theDemoCompanyStoreRoundTrips() throws {
        try Cdstore.withTempDir { dir in
            let path = dir.appendingPathComponent("demo-company.cdstore").path
            let demo = try Cdstore.run([path], tool: "cadmium-company-demo")
            #expect(demo.status == 0, "\(demo.stderr)")
            try Self.roundTrip(path, format: "json", in: dir)
        }
    }

    /// `export --format json` to standard output (an object of arrays by entity) imports whole.
    @Test func anObjectOfArraysByEntityImportsWithoutEntity() throws {
        try Cdstore.withTempDir { dir in
            let store = try ExportCommandTests.sample(in: dir)
            let all = try Cdstore.run(["export", store, "--format", "json"])
            let file = dir.appendingPathComponent("all.json")
            try Data(all.stdout.utf8).write(to: file)
            let copy = dir.appendingPathComponent("copy.cdstore").path
            try Self.emptyCopy(of: store, at: copy)
            let r = try Cdstore.run(["import", copy, file.path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == "imported 6 objects (2 Department, 4 Employee) in 1 commit\n")
            let again = try Cdstore.run(["export", copy, "--format", "json"])
            #expect(again.stdout == all.stdout)
        }
    }

    /// Records without an objectID get new keys; their relationships name stored objects.
    @Test func recordsWithoutIDsGetNewKeys() throws {
        try Cdstore.withTempDir { dir in
            let store = try ExportCommandTests.sample(in: dir)
            let file = dir.appendingPathComponent("new.csv")
            try Data("name,salary,department\nZoe,1,Department/2\n\"Yan, Jr.\",2,\n".utf8).write(to: file)
            let r = try Cdstore.run(["import", store, file.path, "--entity", "Employee"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == "imported 2 objects (2 Employee) in 1 commit\n")
            let q = try Cdstore.run([
                "query", store, "Employee", "salary < 10", "--format", "csv", "--properties", "name,department",
            ])
            #expect(q.stdout == "objectID,name,department\nEmployee/5,Zoe,Department/2\nEmployee/6,\"Yan, Jr.\",\n")
        }
    }

    static let errorCases: [String] = {
        let dir = Cdstore.fixture("cdstore-import/errors")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasSuffix(".expected") }.sorted()
    }()

    /// Each bad file is refused with the one line its `.expected` file holds, exit 16, and the
    /// store keeps exactly what it had.
    @Test(arguments: errorCases) func badInputIsRefusedAndChangesNothing(_ name: String) throws {
        let file = Cdstore.fixture("cdstore-import/errors/\(name)")
        let expected = try String(contentsOf: URL(fileURLWithPath: file.path + ".expected"), encoding: .utf8)
        try Cdstore.withTempDir { dir in
            let store = try ExportCommandTests.sample(in: dir)
            let before = try Cdstore.run(["export", store, "--format", "json"])
            let r = try Cdstore.run(["import", store, file.path, "--entity", "Employee"])
            #expect(r.status == 16)
            #expect(r.stderr == "cdstore: " + expected)
            #expect(r.stdout.isEmpty)
            let after = try Cdstore.run(["export", store, "--format", "json"])
            #expect(after.stdout == before.stdout)
        }
    }

    /// With --batch, a failing run leaves the earlier runs committed and says how many.
    @Test func aFailingRunSaysWhatIsCommitted() throws {
        try Cdstore.withTempDir { dir in
            let store = try ExportCommandTests.sample(in: dir)
            let file = dir.appendingPathComponent("runs.ndjson")
            try Data(
                """
                {"name":"Zoe"}
                {"name":"Yan"}
                {"name":"Xi","department":"Department/99"}

                """.utf8
            ).write(to: file)
            let r = try Cdstore.run(["import", store, file.path, "--entity", "Employee", "--batch", "2"])
            #expect(r.status == 16)
            #expect(r.stderr.hasPrefix("cdstore: runs.ndjson line 3: "))
            #expect(r.stderr.hasSuffix(" (the first 2 records are committed; nothing after them is)\n"))
            let count = try Cdstore.run(["query", store, "Employee", "--count"])
            #expect(count.stdout == "6\n")
        }
    }

    @Test func usageErrors() throws {
        try Cdstore.withTempDir { dir in
            let store = try ExportCommandTests.sample(in: dir)
            let file = dir.appendingPathComponent("x.csv")
            try Data("name\nZoe\n".utf8).write(to: file)
            let noEntity = try Cdstore.run(["import", store, file.path])
            #expect(noEntity.status == 16)
            #expect(noEntity.stderr.contains("name the records' entity with --entity E"))
            let typo = try Cdstore.run(["import", store, file.path, "--entity", "Employe"])
            #expect(typo.stderr == "cdstore: no entity named \"Employe\" (did you mean \"Employee\"?)\n")
            let missing = try Cdstore.run(["import", dir.appendingPathComponent("none.cdstore").path, file.path])
            #expect(missing.status == 8)
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("none.cdstore").path))
        }
    }
}

/// A store with an attribute of every type at its limits, sub-entities, an ordered to-many, a
/// many-to-many, a to-many without inverse and a self relationship.
enum EveryTypeStore {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription(
                    name: "Item",
                    attributes: [
                        AttributeDescription(name: "i16", type: .integer16),
                        AttributeDescription(name: "i32", type: .integer32),
                        AttributeDescription(name: "i64", type: .integer64),
                        AttributeDescription(name: "dec", type: .decimal),
                        AttributeDescription(name: "dbl", type: .double),
                        AttributeDescription(name: "flt", type: .float),
                        AttributeDescription(name: "str", type: .string),
                        AttributeDescription(name: "flag", type: .boolean),
                        AttributeDescription(name: "when", type: .date),
                        AttributeDescription(name: "blob", type: .binaryData),
                        AttributeDescription(name: "uid", type: .uuid),
                        AttributeDescription(name: "link", type: .uri),
                        AttributeDescription(name: "coded", type: .transformable(transformerName: nil)),
                    ],
                    relationships: [
                        RelationshipDescription(name: "parent", destination: "Item", inverse: "children"),
                        .toMany("children", destination: "Item", inverse: "parent", ordered: true),
                        .toMany("tags", destination: "Tag", inverse: "items"),
                        .toMany("seeAlso", destination: "Item"),
                    ]),
                EntityDescription(
                    name: "SpecialItem", parent: "Item",
                    attributes: [AttributeDescription(name: "extra", type: .string, isOptional: false)]),
                EntityDescription(
                    name: "Tag",
                    attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
                    relationships: [.toMany("items", destination: "Item", inverse: "tags", ordered: true)],
                    uniquenessConstraints: [["name"]]),
            ])
        } catch {
            fatalError("the every-type model is invalid: \(error)")
        }
    }()

    /// Creates the store; `forCSV` leaves out what CSV cannot tell from nil (an empty string or
    /// empty data in an optional attribute).
    static func create(at path: String, forCSV: Bool) throws {
        let store = try ObjectStore.open(path: path, model: model)
        defer { try? store.close() }
        let items = try store.newObjectIDs(entity: "Item", count: 4)
        let specials = try store.newObjectIDs(entity: "SpecialItem", count: 2)
        let tags = try store.newObjectIDs(entity: "Tag", count: 3)
        func v(_ value: CdValue) -> PropertyValue { .attribute(value) }
        var inserted: [ObjectID: [String: PropertyValue]] = [:]
        inserted[items[0]] = [
            "i16": v(.integer(Int64(Int16.min))), "i32": v(.integer(Int64(Int32.max))), "i64": v(.integer(.min)),
            "dec": v(.decimal(Decimal(string: "123456789012345678901234.5678")!)), "dbl": v(.double(-0.0)),
            "flt": v(.double(Double(Float(0.1)))), "str": v(.string("comma, \"quote\"\nnew line, naïve 🚀 ")),
            "flag": v(.bool(true)), "when": v(.date(Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_789))),
            "blob": v(.data(Data([0, 1, 2, 254, 255]))), "uid": v(.uuid(UUID())),
            "link": v(.uri(URL(string: "https://example.com/a?b=c,d#e")!)), "coded": v(.data(Data("{}".utf8))),
        ]
        inserted[items[1]] = [
            "i16": v(.integer(Int64(Int16.max))), "i32": v(.integer(Int64(Int32.min))), "i64": v(.integer(.max)),
            "dec": v(.decimal(.nan)), "dbl": v(.double(.nan)), "flt": v(.double(-.infinity)),
            "str": v(.string(forCSV ? "x" : "")), "flag": v(.bool(false)),
            "when": v(.date(Date(timeIntervalSinceReferenceDate: -3_000_000_000.75))),
            "blob": v(.data(forCSV ? Data([7]) : Data())),
        ]
        inserted[items[2]] = ["dbl": v(.double(.infinity)), "when": v(.date(Date(timeIntervalSince1970: 0)))]
        inserted[items[3]] = ["dbl": v(.double(1e-300)), "dec": v(.decimal(Decimal(string: "-0.000001")!))]
        inserted[specials[0]] = ["extra": v(.string("special")), "i64": v(.integer(42))]
        inserted[specials[1]] = ["extra": v(.string(""))]
        for (i, tag) in tags.enumerated() { inserted[tag] = ["name": v(.string("tag \(i)"))] }
        try store.apply(ChangeSet(inserted: inserted))
        // Relationships: a parent with children in a non-key order, tags on several items (with
        // each tag's items in a non-key order), a to-many without inverse, a self reference.
        try store.apply(
            ChangeSet(updated: [
                items[0]: [
                    "children": .toMany([specials[1], items[2], items[1]]), "tags": .toMany([tags[2], tags[0]]),
                    "seeAlso": .toMany([items[0], specials[0]]),
                ],
                specials[0]: ["parent": .toOne(items[0]), "tags": .toMany([tags[0]])],
                tags[0]: ["items": .toMany([specials[0], items[0]])],
            ]))
    }
}
