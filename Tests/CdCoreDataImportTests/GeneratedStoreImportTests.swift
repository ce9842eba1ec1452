import CdCoreDataImport
import CdObjects
import Foundation
import Testing

/// Generated stores in Core Data's layout (CoreDataStoreGenerator) for what no fixture has.
@Suite struct GeneratedStoreImportTests {
    /// Generates a store, imports it, and hands the opened result to `check`.
    private func imported(
        _ generator: CoreDataStoreGenerator, options: CoreDataImport.Options = .init(),
        _ check: (CoreDataImportReport, ObjectStore, URL) throws -> Void
    ) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let source = scratch.url.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        let (store, model) = try generator.write(into: source)
        let before = try snapshotFiles(source)
        let output = scratch.url.appendingPathComponent("Gen.cdstore")
        let report = try CoreDataImport.importStore(at: store, model: model, to: output, options: options)
        #expect(try snapshotFiles(source) == before, "the source files are unchanged")
        let objectModel = try ModelFileReader.load(at: model.path).model
        let opened = try ObjectStore.open(path: output.path, model: objectModel)
        defer { try? opened.close() }
        let problems = try opened.engine.read { try ObjectStoreVerifier().verify($0) }
        #expect(problems.isEmpty, "\(problems)")
        try check(report, opened, output)
    }

    @Test func everyEntityValueAndRelationshipComesAcross() throws {
        let generator = CoreDataStoreGenerator()
        try imported(generator) { report, store, _ throws in
            #expect(report.modelVersion == "Gen")
            #expect(report.storeUUID == generator.uuid)
            #expect(report.badRowCount == 0, "\(report.badRows)")
            #expect(report.skippedTables == ["ACHANGE", "ATRANSACTION"])
            #expect(
                report.objectCounts == [
                    "Department": 3, "Employee": 9, "Manager": 3, "Book": 2, "Film": 1, "Sample": 3, "Tag": 2,
                ])
            do {
                let s = try store.beginRead()
                defer { s.end() }
                // Sibling sub-entities that both declare `title` (ZTITLE1, ZTITLE2).
                #expect(
                    try s.values(of: ObjectID(entity: "Book", primaryKey: 1))?["title"] == .attribute(.string("A Book"))
                )
                #expect(
                    try s.values(of: ObjectID(entity: "Film", primaryKey: 2))?["title"] == .attribute(.string("A Film"))
                )
                #expect(
                    try s.values(of: ObjectID(entity: "Film", primaryKey: 2))?["minutes"] == .attribute(.integer(95)))
                // Ordered to-many: Z_FOK_ order (reverse key order here), and the inverse to-ones.
                let d1 = ObjectID(entity: "Department", primaryKey: 1)
                let expectedOrder = (0..<4).reversed().map { e in
                    ObjectID(entity: e == 0 ? "Manager" : "Employee", primaryKey: generator.employeeKey(1, e))
                }
                #expect(try s.related(d1, "employees") == expectedOrder)
                let e2 = ObjectID(entity: "Employee", primaryKey: 2)
                #expect(try s.values(of: e2)?["department"] == .toOne(d1))
                // A self relationship without inverse, whose destination has a sub-entity.
                let manager = ObjectID(entity: "Manager", primaryKey: 1)
                #expect(try s.values(of: e2)?["mentor"] == .toOne(manager))
                // A to-many without inverse (the hidden Z3REPORTS column).
                #expect(
                    try Set(s.related(manager, "reports"))
                        == Set((2...4).map { ObjectID(entity: "Employee", primaryKey: Int64($0)) }))
                // Many-to-many through Z_2TAGS, both sides.
                let red = ObjectID(entity: "Tag", primaryKey: 1)
                let redMembers = (1...3).flatMap { d in [1, 3].map { generator.employeeKey(d, $0) } }
                #expect(try Set(s.related(red, "employees").map(\.primaryKey)) == Set(redMembers))
                #expect(try s.related(e2, "tags").contains(red))
            }
        }
    }

    @Test func everyAttributeTypeAtItsLimits() throws {
        try imported(CoreDataStoreGenerator()) { _, store, _ throws in
            let names = [
                "i16", "i32", "i64", "flag", "when", "dec", "dbl", "flt", "str", "link", "bin", "photo", "id", "blob",
            ]
            let model = store.model
            for (i, row) in CoreDataStoreGenerator.sampleRows.enumerated() {
                let values = try #require(try store.storedValues(ObjectID(entity: "Sample", primaryKey: Int64(i + 1))))
                for (name, column) in zip(names, row) {
                    let type = try #require(model.attribute(name, of: "Sample")?.type)
                    var expected = try #require(expectedValue(column, type), "\(name)")
                    if name == "photo", !expected.isNull {
                        // External storage: 0x02 names a file, 0x01 holds the bytes inline.
                        expected = .data(
                            i == 0 ? CoreDataStoreGenerator.externalBytes : CoreDataStoreGenerator.inlineBytes)
                    }
                    guard case let .attribute(actual)? = values[name] else {
                        Issue.record("Sample \(i + 1).\(name) missing")
                        continue
                    }
                    #expect(sameValue(actual, expected), "Sample \(i + 1).\(name): \(actual) ≠ \(expected)")
                }
            }
            // Decimal NaN stays NaN through the store.
            let first = try #require(try store.storedValues(ObjectID(entity: "Sample", primaryKey: 1)))
            guard case let .attribute(.decimal(d))? = first["dec"] else {
                Issue.record("no decimal"); return
            }
            #expect(d.isNaN)
        }
    }

    @Test func keysAndNextKeysAreCoreDatas() throws {
        var generator = CoreDataStoreGenerator()
        generator.employeeMax = 5000
        try imported(generator) { report, store, _ throws in
            #expect(try store.newObjectIDs(entity: "Employee", count: 1)[0].primaryKey == 5001, "past Z_MAX")
            #expect(try store.newObjectIDs(entity: "Book", count: 1)[0].primaryKey == 5, "past Z_MAX 4")
            // An old object URI names the imported object.
            let uri = try #require(URL(string: "x-coredata://\(report.storeUUID)/Employee/p2"))
            let id = try #require(ObjectID(coreDataURI: uri, storeUUID: report.storeUUID))
            #expect(id == ObjectID(entity: "Employee", primaryKey: 2))
            #expect(try store.storedExists(id))
            let other = try #require(URL(string: "x-coredata://00000000-0000-0000-0000-000000000000/Employee/p2"))
            #expect(ObjectID(coreDataURI: other, storeUUID: report.storeUUID) == nil, "another store's URI")
        }
    }

    @Test func objectsOnlyInTheWALComeAcross() throws {
        var generator = CoreDataStoreGenerator()
        generator.walOnly = true
        try imported(generator) { report, _, _ throws in
            #expect(report.objectCount == 23)
            #expect(report.badRowCount == 0)
        }
    }

    @Test func damagedRowsAreListedWithTableAndKey() throws {
        var generator = CoreDataStoreGenerator()
        generator.damaged = true
        try imported(generator) { report, store, _ throws in
            let listed = Set(report.badRows.map { "\($0.table) \($0.primaryKey)" })
            #expect(
                listed == [
                    "ZEMPLOYEE 900", "ZEMPLOYEE 901", "ZDEPARTMENT 50", "ZSAMPLE 60", "ZITEM 70", "ZEMPLOYEE 902",
                    "ZEMPLOYEE 903",
                ],
                "\(report.badRows)")
            #expect(report.badRowCount == 7)
            // The row whose key points nowhere is imported without that relationship.
            let nowhere = ObjectID(entity: "Employee", primaryKey: 901)
            #expect(try store.storedValues(nowhere)?["department"] == .toOne(nil))
            #expect(try !store.storedExists(ObjectID(entity: "Sample", primaryKey: 60)))
            // A to-one written before its target (a later row) turned out bad is cleared; the bad
            // row is in no list, and the lists still agree with the to-ones (the object checks).
            let mentored = ObjectID(entity: "Employee", primaryKey: 902)
            let badSalary = ObjectID(entity: "Employee", primaryKey: 903)
            #expect(try store.storedValues(mentored)?["mentor"] == .toOne(nil))
            #expect(try !store.storedExists(badSalary))
            let snapshot = try store.beginRead()
            defer { snapshot.end() }
            let department = try snapshot.related(ObjectID(entity: "Department", primaryKey: 1), "employees")
            #expect(department.last == mentored)
            #expect(!department.contains(badSalary))
        }
    }

    @Test func strictRefusesDamagedRowsAndWritesNothing() throws {
        var generator = CoreDataStoreGenerator()
        generator.damaged = true
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (store, model) = try generator.write(into: scratch.url)
        let output = scratch.url.appendingPathComponent("Gen.cdstore")
        var options = CoreDataImport.Options()
        options.strict = true
        #expect {
            try CoreDataImport.importStore(at: store, model: model, to: output, options: options)
        } throws: { error in
            guard case let .badRow(row)? = error as? CoreDataImportError else { return false }
            return row.table.hasPrefix("Z")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
        #expect(!left.contains { $0.contains("cdstore") }, "\(left)")
    }

    @Test func anExistingDestinationIsRefusedAndALeftoverTemporaryIsReplaced() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (store, model) = try CoreDataStoreGenerator().write(into: scratch.url)
        let output = scratch.url.appendingPathComponent("Gen.cdstore")
        // What an interrupted import leaves: the temporary store, never the destination.
        try Data("partial".utf8).write(to: scratch.url.appendingPathComponent(".Gen.cdstore.importing"))
        try CoreDataImport.importStore(at: store, model: model, to: output)
        #expect(FileManager.default.fileExists(atPath: output.path))
        #expect(
            !FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent(".Gen.cdstore.importing").path))
        let bytes = try Data(contentsOf: output)
        #expect(throws: CoreDataImportError.destinationExists(path: output.path)) {
            try CoreDataImport.importStore(at: store, model: model, to: output)
        }
        #expect(try Data(contentsOf: output) == bytes)
    }

    @Test func theVersionIsChosenBySchema() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (store, model) = try CoreDataStoreGenerator().write(into: scratch.url)
        let bundle = scratch.url.appendingPathComponent("Gen.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: model, to: bundle.appendingPathComponent("Gen.xcdatamodel"))
        // A later version with one more attribute, made current.
        let later = bundle.appendingPathComponent("Gen 2.xcdatamodel")
        try FileManager.default.createDirectory(at: later, withIntermediateDirectories: true)
        let xml = CoreDataStoreGenerator.modelXML.replacingOccurrences(
            of: "<attribute name=\"label\" optional=\"YES\" attributeType=\"String\"/>",
            with: "<attribute name=\"label\" optional=\"YES\" attributeType=\"String\"/>"
                + "<attribute name=\"color\" optional=\"YES\" attributeType=\"String\"/>")
        try Data(xml.utf8).write(to: later.appendingPathComponent("contents"))
        let report = try CoreDataImport.importStore(
            at: store, model: bundle, to: scratch.url.appendingPathComponent("a.cdstore"))
        #expect(report.modelVersion == "Gen")
        // Asked for the later version: refused, naming what differs.
        var options = CoreDataImport.Options()
        options.version = "Gen 2"
        #expect {
            try CoreDataImport.importStore(
                at: store, model: bundle, to: scratch.url.appendingPathComponent("b.cdstore"), options: options)
        } throws: { error in
            guard case let .versionMismatch(m)? = error as? CoreDataImportError else { return false }
            return m.version == "Gen 2" && m.differences == ["table ZTAG: column ZCOLOR is missing"]
        }
        // Only the later version: no match, the closest named with its difference.
        try FileManager.default.removeItem(at: bundle.appendingPathComponent("Gen.xcdatamodel"))
        #expect {
            try CoreDataImport.importStore(
                at: store, model: bundle, to: scratch.url.appendingPathComponent("c.cdstore"))
        } throws: { error in
            guard case let .noMatchingVersion(closest)? = error as? CoreDataImportError else { return false }
            return closest.first?.version == "Gen 2"
        }
        // Two versions the schema cannot tell apart.
        try FileManager.default.copyItem(at: model, to: bundle.appendingPathComponent("Gen 3.xcdatamodel"))
        try FileManager.default.copyItem(at: model, to: bundle.appendingPathComponent("Gen 4.xcdatamodel"))
        #expect(throws: CoreDataImportError.ambiguousVersion(versions: ["Gen 3", "Gen 4"])) {
            try CoreDataImport.importStore(
                at: store, model: bundle, to: scratch.url.appendingPathComponent("d.cdstore"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("d.cdstore").path))
    }
}

/// Larger generated stores: a 20,000-object import in the suite, and on request
/// (`CADMIUM_COREDATA_GENERATE=<folder>:<objects>`) a store of any size written for measuring the
/// release command (docs/COREDATA-IMPORT.md, "Measured").
@Suite struct GeneratedScaleTests {
    /// A generator of about `objects` objects: departments of 100 (a manager and 99 employees).
    static func generator(objects: Int) -> CoreDataStoreGenerator {
        var generator = CoreDataStoreGenerator()
        generator.employeesPerDepartment = 99
        generator.departments = max(1, objects / 100)
        generator.employeeMax = Int64(generator.departments * 99)
        return generator
    }

    @Test func twentyThousandObjectsImportInBatches() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (store, model) = try Self.generator(objects: 20_000).write(into: scratch.url)
        var options = CoreDataImport.Options()
        options.batchSize = 500
        options.commitSize = 3_000  // about a dozen commits of objects and links
        let output = scratch.url.appendingPathComponent("big.cdstore")
        let report = try CoreDataImport.importStore(at: store, model: model, to: output, options: options)
        #expect(report.objectCounts["Department"] == 200)
        #expect(report.objectCounts["Manager"] == 200)
        #expect(report.objectCounts["Employee"] == 200 * 98)
        #expect(report.badRowCount == 0)
        let opened = try ObjectStore.open(path: output.path, model: try ModelFileReader.load(at: model.path).model)
        defer { try? opened.close() }
        #expect(try opened.engine.read { try ObjectStoreVerifier().verify($0) }.isEmpty)
        let snapshot = try opened.beginRead()
        defer { snapshot.end() }
        // Lists written across commits: the last department's, in Z_FOK_ order (reverse keys).
        let last = ObjectID(entity: "Department", primaryKey: 200)
        #expect(
            try snapshot.related(last, "employees").map(\.primaryKey) == (19_702...19_800).reversed().map(Int64.init))
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["CADMIUM_COREDATA_GENERATE"] != nil))
    func writeAStoreForMeasuring() throws {
        let request = ProcessInfo.processInfo.environment["CADMIUM_COREDATA_GENERATE"] ?? ""
        let parts = request.split(separator: ":")
        let objects = try #require(parts.count == 2 ? Int(parts[1]) : nil, "expected <folder>:<objects>")
        let folder = URL(fileURLWithPath: String(parts[0]))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try Self.generator(objects: objects).write(into: folder)
    }
}
